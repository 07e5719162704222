# Carillon: every set-up step lives here, so a fresh Debian 12 machine with Swift 6.3 needs nothing else.
SHELL := /bin/bash
# What building and running Carillon needs (the demo installs only these), and what the tests add: peers and tools
# the interop tests drive (Chromium, Firefox ESR, Janus, nginx, Xvfb, iproute2, openssl), protoc for the generated-code check, Node.js
# to run the join page's protobuf codec against protoc's in a test,
# ffmpeg's ffprobe as the oracle that decodes the WebM files Carillon writes (a test tool only, never the product's),
# and PostgreSQL, whose server the store tests start privately (scripts/test-postgresql.sh).
BUILD_PACKAGES := libssl-dev libsrtp2-dev libopus-dev libvpx-dev libyuv-dev linux-libc-dev libasound2-dev libwebrtc-audio-processing-dev libsqlite3-dev pkg-config libxcb1-dev libxcb-shm0-dev
TEST_PACKAGES := protobuf-compiler chromium firefox-esr nodejs iproute2 nginx-light openssl xvfb janus ffmpeg postgresql
VENV := .venv
PYTHON_PACKAGES := boto3 pytest requests aiortc==1.16.0 websockets protobuf prometheus_client pystoi==0.4.1
SWIFT_BUILD_FLAGS ?=

.PHONY: all deps apt-deps test-apt-deps python-deps rnnoise build demo example-bot test test-swift test-interop check-generated fuzz clean

all: build

## Installs the Debian packages that are missing (needs root, or sudo when available), showing each as it is set up.
## apt-deps: what building and running needs; test-apt-deps: that and what the tests need.
define install_missing
	@missing=$$(for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		set -o pipefail; \
		echo "installing $$(echo $$missing | wc -w) Debian packages and what they need (a few minutes on a fresh machine): "$$missing; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && \
		$$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing 2>&1 \
			| grep --line-buffered -E '^(Setting up|E:)' | sed -u 's/^/  /'; \
	fi
endef

apt-deps:
	$(call install_missing,$(BUILD_PACKAGES))

test-apt-deps:
	$(call install_missing,$(BUILD_PACKAGES) $(TEST_PACKAGES))

## Creates the project-local Python environment for the interop tests.
python-deps:
	@if ! $(VENV)/bin/python -c "import boto3, pytest, requests, aiortc, websockets, google.protobuf, prometheus_client, pystoi" >/dev/null 2>&1; then \
		echo "creating $(VENV) with $(PYTHON_PACKAGES)"; \
		python3 -m venv $(VENV) || { SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
			$$SUDO apt-get install -y -qq python3-venv >/dev/null && python3 -m venv $(VENV); }; \
		$(VENV)/bin/pip install -q --disable-pip-version-check $(PYTHON_PACKAGES); \
	fi

## Installs RNNoise for Voice Focus (pinned pyrnnoise wheel from PyPI, hash-checked) into .deps/rnnoise/, where the SDK
## loads it at run time.
rnnoise: python-deps
	bash scripts/install-rnnoise.sh $(VENV)/bin/pip

deps: test-apt-deps python-deps rnnoise

build: apt-deps
	swift build $(SWIFT_BUILD_FLAGS)

## Builds and runs the demo: an embedded server, a meeting made through the REST API, headless attendees.
demo: apt-deps
	swift build $(SWIFT_BUILD_FLAGS) --product carillon
	$$(swift build $(SWIFT_BUILD_FLAGS) --show-bin-path)/carillon demo

check-generated: test-apt-deps
	bash scripts/check-generated.sh

## Unit tests run in parallel; then the whole-meeting simulations (virtual time, CPU-bound); then the end-to-end
## tests (real sockets, real time) one at a time, so their timing never competes with CPU-bound tests.
test-swift: test-apt-deps rnnoise
	swift build $(SWIFT_BUILD_FLAGS) --build-tests
	swift test $(SWIFT_BUILD_FLAGS) --skip-build --skip EndToEndTests --skip MeetingSimulationTests
	swift test $(SWIFT_BUILD_FLAGS) --skip-build --filter MeetingSimulationTests
	swift test $(SWIFT_BUILD_FLAGS) --skip-build --filter EndToEndTests --no-parallel

## Builds Examples/Bot: a package of its own that depends on Carillon by path, as an app outside this repository would.
## SwiftPM plans a path dependency's files once and does not notice a Carillon source file added, moved or removed (the
## build then fails with "missing inputs" or compiles without the new file); so when the list of Carillon's source
## files changed since the bot's last build, its cached plan is removed and SwiftPM plans again (about 20 s).
BOT_BUILD := Examples/Bot/.build
example-bot: apt-deps
	@sources=$$(find Sources -type f | sort | md5sum); \
	if [ "$$sources" != "$$(cat $(BOT_BUILD)/carillon-sources 2>/dev/null)" ]; then \
		rm -f $(BOT_BUILD)/*.yaml $(BOT_BUILD)/*/*/description.json; \
	fi
	swift build $(SWIFT_BUILD_FLAGS) --package-path Examples/Bot
	@find Sources -type f | sort | md5sum > $(BOT_BUILD)/carillon-sources

test-interop: deps example-bot
	swift build $(SWIFT_BUILD_FLAGS) --product carillon
	CARILLON_BIN=$$(swift build $(SWIFT_BUILD_FLAGS) --show-bin-path)/carillon \
		CARILLON_EXAMPLE_BOT=$$(swift build $(SWIFT_BUILD_FLAGS) --package-path Examples/Bot --show-bin-path)/RosterBot \
		$(VENV)/bin/python -m pytest -q Tests/Interop

## Every test: generated-code freshness, Swift unit and end-to-end tests, interop tests.
test: deps check-generated test-swift test-interop

## Fuzzes the STUN, RTP, RTCP, SDP and VP8 payload parsers and SRTP unprotect with libFuzzer (a separate release build
## in .build-fuzz), each for FUZZ_RUNS inputs from a fixed seed, starting from the committed seed corpus in Fuzz/corpus.
FUZZ_RUNS ?= 1000000
FUZZ_TARGETS ?= stun rtp rtcp sdp vp8 srtp
fuzz: apt-deps
	swift build -c release --product carillon-fuzz --scratch-path .build-fuzz \
		-Xswiftc -sanitize=fuzzer -Xswiftc -DCARILLON_FUZZING -Xswiftc -parse-as-library
	@for target in $(FUZZ_TARGETS); do \
		mkdir -p .build-fuzz/corpus/$$target; \
		echo "fuzzing $$target: $(FUZZ_RUNS) runs"; \
		SWIFT_BACKTRACE=enable=no CARILLON_FUZZ_TARGET=$$target .build-fuzz/release/carillon-fuzz -runs=$(FUZZ_RUNS) -seed=1 -max_len=8192 \
			-print_final_stats=1 .build-fuzz/corpus/$$target Fuzz/corpus/$$target 2>&1 | grep -E "^(#[0-9]+ *DONE|stat::number_of_executed_units|==[0-9]+==|SUMMARY)" ; \
		test $${PIPESTATUS[0]} -eq 0 || exit 1; \
	done

clean:
	rm -rf .build .build-* Examples/Bot/.build $(VENV)
