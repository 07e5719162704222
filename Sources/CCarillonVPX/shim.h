#ifndef CCARILLON_VPX_SHIM_H
#define CCARILLON_VPX_SHIM_H

#include <vpx/vpx_encoder.h>
#include <vpx/vpx_decoder.h>
#include <vpx/vp8cx.h>
#include <vpx/vp8dx.h>

/*
 * What Swift cannot call directly: vpx_codec_enc_init and vpx_codec_dec_init are macros (they pass the ABI version),
 * and vpx_codec_control_ is variadic. One wrapper per call and control we use; each returns the libvpx status
 * (VPX_CODEC_OK or an error code). Flag macros built with shifts are restated as constants.
 */

static const long carillon_vpx_flag_force_keyframe = VPX_EFLAG_FORCE_KF;
static const unsigned long carillon_vpx_deadline_realtime = VPX_DL_REALTIME;
static const unsigned int carillon_vpx_frame_is_key = VPX_FRAME_IS_KEY;

/* Fills `config` with libvpx's VP8 encoder defaults (usage 0). */
static inline vpx_codec_err_t carillon_vpx_vp8_encoder_default_config(vpx_codec_enc_cfg_t *config) {
    return vpx_codec_enc_config_default(vpx_codec_vp8_cx(), config, 0);
}

/* Initialises a VP8 encoder in `context` (caller-owned memory) with `config`. */
static inline vpx_codec_err_t carillon_vpx_vp8_encoder_init(vpx_codec_ctx_t *context, const vpx_codec_enc_cfg_t *config) {
    return vpx_codec_enc_init(context, vpx_codec_vp8_cx(), config, 0);
}

/* Initialises a VP8 decoder in `context` (caller-owned memory) running on `threads` threads. */
static inline vpx_codec_err_t carillon_vpx_vp8_decoder_init(vpx_codec_ctx_t *context, unsigned int threads) {
    vpx_codec_dec_cfg_t config = { threads, 0, 0 };
    return vpx_codec_dec_init(context, vpx_codec_vp8_dx(), &config, 0);
}

/* Reads width, height and the keyframe flag of a VP8 frame without decoding it. */
static inline vpx_codec_err_t carillon_vpx_vp8_peek(const uint8_t *data, unsigned int size,
                                                     unsigned int *width, unsigned int *height, int *isKeyframe) {
    vpx_codec_stream_info_t info = { sizeof(vpx_codec_stream_info_t), 0, 0, 0 };
    vpx_codec_err_t status = vpx_codec_peek_stream_info(vpx_codec_vp8_dx(), data, size, &info);
    *width = info.w;
    *height = info.h;
    *isKeyframe = (int)info.is_kf;
    return status;
}

static inline vpx_codec_err_t carillon_vpx_set_cpu_used(vpx_codec_ctx_t *context, int value) {
    return vpx_codec_control_(context, VP8E_SET_CPUUSED, value);
}
static inline vpx_codec_err_t carillon_vpx_set_static_threshold(vpx_codec_ctx_t *context, unsigned int value) {
    return vpx_codec_control_(context, VP8E_SET_STATIC_THRESHOLD, value);
}
static inline vpx_codec_err_t carillon_vpx_set_token_partitions(vpx_codec_ctx_t *context, int partitions) {
    return vpx_codec_control_(context, VP8E_SET_TOKEN_PARTITIONS, partitions);
}
static inline vpx_codec_err_t carillon_vpx_set_screen_content_mode(vpx_codec_ctx_t *context, unsigned int mode) {
    return vpx_codec_control_(context, VP8E_SET_SCREEN_CONTENT_MODE, mode);
}
/* Whether the last decoded frame was corrupt (a reference was missing or its data ran out). */
static inline vpx_codec_err_t carillon_vpx_get_frame_corrupted(vpx_codec_ctx_t *context, int *corrupted) {
    return vpx_codec_control_(context, VP8D_GET_FRAME_CORRUPTED, corrupted);
}

#endif
