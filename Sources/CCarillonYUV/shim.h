#ifndef CCARILLON_YUV_SHIM_H
#define CCARILLON_YUV_SHIM_H

/*
 * libyuv (Debian's libyuv-dev ships no pkg-config file, hence `link "yuv"` in the module map). Its headers are plain
 * C when compiled as C, so the functions we call (I420Scale, I420Copy, NV12ToI420, YUY2ToI420, MJPGToI420 (Debian's libyuv is built with libjpeg-turbo), ARGBToI420 and the
 * other packed-RGB orders) import directly and need no wrappers.
 *
 * Naming: libyuv names packed RGB formats after a little-endian 32-bit word, so its "ARGB" is the bytes B, G, R, A in
 * memory, "ABGR" is R, G, B, A, "BGRA" is A, R, G, B and "RGBA" is A, B, G, R.
 */
#include <libyuv/basic_types.h>
#include <libyuv/convert.h>
#include <libyuv/convert_from_argb.h>
#include <libyuv/planar_functions.h>
#include <libyuv/scale.h>

#endif
