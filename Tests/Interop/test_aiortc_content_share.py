"""aiortc as a third-party content sender: an attendee's `#content` credentials (join token `<JoinToken>#content`,
attendee `<AttendeeId>#content`) are all it takes. A `carillon join` bot sees the share in its roster, gets a content
tile for it and records it as `<ExternalUserId>#content.y4m`, in the sender's colour."""
import asyncio
import json
import os
import subprocess
import tempfile
import threading

from aiortc.mediastreams import AudioStreamTrack

from chime_attendee import ChimeAttendee, ColorTrack
from conftest import ACCESS_KEY_ID, SECRET_ACCESS_KEY
from test_video_bots import read_y4m


async def share(url, attendee, seconds):
    sender = ChimeAttendee(url, attendee["JoinToken"] + "#content", attendee["AttendeeId"] + "#content",
                           AudioStreamTrack())
    try:
        await sender.join()
        # A green picture (Y 145, U 54, V 34 in BT.601) at 5 fps, as a screen would be sent.
        state = await sender.subscribe(video_track=ColorTrack((145, 54, 34), fps=5))
        await asyncio.sleep(seconds)
        return state, sender
    finally:
        await sender.leave()


def test_an_aiortc_content_share_reaches_an_sdk_bot_as_a_content_tile(chime, server):
    meeting = chime.create_meeting(ClientRequestToken="aiortc-content", MediaRegion="us-east-1",
                                   ExternalMeetingId="aiortc-content")["Meeting"]
    sharer = chime.create_attendee(MeetingId=meeting["MeetingId"], ExternalUserId="sharer")["Attendee"]
    binary = os.environ.get("CARILLON_BIN", ".build/debug/carillon")
    env = dict(os.environ, CARILLON_ACCESS_KEY_ID=ACCESS_KEY_ID, CARILLON_SECRET_ACCESS_KEY=SECRET_ACCESS_KEY)
    with tempfile.TemporaryDirectory(prefix="carillon-content-") as out:
        viewer = subprocess.Popen(
            [binary, "join", "--endpoint", server.endpoint, "--meeting", meeting["MeetingId"], "--name", "viewer",
             "--video-out", out, "--json", "--duration", "14"],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
        lines = []
        threading.Thread(target=lambda: lines.extend(viewer.stdout), daemon=True).start()
        state, sender = asyncio.run(share(meeting["MediaPlacement"]["SignalingUrl"], sharer, 6))
        assert viewer.wait(timeout=60) == 0, "".join(lines)
        events = [json.loads(line) for line in lines if line.startswith("{")]
        assert state == "connected"
        assert any(e["event"] == "joined" and "sharer#content" in e["attendees"] for e in events), lines
        tiles = [e for e in events if e["event"] == "tileAdded"]
        assert [t["attendee"] for t in tiles] == ["sharer#content"], tiles
        assert os.listdir(out) == ["sharer#content.y4m"], os.listdir(out)
        width, height, frames = read_y4m(os.path.join(out, "sharer#content.y4m"))
        assert (width, height) == (320, 180)
        # 5 fps for about 6 s, the first key frame after a PLI round trip.
        assert len(frames) >= 15, len(frames)
        luma = width * height
        chroma = ((width + 1) // 2) * ((height + 1) // 2)
        last = frames[-1]
        u = sum(last[luma:luma + chroma]) / chroma
        v = sum(last[luma + chroma:luma + 2 * chroma]) / chroma
        assert abs(u - 54) < 12 and abs(v - 34) < 12, (u, v)
