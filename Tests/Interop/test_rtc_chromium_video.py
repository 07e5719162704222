"""Headless Chromium and `carillon peer --video` connect in both roles with audio and a bundled VP8 m-line, and each
decodes the other's video: Chromium sends a canvas pattern (a cyan area and a frame counter over moving content) that
Carillon decodes and reads back; Carillon sends its VideoTestPattern (magenta) that Chromium decodes, draws into a
canvas and reads back. Each session runs in a new network namespace with only loopback (see chromium_session.py)."""
import json
import os
import subprocess
import sys

import pytest

from chromium_video_page import CARILLON_COLOR, CHROMIUM_COLOR, DECODED_TARGET, FPS, HEIGHT, PALETTE_RGB, WIDTH

HERE = os.path.dirname(os.path.abspath(__file__))


def run_session(carillon_role, drop_every):
    env = dict(os.environ, PYTHONPATH=HERE)
    completed = subprocess.run(
        ["unshare", "--net", "--", sys.executable, os.path.join(HERE, "chromium_session.py"), carillon_role, "video",
         "--drop-every", str(drop_every)],
        capture_output=True, text=True, timeout=200, env=env)
    assert completed.returncode == 0, completed.stderr
    outcome = json.loads(completed.stdout.strip().splitlines()[-1])
    print(carillon_role, drop_every, json.dumps(outcome, sort_keys=True))
    return outcome


def assert_color(rgb, name, outcome):
    # A flat area through VP8 and two colour conversions stays within a few levels of what was painted.
    assert all(abs(measured - painted) <= 24 for measured, painted in zip(rgb, PALETTE_RGB[name])), (rgb, name, outcome)


# With drop_every, Carillon leaves out every 20th VP8 packet it sends and discards every 20th it receives (before
# anything sees it, transport-wide feedback included): Chromium must NACK and get Carillon's RTX retransmissions, and
# Carillon must NACK and get Chromium's, with no picture lost on either side.
@pytest.mark.parametrize("carillon_role,drop_every", [("answer", 0), ("offer", 0), ("answer", 20)])
def test_chromium_and_carillon_exchange_vp8(carillon_role, drop_every):
    outcome = run_session(carillon_role, drop_every)
    carillon, chromium = outcome["carillon"], outcome["chromium"]
    assert "error" not in chromium and "error" not in carillon, outcome
    assert chromium["connectionState"] == "connected" and carillon["connected"], outcome
    # The audio m-line still works beside the video one.
    assert carillon["rtpSent"] == 150 and chromium["inbound"] >= 135, outcome

    sent, received = carillon["video"]["sent"], carillon["video"]["received"]
    inbound, outbound = chromium["video"]["inbound"], chromium["video"]["outbound"]

    # Carillon -> Chromium: Chromium decoded Carillon's pattern at its size, in its colour, with moving counters.
    assert sent["keyFrames"] >= 1 and sent["frames"] >= 10 * FPS, sent
    assert inbound is not None and inbound["framesDecoded"] >= DECODED_TARGET, outcome
    assert inbound["keyFramesDecoded"] >= 1, inbound
    assert (inbound["frameWidth"], inbound["frameHeight"]) == (WIDTH, HEIGHT), inbound
    first, second = chromium["video"]["pictures"]
    assert first is not None and second is not None, chromium["video"]
    assert (first["width"], first["height"]) == (WIDTH, HEIGHT), first
    assert first["counter"] is not None and second["counter"] is not None, chromium["video"]
    # The counter is Carillon's picture number, which follows its clock: between the two readings (about two
    # seconds) it moved on by the elapsed time at 15 fps, give or take what the display pipeline delays.
    elapsed = (second["at"] - first["at"]) / 1000
    assert abs(second["counter"] - first["counter"] - elapsed * FPS) <= 8, (elapsed, chromium["video"])
    assert_color(first["color"], CARILLON_COLOR, outcome)
    assert_color(second["color"], CARILLON_COLOR, outcome)
    assert chromium["video"]["decodedFps"] >= FPS - 3, chromium["video"]

    # Chromium -> Carillon: Carillon decoded Chromium's canvas at its size, read its colour and counters in nearly
    # every picture, and the counters only went forward.
    assert outbound is not None and outbound["framesSent"] > 0, outcome
    assert received["keyFramesDecoded"] >= 1 and received["decodeErrors"] == 0, received
    assert received["framesDecoded"] >= 10 * FPS, received
    assert (received["width"], received["height"]) == (WIDTH, HEIGHT), received
    assert received["colors"].get(CHROMIUM_COLOR, 0) >= 0.95 * received["framesDecoded"], received
    assert received["countersRead"] >= 0.95 * received["framesDecoded"], received
    assert received["counterRegressions"] == 0, received
    distinct = received["countersRead"] - received["counterRepeats"]
    assert received["lastCounter"] - received["firstCounter"] >= distinct - 1, received
    assert received["fps"] >= FPS - 3, received

    if drop_every:
        # Every packet Carillon discarded that a later arrival revealed was NACKed (unless still within the NACK delay
        # when the run ended) and came back over RTX (unless still awaited): counted per sequence number, because a
        # count comparison fails whenever the run ends just after a discard. No frame skipped, no key frame asked for.
        assert received["packetsDropped"] >= 5 and received["nacksSent"] >= 1, received
        assert received["dropsNeverNacked"] == 0 and received["dropsGivenUp"] == 0, received
        assert received["framesSkipped"] == 0 and received["keyFrameRequests"] == 0, received
        # Chromium NACKed what Carillon left out and Carillon answered over RTX (all but at most the last one, which
        # may still be on its way when Carillon reports); Chromium had retransmitted for Carillon by its report.
        assert sent["packetsDropped"] >= 20 and sent["retransmissions"] >= sent["packetsDropped"] - 1, sent
        assert inbound["nackCount"] >= 1 and outbound["retransmittedPacketsSent"] >= 1, chromium["video"]
    else:
        assert received["packetsDropped"] == 0 and sent["packetsDropped"] == 0, carillon["video"]
