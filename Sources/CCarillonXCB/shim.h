#ifndef CCARILLON_XCB_SHIM_H
#define CCARILLON_XCB_SHIM_H

/*
 * libxcb and its MIT-SHM extension (Debian libxcb1-dev, libxcb-shm0-dev) for the SDK's X11 screen capture, and the
 * System V shared-memory calls the extension shares pictures through. Plain C functions Swift calls directly.
 */
#include <xcb/xcb.h>
#include <xcb/shm.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <stdlib.h>

#endif
