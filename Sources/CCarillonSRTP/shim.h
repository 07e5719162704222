#ifndef CCARILLON_SRTP_SHIM_H
#define CCARILLON_SRTP_SHIM_H

#include <srtp2/srtp.h>

/// The most bytes srtp_protect / srtp_protect_rtcp may append (tag, MKI and the SRTCP index).
static inline int carillon_srtp_max_trailer_length(void) { return SRTP_MAX_TRAILER_LEN + 4; }

#endif
