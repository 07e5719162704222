#!/usr/bin/env bash
# Regenerates the Swift code for Protos/*.proto with Debian's protoc and the protoc-gen-swift of the
# swift-protobuf dependency (never the SwiftPM build plugin: it compiles protoc from C++ sources).
#
# Usage: scripts/generate-protos.sh [OUTPUT_DIR]
#   OUTPUT_DIR defaults to Sources/CarillonProtocol/Signaling (where the generated file is committed).
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ $# -ge 1 ]; then
    mkdir -p "$1"
    out_dir="$(cd "$1" && pwd)"
else
    out_dir="$repo_root/Sources/CarillonProtocol/Signaling"
fi
cd "$repo_root"

if ! command -v protoc >/dev/null 2>&1; then
    echo "protoc not found: installing Debian's protobuf-compiler" >&2
    if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq protobuf-compiler >/dev/null
fi

scratch=".build-protoc"
swift build -c release --product protoc-gen-swift --scratch-path "$scratch" >&2
plugin="$(swift build -c release --product protoc-gen-swift --scratch-path "$scratch" --show-bin-path)/protoc-gen-swift"
if [ ! -x "$plugin" ]; then
    echo "protoc-gen-swift was not built at $plugin" >&2
    exit 1
fi

protoc \
    --plugin="protoc-gen-swift=$plugin" \
    --proto_path=Protos \
    --swift_opt=Visibility=Public \
    --swift_out="$out_dir" \
    Protos/SignalingProtocol.proto

echo "generated $out_dir/SignalingProtocol.pb.swift" >&2
