#!/usr/bin/env bash
# Installs RNNoise for Voice Focus: the self-contained librnnoise.so (model built in, needs only libc) from the PyPI
# pyrnnoise wheel, pinned by version and hash, into .deps/rnnoise/ where the SDK finds it (RNNoiseLibrary's search
# order), and next to it rnnoise-int8.weights: the library's own model without the float copies of its int8
# matrices, which makes RNNoise run its int8 path (3x faster here; scripts/rnnoise-int8-weights.py says why).
# Usage: scripts/install-rnnoise.sh PIP (the pip of the project's virtual environment; its python writes the weights).
set -euo pipefail
PIP=${1:?usage: install-rnnoise.sh PIP}
PYTHON=$(dirname "$PIP")/python
VERSION=0.4.5
SHA256=c095114532f9fa21f621084c879d72c93aaa0c9dbe38b662a63577bada2c214e
WEIGHTS_SHA256=1ad07b428be34c74d9678d05b3c387b73ccf0e6203a1a5f9ce58689b30b303c8
INSTALLED="$VERSION int8-weights"
DESTINATION=.deps/rnnoise
[ -f "$DESTINATION/librnnoise.so" ] && [ "$(cat "$DESTINATION/VERSION" 2>/dev/null)" = "$INSTALLED" ] && exit 0
if [ "$(uname -m)" != x86_64 ]; then
	echo "RNNoise: the pinned pyrnnoise wheel is x86_64 only; Voice Focus stays unavailable on $(uname -m)" >&2
	exit 0
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
echo "pyrnnoise==$VERSION --hash=sha256:$SHA256" > "$WORK/requirements.txt"
"$PIP" download -q --disable-pip-version-check --no-deps --only-binary=:all: --require-hashes \
	-r "$WORK/requirements.txt" -d "$WORK"
python3 -m zipfile -e "$WORK"/pyrnnoise-$VERSION-*.whl "$WORK/wheel"
mkdir -p "$DESTINATION"
install -m 0644 "$WORK/wheel/pyrnnoise-$VERSION.data/purelib/pyrnnoise/librnnoise.so" "$DESTINATION/librnnoise.so"
install -m 0644 "$WORK/wheel/pyrnnoise-$VERSION.dist-info/licenses/LICENSE" "$DESTINATION/LICENSE"
"$PYTHON" scripts/rnnoise-int8-weights.py "$DESTINATION/librnnoise.so" "$WORK/rnnoise-int8.weights"
echo "$WEIGHTS_SHA256  $WORK/rnnoise-int8.weights" | sha256sum --check --quiet
install -m 0644 "$WORK/rnnoise-int8.weights" "$DESTINATION/rnnoise-int8.weights"
echo "$INSTALLED" > "$DESTINATION/VERSION"
echo "installed RNNoise (pyrnnoise $VERSION, int8 weights) in $DESTINATION"
