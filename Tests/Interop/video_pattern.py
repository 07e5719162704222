"""Carillon's VideoTestPattern layout in Python, for aiortc peers: draws pictures whose frame counter and colour a
Carillon receiver reads back (VideoPatternReading), and reads Carillon's pictures the same way.

The layout, in fractions of the picture: a 20 x 10 grid; the top two rows, columns 0-11, hold the 16-bit counter and
its CRC-8 (polynomial 0x07, initial 0xFF) as 24 black or white cells, most significant bit first; columns 12-19 of
those rows are a flat area of the sender's colour; the rest is moving content. Planes are I420, BT.601 studio range.
"""
import fractions

import av

BLACK, WHITE = 16, 235


def crc8(counter):
    crc = 0xFF
    for byte in (counter >> 8, counter & 0xFF):
        crc ^= byte
        for _ in range(8):
            crc = ((crc << 1) ^ 0x07) & 0xFF if crc & 0x80 else (crc << 1) & 0xFF
    return crc


def cell_left(column, width):
    return column * width // 20


def cell_top(row, height):
    return row * height // 10


def picture(width, height, frame, yuv, fps):
    """The pattern's picture number `frame` as an av.VideoFrame stamped on the 90 kHz clock; moving content is a
    light bar sliding across a grey field."""
    counter = frame & 0xFFFF
    bits = counter << 8 | crc8(counter)
    luma = bytearray([96]) * (width * height)
    top = cell_top(2, height)
    for row in range(2):
        for column in range(20):
            value = yuv[0]
            if column < 12:
                value = WHITE if (bits >> (23 - (row * 12 + column))) & 1 else BLACK
            left, right = cell_left(column, width), cell_left(column + 1, width)
            for y in range(cell_top(row, height), cell_top(row + 1, height)):
                luma[y * width + left:y * width + right] = bytes([value]) * (right - left)
    bar, bar_width = (frame * 7) % width, max(1, width // 12)
    for y in range(top, height):
        end = min(width, bar + bar_width)
        luma[y * width + bar:y * width + end] = bytes([208]) * (end - bar)
    chroma_width, chroma_height = (width + 1) // 2, (height + 1) // 2
    colour_left = cell_left(12, width)
    u, v = bytearray([128]) * (chroma_width * chroma_height), bytearray([128]) * (chroma_width * chroma_height)
    for cy in range((top + 1) // 2):
        for cx in range(chroma_width):
            if 2 * cx + 1 >= colour_left:
                u[cy * chroma_width + cx], v[cy * chroma_width + cx] = yuv[1], yuv[2]
    image = av.VideoFrame(width=width, height=height, format="yuv420p")
    for plane, data, plane_width in ((image.planes[0], luma, width), (image.planes[1], u, chroma_width),
                                     (image.planes[2], v, chroma_width)):
        plane.update(pad_rows(data, plane_width, plane.line_size))
    image.pts = frame * 90_000 // fps
    image.time_base = fractions.Fraction(1, 90_000)
    return image


def pad_rows(data, width, stride):
    if stride == width:
        return bytes(data)
    rows = len(data) // width
    return b"".join(bytes(data[r * width:(r + 1) * width]) + bytes(stride - width) for r in range(rows))


def mean(data, stride, xs, ys):
    total = sum(sum(data[y * stride + xs[0]:y * stride + xs[1]]) for y in range(ys[0], ys[1]))
    return total / ((xs[1] - xs[0]) * (ys[1] - ys[0]))


def read(image):
    """(counter or None, (mean Y, U, V) of the colour area) of a decoded av.VideoFrame, with VideoPatternReading's
    thresholds: a cell above 160 is a one, below 96 a zero, anything else makes the counter unreadable."""
    image = image if image.format.name == "yuv420p" else image.reformat(format="yuv420p")
    width, height = image.width, image.height
    (luma, u, v), strides = (bytes(plane) for plane in image.planes), [plane.line_size for plane in image.planes]
    bits, clear = 0, True
    for index in range(24):
        row, column = divmod(index, 12)
        left, right = cell_left(column, width), cell_left(column + 1, width)
        top, bottom = cell_top(row, height), cell_top(row + 1, height)
        inset_x, inset_y = (right - left) // 4, (bottom - top) // 4
        level = mean(luma, strides[0], (left + inset_x, right - inset_x), (top + inset_y, bottom - inset_y))
        if level > 160:
            bits = bits << 1 | 1
        elif level < 96:
            bits <<= 1
        else:
            clear = False
            break
    counter = bits >> 8 if clear and crc8(bits >> 8) == bits & 0xFF else None
    left, right = cell_left(12, width) + max(1, width // 80), width - max(1, width // 80)
    top, bottom = max(1, height // 40), cell_top(2, height) - max(1, height // 40)
    chroma_xs, chroma_ys = ((left + 1) // 2, right // 2), ((top + 1) // 2, bottom // 2)
    colour = (mean(luma, strides[0], (left, right), (top, bottom)), mean(u, strides[1], chroma_xs, chroma_ys),
              mean(v, strides[2], chroma_xs, chroma_ys))
    return counter, colour


def studio_yuv(rgb):
    """An RGB colour in BT.601 studio range, with the integer formula of VideoTestPattern.Color.yuv."""
    r, g, b = rgb
    return ((66 * r + 129 * g + 25 * b + 0x1080) >> 8, (112 * b - 74 * g - 38 * r + 0x8080) >> 8,
            (112 * r - 94 * g - 18 * b + 0x8080) >> 8)
