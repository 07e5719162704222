#!/usr/bin/env bash
# Regenerates Tests/CarillonTests/MJPEGFixtures.swift (needs gcc and libjpeg62-turbo-dev; the tests themselves do not).
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gcc -O1 -Wall -o "$work/make-mjpeg-fixtures" scripts/make-mjpeg-fixtures.c -ljpeg
"$work/make-mjpeg-fixtures" > Tests/CarillonTests/MJPEGFixtures.swift
