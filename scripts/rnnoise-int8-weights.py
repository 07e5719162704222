#!/usr/bin/env python3
"""Writes the int8 weights blob that makes the pinned librnnoise.so run its int8 matrix path.

The pyrnnoise wheel's librnnoise.so carries every GRU and conv2 matrix twice, as int8 and as float; when a layer has
float weights RNNoise multiplies with them, and those floats (10.6 MB) do not fit this machine's caches, so a 10 ms
block costs 1.1-1.6 ms. This script reads the model the library has built in (its exported `rnnoise_arrays` list),
leaves out each float matrix that has an int8 twin, and writes the rest in RNNoise's weights-blob format (what
`rnnoise_model_from_buffer` and `rnnoise_model_from_file` read: per array a 64-byte header "DNNw", version 0, type,
size, padded size, 44-byte name, then the data padded to 64 bytes). Loaded with it, RNNoise uses its int8 path.

Usage: rnnoise-int8-weights.py LIBRARY OUTPUT
"""
import ctypes
import struct
import sys

HEADER = struct.Struct("<4siiii44s")
BLOCK = 64


class WeightArray(ctypes.Structure):
    """RNNoise's `WeightArray`: name, type, size in bytes, data."""
    _fields_ = [("name", ctypes.c_char_p), ("type", ctypes.c_int), ("size", ctypes.c_int), ("data", ctypes.c_void_p)]


def main(library_path, output_path):
    ctypes.CDLL("libm.so.6", mode=ctypes.RTLD_GLOBAL)  # the wheel's library uses libm without naming it
    library = ctypes.CDLL(library_path)
    entry = ctypes.cast(library.rnnoise_arrays, ctypes.POINTER(WeightArray))
    arrays = []
    while entry[len(arrays)].name is not None:
        array = entry[len(arrays)]
        arrays.append((array.name.decode(), array.type, ctypes.string_at(array.data, array.size)))
    names = {name for name, _, _ in arrays}
    blob = bytearray()
    dropped = 0
    for name, kind, data in arrays:
        if name.endswith("_weights_float") and name[: -len("float")] + "int8" in names:
            dropped += len(data)
            continue
        padded = (len(data) + BLOCK - 1) // BLOCK * BLOCK
        blob += HEADER.pack(b"DNNw", 0, kind, len(data), padded, name.encode())
        blob += data + bytes(padded - len(data))
    if dropped == 0:
        sys.exit(f"{library_path}: no float matrix with an int8 twin; nothing to gain")
    with open(output_path, "wb") as output:
        output.write(blob)
    print(f"wrote {output_path}: {len(blob)} bytes, {dropped} bytes of float matrices left out")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: rnnoise-int8-weights.py LIBRARY OUTPUT")
    main(sys.argv[1], sys.argv[2])
