#ifndef CCARILLON_OPUS_SHIM_H
#define CCARILLON_OPUS_SHIM_H

#include <opus/opus.h>

/*
 * opus_encoder_ctl and opus_decoder_ctl are variadic, which Swift cannot call: one wrapper per control we use.
 * Each returns the libopus status (OPUS_OK or a negative error code).
 */

static inline int carillon_opus_encoder_set_bitrate(OpusEncoder *encoder, opus_int32 bitsPerSecond) {
    return opus_encoder_ctl(encoder, OPUS_SET_BITRATE(bitsPerSecond));
}
static inline int carillon_opus_encoder_get_bitrate(OpusEncoder *encoder, opus_int32 *bitsPerSecond) {
    return opus_encoder_ctl(encoder, OPUS_GET_BITRATE(bitsPerSecond));
}
static inline int carillon_opus_encoder_set_complexity(OpusEncoder *encoder, opus_int32 complexity) {
    return opus_encoder_ctl(encoder, OPUS_SET_COMPLEXITY(complexity));
}
static inline int carillon_opus_encoder_set_inband_fec(OpusEncoder *encoder, opus_int32 enabled) {
    return opus_encoder_ctl(encoder, OPUS_SET_INBAND_FEC(enabled));
}
static inline int carillon_opus_encoder_set_packet_loss_perc(OpusEncoder *encoder, opus_int32 percent) {
    return opus_encoder_ctl(encoder, OPUS_SET_PACKET_LOSS_PERC(percent));
}
static inline int carillon_opus_encoder_set_dtx(OpusEncoder *encoder, opus_int32 enabled) {
    return opus_encoder_ctl(encoder, OPUS_SET_DTX(enabled));
}
static inline int carillon_opus_encoder_set_signal(OpusEncoder *encoder, opus_int32 signal) {
    return opus_encoder_ctl(encoder, OPUS_SET_SIGNAL(signal));
}
static inline int carillon_opus_encoder_set_vbr(OpusEncoder *encoder, opus_int32 enabled) {
    return opus_encoder_ctl(encoder, OPUS_SET_VBR(enabled));
}
static inline int carillon_opus_encoder_get_lookahead(OpusEncoder *encoder, opus_int32 *samples) {
    return opus_encoder_ctl(encoder, OPUS_GET_LOOKAHEAD(samples));
}
static inline int carillon_opus_encoder_reset_state(OpusEncoder *encoder) {
    return opus_encoder_ctl(encoder, OPUS_RESET_STATE);
}

static inline int carillon_opus_decoder_reset_state(OpusDecoder *decoder) {
    return opus_decoder_ctl(decoder, OPUS_RESET_STATE);
}
static inline int carillon_opus_decoder_get_last_packet_duration(OpusDecoder *decoder, opus_int32 *samples) {
    return opus_decoder_ctl(decoder, OPUS_GET_LAST_PACKET_DURATION(samples));
}

#endif
