"""Honest fallbacks of `carillon join`: no camera, no display and a refused content share each get one line that says
why, at once, and a non-zero exit where the bot cannot do what it was asked (it used to send a pattern, share
nothing after `content share started`, or print two different reasons)."""
import glob
import os
import subprocess
import time

import pytest

from conftest import ACCESS_KEY_ID, SECRET_ACCESS_KEY

BINARY = os.environ.get("CARILLON_BIN", ".build/debug/carillon")


def join(server, meeting_id, name, *args, env_overrides=None, unset=()):
    env = dict(os.environ, CARILLON_ACCESS_KEY_ID=ACCESS_KEY_ID, CARILLON_SECRET_ACCESS_KEY=SECRET_ACCESS_KEY)
    for key in unset:
        env.pop(key, None)
    env.update(env_overrides or {})
    started = time.monotonic()
    result = subprocess.run([BINARY, "join", "--endpoint", server.endpoint, "--meeting", meeting_id, "--name", name,
                             *args], capture_output=True, text=True, env=env, timeout=60)
    return result, time.monotonic() - started


def refused_at_once(result_and_time, *words):
    result, seconds = result_and_time
    output = result.stdout + result.stderr
    # Refused before joining: ArgumentParser's validation status, nothing joined.
    assert result.returncode == 64, output
    assert all(word in output for word in words), output
    assert "joining meeting" not in output, output
    assert seconds < 5, f"{seconds:.1f} s: {output}"


@pytest.fixture()
def meeting_id(chime):
    meeting = chime.create_meeting(ClientRequestToken=f"fallback-{time.monotonic_ns()}", MediaRegion="us-east-1",
                                   ExternalMeetingId="fallbacks")["Meeting"]["MeetingId"]
    yield meeting
    chime.delete_meeting(MeetingId=meeting)


@pytest.mark.skipif(glob.glob("/dev/video*"), reason="this machine has a V4L2 device")
def test_no_camera_is_said_with_the_virtual_cameras_apart(server, meeting_id):
    refused_at_once(join(server, meeting_id, "cam", "--video-in", "camera"),
                    "this machine has no camera", "Virtual cameras (camera:NAME picks one): Pattern camera (blue)",
                    "--video-in pattern")
    refused_at_once(join(server, meeting_id, "cam", "--video-in", "camera:nothing-like-this"),
                    "no camera's label contains \"nothing-like-this\"")


def test_no_display_refuses_the_share(server, meeting_id):
    refused_at_once(join(server, meeting_id, "scr", "--share", "screen", unset=["DISPLAY"]),
                    "no display: DISPLAY is not set", "screen:DISPLAY")
    refused_at_once(join(server, meeting_id, "scr", "--share", "screen:77"), "cannot open X display :77")


def test_a_third_share_is_refused_with_one_reason(server, meeting_id):
    env = dict(os.environ, CARILLON_ACCESS_KEY_ID=ACCESS_KEY_ID, CARILLON_SECRET_ACCESS_KEY=SECRET_ACCESS_KEY)
    sharers = [subprocess.Popen([BINARY, "join", "--endpoint", server.endpoint, "--meeting", meeting_id, "--name",
                                 f"share-{index}", "--share", "slides", "--duration", "60"],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
               for index in (1, 2)]
    try:
        for sharer in sharers:
            for line in sharer.stdout:
                if line.startswith("content share started"):
                    break
        result, _ = join(server, meeting_id, "share-3", "--share", "slides", "--duration", "3")
    finally:
        for sharer in sharers:
            sharer.terminate()
            sharer.wait(timeout=30)
    output = result.stdout + result.stderr
    lines = [line for line in output.splitlines() if "content share" in line]
    assert lines == ["content share stopped: the meeting already has its most content shares (two) (audioCallAtCapacity)"], output
