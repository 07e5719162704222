"""Headless Chromium and a Carillon endpoint connect in both roles and exchange SRTP both ways; Chromium's getStats
shows the packets. Each session runs in a new network namespace with only loopback, so traffic cannot leave it."""
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.mark.parametrize("carillon_role", ["answer", "offer"])
def test_chromium_and_carillon_exchange_srtp(carillon_role):
    env = dict(os.environ, PYTHONPATH=HERE)
    completed = subprocess.run(
        ["unshare", "--net", "--", sys.executable, os.path.join(HERE, "chromium_session.py"), carillon_role],
        capture_output=True, text=True, timeout=150, env=env)
    assert completed.returncode == 0, completed.stderr
    outcome = json.loads(completed.stdout.strip().splitlines()[-1])
    carillon, chromium = outcome["carillon"], outcome["chromium"]
    assert "error" not in chromium, outcome
    assert chromium["connectionState"] == "connected", outcome
    assert chromium["dtlsState"] == "connected", outcome
    assert carillon["connected"], outcome
    assert carillon["rtpSent"] == 150, outcome
    # Chromium decrypted and counted what Carillon sent; Carillon decrypted what Chromium sent.
    assert chromium["inbound"] >= 135, outcome
    assert carillon["rtpReceived"] >= 100, outcome
    assert chromium["outbound"] >= 100, outcome
