"""The side-by-side benchmark's bots, tested on both servers: a Carillon bot joins a Janus AudioBridge room (Janus's
HTTP API) or a Carillon meeting (Chime signaling) inside a network namespace the test creates (through `carillon
bench janus-probe`) and decodes the talker's tone from the mix."""
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


@pytest.mark.parametrize("server,frequency", [("janus", 550), ("janus", 770), ("carillon", 550), ("carillon", 770)])
def test_bot_hears_the_talker_through_the_server(server, frequency):
    reason = _netns_available()
    if reason:
        pytest.skip(reason)
    if server == "janus" and not os.path.exists(JANUS):
        pytest.skip("Janus is not installed (make apt-deps installs the Debian package janus)")
    binary = os.environ.get("CARILLON_BIN", ".build/debug/carillon")
    result = subprocess.run([binary, "bench", "janus-probe", "--server", server, "--frequency", str(frequency),
                             "--seconds", "3"],
                            capture_output=True, text=True, timeout=50)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    match = re.search(r"listener received (\d+) packets; dominant frequency (\w+) Hz", output)
    assert match, output
    # About 4 s of the mix at 50 packets/s; the decoded audio carries the talker's tone, not another candidate.
    assert int(match.group(1)) >= 100, output
    assert match.group(2) == str(frequency), output
    # Nothing is left behind: the namespace is gone.
    namespaces = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    assert "carillon-bench-" not in namespaces
