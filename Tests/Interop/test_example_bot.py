"""Examples/Bot, a package that depends on Carillon by path (as a server-side Swift developer's own package would),
joins a meeting beside a CLI bot and prints the roster with both, then leaves cleanly. `make test-interop` builds it
and passes its path in CARILLON_EXAMPLE_BOT."""
import os
import subprocess
import time

import pytest

from conftest import ACCESS_KEY_ID, SECRET_ACCESS_KEY

BOT = os.environ.get("CARILLON_EXAMPLE_BOT")


@pytest.mark.skipif(not BOT, reason="CARILLON_EXAMPLE_BOT is not set: run through `make test-interop`, which builds it")
def test_the_example_package_joins_and_prints_the_roster(chime, server):
    meeting_id = chime.create_meeting(ClientRequestToken=f"example-{time.monotonic_ns()}", MediaRegion="us-east-1",
                                      ExternalMeetingId="example-bot")["Meeting"]["MeetingId"]
    env = dict(os.environ, CARILLON_ACCESS_KEY_ID=ACCESS_KEY_ID, CARILLON_SECRET_ACCESS_KEY=SECRET_ACCESS_KEY)
    binary = os.environ.get("CARILLON_BIN", ".build/debug/carillon")
    alice = subprocess.Popen([binary, "join", "--endpoint", server.endpoint, "--meeting", meeting_id, "--name", "alice",
                              "--duration", "60"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    try:
        for line in alice.stdout:
            if line.startswith("in the meeting"):
                break
        result = subprocess.run([BOT, server.endpoint, meeting_id, "rosterbot", "3"], capture_output=True, text=True,
                                env=env, timeout=60)
    finally:
        alice.terminate()
        alice.wait(timeout=30)
        chime.delete_meeting(MeetingId=meeting_id)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    lines = result.stdout.splitlines()
    assert "roster: alice, rosterbot" in lines and "in the meeting" in lines and lines[-1] == "left", output
