"""An aiortc attendee speaking Chime signaling joins a Carillon meeting next to an SDK attendee (`carillon join`):
both see each other, aiortc's media connects through the server's media port, and the server's AUDIO_METADATA
shows aiortc's audio arriving."""
import asyncio
import os
import subprocess
import threading

from aiortc.mediastreams import AudioStreamTrack

from chime_attendee import ChimeAttendee, pb
from conftest import ACCESS_KEY_ID, SECRET_ACCESS_KEY


def start_bot(endpoint, meeting_id, name, seconds):
    binary = os.environ.get("CARILLON_BIN", ".build/debug/carillon")
    env = dict(os.environ, CARILLON_ACCESS_KEY_ID=ACCESS_KEY_ID, CARILLON_SECRET_ACCESS_KEY=SECRET_ACCESS_KEY)
    process = subprocess.Popen([binary, "join", "--endpoint", endpoint, "--meeting", meeting_id, "--name", name,
                                "--duration", str(seconds)],
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               env=env)
    lines = []
    threading.Thread(target=lambda: lines.extend(process.stdout), daemon=True).start()
    return process, lines


async def run(chime, server):
    meeting = chime.create_meeting(ClientRequestToken="aiortc-attendee", MediaRegion="us-east-1",
                                   ExternalMeetingId="aiortc")["Meeting"]
    attendee = chime.create_attendee(MeetingId=meeting["MeetingId"], ExternalUserId="aiortc")["Attendee"]
    bot, bot_lines = start_bot(server.endpoint, meeting["MeetingId"], "sdk-bot", 8)
    client = ChimeAttendee(meeting["MediaPlacement"]["SignalingUrl"], attendee["JoinToken"], attendee["AttendeeId"],
                           AudioStreamTrack())
    try:
        await client.join()
        state = await client.subscribe()
        # Audio flows for a few seconds; the server reports it in AUDIO_METADATA.
        await asyncio.sleep(3)
        roster = set(client.roster.values())
    finally:
        await client.leave()
    await asyncio.get_running_loop().run_in_executor(None, bot.wait, 30)
    return state, roster, client, attendee, bot, bot_lines


def test_an_aiortc_attendee_joins_with_media_next_to_an_sdk_attendee(chime, server):
    state, roster, client, attendee, bot, bot_lines = asyncio.run(run(chime, server))
    output = "".join(bot_lines)
    assert state == "connected", client.frame_types
    assert attendee["AttendeeId"] in roster and len(roster) == 2, roster
    # The server heard aiortc's audio: its uplink signal strength reached 2 ("good").
    own = [entry for frame in client.metadata for entry in frame if entry[0] == attendee["AttendeeId"]]
    assert any(signal == 2 for _, _, signal in own), client.metadata
    # The SDK attendee sends its default silent microphone: its packets arrive too, and it is not speaking.
    others = [entry for frame in client.metadata for entry in frame if entry[0] not in (None, attendee["AttendeeId"])]
    assert others and others[-1][2] == 2 and others[-1][1] == 127, client.metadata
    assert bot.returncode == 0, output
    assert "joined: aiortc" in output and "in the meeting" in output, output
