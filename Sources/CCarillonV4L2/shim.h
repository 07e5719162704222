#ifndef CCARILLON_V4L2_SHIM_H
#define CCARILLON_V4L2_SHIM_H

/*
 * V4L2 from linux/videodev2.h (Debian's linux-libc-dev). Swift cannot call the variadic ioctl(2) nor import the
 * VIDIOC_* request macros, and the kernel structs hold unions and byte arrays, so each ioctl the SDK's camera makes has
 * one wrapper here that takes and returns plain integers. Every wrapper returns 0 or the errno of the failure (EINTR is
 * retried), so Swift never reads errno.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/videodev2.h>

static inline int carillon_v4l2_ioctl(int fd, unsigned long request, void *argument) {
    int result;
    do {
        result = ioctl(fd, request, argument);
    } while (result == -1 && errno == EINTR);
    return result == -1 ? errno : 0;
}

/* VIDIOC_QUERYCAP: the names (NUL-terminated, copied into 33-byte buffers) and the capabilities of this node
 * (device_caps when the driver reports them, else the whole device's). */
static inline int carillon_v4l2_query_capability(int fd, char driver[33], char card[33], char bus_info[33],
                                                 uint32_t *capabilities) {
    struct v4l2_capability capability;
    memset(&capability, 0, sizeof capability);
    int status = carillon_v4l2_ioctl(fd, VIDIOC_QUERYCAP, &capability);
    if (status != 0) return status;
    memset(driver, 0, 33);
    memset(card, 0, 33);
    memset(bus_info, 0, 33);
    memcpy(driver, capability.driver, sizeof capability.driver);
    memcpy(card, capability.card, sizeof capability.card);
    memcpy(bus_info, capability.bus_info, sizeof capability.bus_info);
    *capabilities = (capability.capabilities & V4L2_CAP_DEVICE_CAPS) ? capability.device_caps : capability.capabilities;
    return 0;
}

/* VIDIOC_ENUM_FMT for single-planar capture: the pixel format at `index` (EINVAL past the last). */
static inline int carillon_v4l2_enum_format(int fd, uint32_t index, uint32_t *pixel_format) {
    struct v4l2_fmtdesc description;
    memset(&description, 0, sizeof description);
    description.index = index;
    description.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    int status = carillon_v4l2_ioctl(fd, VIDIOC_ENUM_FMT, &description);
    if (status == 0) *pixel_format = description.pixelformat;
    return status;
}

/* VIDIOC_ENUM_FRAMESIZES: a discrete size has min == max and steps of 0; stepwise and continuous ranges fill all. */
static inline int carillon_v4l2_enum_frame_size(int fd, uint32_t pixel_format, uint32_t index, uint32_t *min_width,
                                                uint32_t *max_width, uint32_t *step_width, uint32_t *min_height,
                                                uint32_t *max_height, uint32_t *step_height) {
    struct v4l2_frmsizeenum size;
    memset(&size, 0, sizeof size);
    size.index = index;
    size.pixel_format = pixel_format;
    int status = carillon_v4l2_ioctl(fd, VIDIOC_ENUM_FRAMESIZES, &size);
    if (status != 0) return status;
    if (size.type == V4L2_FRMSIZE_TYPE_DISCRETE) {
        *min_width = *max_width = size.discrete.width;
        *min_height = *max_height = size.discrete.height;
        *step_width = *step_height = 0;
    } else {
        *min_width = size.stepwise.min_width;
        *max_width = size.stepwise.max_width;
        *step_width = size.stepwise.step_width;
        *min_height = size.stepwise.min_height;
        *max_height = size.stepwise.max_height;
        *step_height = size.stepwise.step_height;
    }
    return 0;
}

/* VIDIOC_ENUM_FRAMEINTERVALS: the shortest interval (highest rate) of entry `index`, as numerator/denominator
 * seconds. */
static inline int carillon_v4l2_enum_frame_interval(int fd, uint32_t pixel_format, uint32_t width, uint32_t height,
                                                    uint32_t index, uint32_t *numerator, uint32_t *denominator) {
    struct v4l2_frmivalenum interval;
    memset(&interval, 0, sizeof interval);
    interval.index = index;
    interval.pixel_format = pixel_format;
    interval.width = width;
    interval.height = height;
    int status = carillon_v4l2_ioctl(fd, VIDIOC_ENUM_FRAMEINTERVALS, &interval);
    if (status != 0) return status;
    if (interval.type == V4L2_FRMIVAL_TYPE_DISCRETE) {
        *numerator = interval.discrete.numerator;
        *denominator = interval.discrete.denominator;
    } else {
        *numerator = interval.stepwise.min.numerator;
        *denominator = interval.stepwise.min.denominator;
    }
    return 0;
}

/* VIDIOC_S_FMT for single-planar capture, progressive: in, the wanted format; out, what the driver set. */
static inline int carillon_v4l2_set_format(int fd, uint32_t *pixel_format, uint32_t *width, uint32_t *height,
                                           uint32_t *bytes_per_line, uint32_t *size_image) {
    struct v4l2_format format;
    memset(&format, 0, sizeof format);
    format.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    format.fmt.pix.pixelformat = *pixel_format;
    format.fmt.pix.width = *width;
    format.fmt.pix.height = *height;
    format.fmt.pix.field = V4L2_FIELD_NONE;
    int status = carillon_v4l2_ioctl(fd, VIDIOC_S_FMT, &format);
    if (status != 0) return status;
    *pixel_format = format.fmt.pix.pixelformat;
    *width = format.fmt.pix.width;
    *height = format.fmt.pix.height;
    *bytes_per_line = format.fmt.pix.bytesperline;
    *size_image = format.fmt.pix.sizeimage;
    return 0;
}

/* VIDIOC_S_PARM: asks for `fps` frames a second; out, the interval the driver chose. */
static inline int carillon_v4l2_set_frame_rate(int fd, uint32_t fps, uint32_t *numerator, uint32_t *denominator) {
    struct v4l2_streamparm parameters;
    memset(&parameters, 0, sizeof parameters);
    parameters.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    parameters.parm.capture.timeperframe.numerator = 1;
    parameters.parm.capture.timeperframe.denominator = fps;
    int status = carillon_v4l2_ioctl(fd, VIDIOC_S_PARM, &parameters);
    if (status != 0) return status;
    *numerator = parameters.parm.capture.timeperframe.numerator;
    *denominator = parameters.parm.capture.timeperframe.denominator;
    return 0;
}

/* VIDIOC_REQBUFS with memory-mapped buffers: in, how many are wanted (0 frees them); out, how many were granted. */
static inline int carillon_v4l2_request_buffers(int fd, uint32_t *count) {
    struct v4l2_requestbuffers request;
    memset(&request, 0, sizeof request);
    request.count = *count;
    request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    request.memory = V4L2_MEMORY_MMAP;
    int status = carillon_v4l2_ioctl(fd, VIDIOC_REQBUFS, &request);
    if (status == 0) *count = request.count;
    return status;
}

/* VIDIOC_QUERYBUF: where buffer `index` is to be mapped (the mmap offset) and its length in bytes. */
static inline int carillon_v4l2_query_buffer(int fd, uint32_t index, uint32_t *offset, uint32_t *length) {
    struct v4l2_buffer buffer;
    memset(&buffer, 0, sizeof buffer);
    buffer.index = index;
    buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    buffer.memory = V4L2_MEMORY_MMAP;
    int status = carillon_v4l2_ioctl(fd, VIDIOC_QUERYBUF, &buffer);
    if (status != 0) return status;
    *offset = buffer.m.offset;
    *length = buffer.length;
    return 0;
}

/* VIDIOC_QBUF: hands buffer `index` to the driver to fill. */
static inline int carillon_v4l2_queue_buffer(int fd, uint32_t index) {
    struct v4l2_buffer buffer;
    memset(&buffer, 0, sizeof buffer);
    buffer.index = index;
    buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    buffer.memory = V4L2_MEMORY_MMAP;
    return carillon_v4l2_ioctl(fd, VIDIOC_QBUF, &buffer);
}

/* VIDIOC_DQBUF: takes back a filled buffer (EAGAIN on a non-blocking descriptor when none is ready); `corrupt` is 1
 * when the driver flagged the data (V4L2_BUF_FLAG_ERROR). */
static inline int carillon_v4l2_dequeue_buffer(int fd, uint32_t *index, uint32_t *bytes_used, int *corrupt) {
    struct v4l2_buffer buffer;
    memset(&buffer, 0, sizeof buffer);
    buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    buffer.memory = V4L2_MEMORY_MMAP;
    int status = carillon_v4l2_ioctl(fd, VIDIOC_DQBUF, &buffer);
    if (status != 0) return status;
    *index = buffer.index;
    *bytes_used = buffer.bytesused;
    *corrupt = (buffer.flags & V4L2_BUF_FLAG_ERROR) ? 1 : 0;
    return 0;
}

/* VIDIOC_STREAMON (on != 0) or VIDIOC_STREAMOFF (which also takes back every queued buffer). */
static inline int carillon_v4l2_stream(int fd, int on) {
    int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    return carillon_v4l2_ioctl(fd, on ? VIDIOC_STREAMON : VIDIOC_STREAMOFF, &type);
}

#endif
