"""The video side-by-side benchmark's bots, tested on both servers: a Carillon bot publishes the pre-encoded 360p VP8
loop into a Janus VideoRoom (Janus's HTTP API) or a Carillon meeting (Chime signaling) inside a network namespace the
test creates (through `carillon bench janus-video-probe`), another bot subscribes to it and receives its frames."""
import os
import re
import shutil
import subprocess
import uuid

import pytest

JANUS = "/usr/bin/janus"


def _netns_available():
    if os.geteuid() != 0:
        return "not root: the Janus test creates a network namespace (ip netns add), which needs root"
    if shutil.which("ip") is None:
        return "iproute2 (ip) is not installed"
    name = "carillon-probe-" + uuid.uuid4().hex[:8]
    created = subprocess.run(["ip", "netns", "add", name], capture_output=True, text=True)
    if created.returncode != 0:
        return "network namespaces are unavailable here: " + created.stderr.strip()
    subprocess.run(["ip", "netns", "del", name], capture_output=True)
    return None


@pytest.mark.parametrize("server", ["janus", "carillon"])
def test_bot_receives_a_publishers_frames_through_the_server(server):
    reason = _netns_available()
    if reason:
        pytest.skip(reason)
    if server == "janus" and not os.path.exists(JANUS):
        pytest.skip("Janus is not installed (make apt-deps installs the Debian package janus)")
    binary = os.environ.get("CARILLON_BIN", ".build/debug/carillon")
    result = subprocess.run([binary, "bench", "janus-video-probe", "--server", server, "--seconds", "3"],
                            capture_output=True, text=True, timeout=60)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    match = re.search(r"subscriber received (\d+) frames \((\d+) packets\) on (\d+) streams; "
                      r"publisher sent (\d+) frames \((\d+) packets\) meanwhile", output)
    assert match, output
    frames, packets, streams, sent_frames, sent_packets = (int(group) for group in match.groups())
    # One forwarded stream; 3 s at 15 fps is 45 frames sent while the subscriber counted.
    assert streams == 1, output
    assert sent_frames >= 40, output
    # Counted from the first frame received: everything sent in the window arrives, give or take the frames in
    # flight at either end of it.
    assert frames >= sent_frames - 2, output
    assert packets >= sent_packets - 10, output
    namespaces = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    assert "carillon-bench-" not in namespaces
