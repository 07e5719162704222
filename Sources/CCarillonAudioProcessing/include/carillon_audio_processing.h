// A C interface to webrtc-audio-processing (a C++ library) for Swift: echo cancellation, gain control and a
// high-pass filter on 10 ms blocks of mono 16-bit PCM.
#ifndef CARILLON_AUDIO_PROCESSING_H
#define CARILLON_AUDIO_PROCESSING_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One audio processing state: one near-end (microphone) stream and its far-end (playout) reference.
typedef struct carillon_audio_processing carillon_audio_processing;

/// Creates a state for mono audio at `sample_rate` (8000, 16000, 32000 or 48000) with the chosen components on;
/// NULL when the library refuses the settings.
carillon_audio_processing *carillon_audio_processing_create(int sample_rate, int echo_cancellation, int gain_control,
                                                            int high_pass_filter);

/// Frees a state (NULL is ignored).
void carillon_audio_processing_destroy(carillon_audio_processing *state);

/// Feeds 10 ms of what is played (the far-end reference): `count` must be sample_rate / 100. Returns 0 or the
/// library's negative error code.
int carillon_audio_processing_analyze_far_end(carillon_audio_processing *state, const int16_t *samples, int count);

/// Processes 10 ms of microphone signal in place; `delay_ms` is how long after its far-end block was analysed the
/// echo of it reaches the microphone (the delay-agnostic mode refines it). Returns 0 or a negative error code.
int carillon_audio_processing_process_near_end(carillon_audio_processing *state, int16_t *samples, int count,
                                               int delay_ms);

#ifdef __cplusplus
}
#endif

#endif
