// The extern "C" side of carillon_audio_processing.h: owns a webrtc::AudioProcessing and the two frames it reuses, so
// no call allocates.
#include "carillon_audio_processing.h"

#include <cstring>
#include <memory>

#include <webrtc/modules/audio_processing/include/audio_processing.h>
#include <webrtc/modules/interface/module_common_types.h>

struct carillon_audio_processing {
    std::unique_ptr<webrtc::AudioProcessing> processing;
    webrtc::AudioFrame far;
    webrtc::AudioFrame near;
    int sample_rate;
};

static void prepare(webrtc::AudioFrame &frame, int sample_rate, const int16_t *samples, int count) {
    frame.sample_rate_hz_ = sample_rate;
    frame.num_channels_ = 1;
    frame.samples_per_channel_ = static_cast<size_t>(count);
    std::memcpy(frame.data_, samples, sizeof(int16_t) * static_cast<size_t>(count));
}

extern "C" carillon_audio_processing *carillon_audio_processing_create(int sample_rate, int echo_cancellation,
                                                                       int gain_control, int high_pass_filter) {
    webrtc::Config config;
    // The SDK knows its playout delay only roughly: let the canceller find the echo's delay itself.
    config.Set<webrtc::DelayAgnostic>(new webrtc::DelayAgnostic(true));
    config.Set<webrtc::ExtendedFilter>(new webrtc::ExtendedFilter(true));
    // The experimental AGC drives an analog microphone volume, which the SDK does not control.
    config.Set<webrtc::ExperimentalAgc>(new webrtc::ExperimentalAgc(false));
    std::unique_ptr<webrtc::AudioProcessing> processing(webrtc::AudioProcessing::Create(config));
    if (!processing) return nullptr;
    // The reverse stream is checked against the configured rates, so set them before the first call.
    if (processing->Initialize(sample_rate, sample_rate, sample_rate, webrtc::AudioProcessing::kMono,
                               webrtc::AudioProcessing::kMono, webrtc::AudioProcessing::kMono) != 0) {
        return nullptr;
    }
    if (processing->echo_cancellation()->Enable(echo_cancellation != 0) != 0) return nullptr;
    if (echo_cancellation) {
        processing->echo_cancellation()->set_suppression_level(webrtc::EchoCancellation::kModerateSuppression);
        processing->echo_cancellation()->enable_drift_compensation(false);
    }
    if (gain_control) {
        if (processing->gain_control()->set_mode(webrtc::GainControl::kAdaptiveDigital) != 0) return nullptr;
        processing->gain_control()->set_target_level_dbfs(3);
        processing->gain_control()->set_compression_gain_db(9);
        processing->gain_control()->enable_limiter(true);
    }
    if (processing->gain_control()->Enable(gain_control != 0) != 0) return nullptr;
    if (processing->high_pass_filter()->Enable(high_pass_filter != 0) != 0) return nullptr;
    auto *state = new carillon_audio_processing();
    state->processing = std::move(processing);
    state->sample_rate = sample_rate;
    return state;
}

extern "C" void carillon_audio_processing_destroy(carillon_audio_processing *state) { delete state; }

extern "C" int carillon_audio_processing_analyze_far_end(carillon_audio_processing *state, const int16_t *samples,
                                                         int count) {
    if (count != state->sample_rate / 100) return webrtc::AudioProcessing::kBadDataLengthError;
    prepare(state->far, state->sample_rate, samples, count);
    return state->processing->ProcessReverseStream(&state->far);
}

extern "C" int carillon_audio_processing_process_near_end(carillon_audio_processing *state, int16_t *samples,
                                                          int count, int delay_ms) {
    if (count != state->sample_rate / 100) return webrtc::AudioProcessing::kBadDataLengthError;
    prepare(state->near, state->sample_rate, samples, count);
    state->processing->set_stream_delay_ms(delay_ms);
    int result = state->processing->ProcessStream(&state->near);
    if (result == 0) std::memcpy(samples, state->near.data_, sizeof(int16_t) * static_cast<size_t>(count));
    return result;
}
