"""Simulcast between Chromium and the SDK through a Carillon meeting (chromium_meeting.py, in a new network namespace
with only loopback): Chromium sends its canvas camera as three rid encodings (low/mid/hi at ÷4/÷2/÷1 of 960x540) and
`carillon join` bots decode what the SFU forwards of it; a `carillon join` bot sends its pattern with the SDK's
simulcast (low + hi for three participants, announced per layer in SUBSCRIBE and listed in INDEX with sizes), and
Chromium decodes the layer it is forwarded."""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def test_chromium_and_the_sdk_exchange_simulcast_through_a_meeting():
    env = dict(os.environ, PYTHONPATH=HERE)
    completed = subprocess.run(["unshare", "--net", "--", sys.executable, os.path.join(HERE, "chromium_meeting.py")],
                               capture_output=True, text=True, timeout=240, env=env)
    assert completed.returncode == 0, completed.stderr[-4000:]
    outcome = json.loads(completed.stdout.strip().splitlines()[-1])
    printable = {key: value for key, value in outcome.items() if key != "chromium"}
    printable["chromium"] = {key: value for key, value in outcome.get("chromium", {}).items() if key != "localOffer"}
    print(json.dumps(printable, sort_keys=True))
    chromium = outcome["chromium"]
    assert "error" not in chromium and chromium["connectionState"] == "connected", printable
    # Chromium offered rid simulcast and the server took its three encodings.
    offer = chromium["localOffer"]
    assert "a=simulcast:send low;mid;hi" in offer and all(f"a=rid:{rid} send" in offer for rid in ("low", "mid", "hi"))
    assert len(outcome["subscribeAck"]["allocations"]) == 3, printable

    # The SDK sender announced low + hi (mid off) with their sizes: INDEX lists exactly those two.
    assert [(s["kbps"], s["width"], s["height"]) for s in outcome["sdkIndex"]] == [(300, 160, 90), (1200, 640, 360)], printable

    # Chromium -> Carillon: both bots decoded Chromium's camera at one of its layers' sizes.
    sizes = {(960 // scale, 540 // scale) for scale in (4, 2, 1)}
    for name in ("sdk-sender", "sdk-viewer"):
        bot = outcome["bots"][name]
        assert bot["exit"] == 0, bot
        stats = bot["videoStats"].get("chromium")
        assert stats and stats["framesDecoded"] > 0, (name, bot)
        assert (stats["width"], stats["height"]) in sizes, (name, stats)
    layers = {layer["rid"]: layer for layer in chromium["layers"]}
    assert set(layers) == {"low", "mid", "hi"}, chromium["layers"]
    assert layers["low"]["framesSent"] > 0, chromium["layers"]

    # Carillon (SDK simulcast) -> Chromium: decoded frames, at the size of one of the SDK's layers.
    inbound = chromium["inbound"]
    assert inbound and inbound["framesDecoded"] > 0, printable
    assert (inbound["frameWidth"], inbound["frameHeight"]) in {(160, 90), (640, 360)}, inbound
    # The viewer bot also decodes the SDK sender.
    sender = outcome["bots"]["sdk-viewer"]["videoStats"].get("sdk-sender")
    assert sender and sender["framesDecoded"] > 0 and (sender["width"], sender["height"]) in {(160, 90), (640, 360)}, sender
