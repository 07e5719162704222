#!/usr/bin/env bash
# Fails when the committed generated signaling code differs from what Protos/ generates now.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo_root"

committed="Sources/CarillonProtocol/Signaling/SignalingProtocol.pb.swift"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

bash scripts/generate-protos.sh "$tmp" 2>"$tmp/generate.log" || {
    cat "$tmp/generate.log" >&2
    echo "generating the signaling code failed" >&2
    exit 1
}

if [ ! -f "$committed" ] || ! diff -u "$committed" "$tmp/SignalingProtocol.pb.swift" >"$tmp/diff.txt"; then
    head -n 40 "$tmp/diff.txt" >&2 || true
    echo "generated signaling code is stale: run scripts/generate-protos.sh" >&2
    exit 1
fi
echo "generated signaling code is up to date ($committed)"
