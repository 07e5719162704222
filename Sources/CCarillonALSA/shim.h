#ifndef CCARILLON_ALSA_SHIM_H
#define CCARILLON_ALSA_SHIM_H

/*
 * libasound (alsa-lib) for the SDK's ALSA capture source and playback sink. The PCM functions they use are plain
 * C functions Swift calls directly; nothing needs wrapping yet.
 */
#include <alsa/asoundlib.h>

#endif
