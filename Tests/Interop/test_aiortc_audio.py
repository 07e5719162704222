"""Real sound between aiortc and the SDK through the server's mixer: an aiortc attendee (chime_attendee.py) plays a
1000 Hz tone into a `carillon serve` meeting next to two SDK bots (`carillon join`) playing 440 and 660 Hz, each bot
recording what it hears to a WAV file and aiortc keeping what it receives on its track.

The mixer sends every attendee the others' voices and not its own (minus-self), so each of the three recordings must
hold the other two tones and not its own. Tone power is measured with a Goertzel filter over the steady part of the
recording (after the first 2 s: joins, ICE/DTLS, jitter buffers, speaker selection): every tone that should be heard
must be at least 10 dB above the listener's own tone, which is only codec leakage and noise, and above -30 dBFS.
All tones are sent at a quarter of full scale (-12 dBFS); aiortc's 1000 Hz arrives about 3 dB lower because aiortc's
encoder upmixes the mono track to stereo with libswresample's -3 dB center mix level.
"""
import array
import asyncio
import math
import os
import subprocess
import tempfile
import threading
import wave

from chime_attendee import ChimeAttendee, ToneTrack
from conftest import ACCESS_KEY_ID, SECRET_ACCESS_KEY

AIORTC_TONE = 1000
BOT_TONES = {"sdk-bot-440": 440, "sdk-bot-660": 660}
ALL_TONES = [440, 660, AIORTC_TONE]
BOT_SECONDS = 10
SKIPPED_SECONDS = 2
# Present tones must beat the listener's own tone by this much, and be at least this loud.
MARGIN_DB = 10
PRESENT_FLOOR_DBFS = -30
# The shortest steady part (after SKIPPED_SECONDS) worth analysing.
MINIMUM_STEADY_SECONDS = 3


def start_sdk_bot(endpoint, meeting_id, name, seconds, tone, recording):
    binary = os.environ.get("CARILLON_BIN", ".build/debug/carillon")
    env = dict(os.environ, CARILLON_ACCESS_KEY_ID=ACCESS_KEY_ID, CARILLON_SECRET_ACCESS_KEY=SECRET_ACCESS_KEY)
    process = subprocess.Popen([binary, "join", "--endpoint", endpoint, "--meeting", meeting_id, "--name", name,
                                "--duration", str(seconds), "--audio-in", f"tone:{tone}", "--audio-out", recording],
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               env=env)
    lines = []
    threading.Thread(target=lambda: lines.extend(process.stdout), daemon=True).start()
    return process, lines


def goertzel_power(samples, sample_rate, frequency):
    """Power of one frequency in 16-bit samples, relative to full scale, averaged over 100 ms blocks (so a phase jump
    from a concealed or skipped packet cannot cancel the tone out). 440, 660 and 1000 Hz are whole 10 Hz bins."""
    block = sample_rate // 10
    coefficient = 2 * math.cos(2 * math.pi * frequency / sample_rate)
    total, blocks = 0.0, 0
    for start in range(0, len(samples) - block + 1, block):
        previous = before_previous = 0.0
        for sample in samples[start:start + block]:
            previous, before_previous = sample + coefficient * previous - before_previous, previous
        magnitude_squared = previous * previous + before_previous * before_previous \
            - coefficient * previous * before_previous
        amplitude = 2 * math.sqrt(max(magnitude_squared, 0.0)) / block / 32767
        total += amplitude * amplitude
        blocks += 1
    return total / blocks if blocks else 0.0


def tone_powers_db(samples, sample_rate):
    """dBFS (a full-scale sine is 0 dB) of every tone of the test in the steady part of a mono recording."""
    steady = samples[SKIPPED_SECONDS * sample_rate:]
    assert len(steady) >= MINIMUM_STEADY_SECONDS * sample_rate, f"only {len(samples) / sample_rate:.1f} s recorded"
    return {frequency: 10 * math.log10(max(goertzel_power(steady, sample_rate, frequency), 1e-15))
            for frequency in ALL_TONES}


def read_first_channel(path):
    with wave.open(path, "rb") as recording:
        assert recording.getsampwidth() == 2, "expected a 16-bit recording"
        channels = recording.getnchannels()
        samples = array.array("h", recording.readframes(recording.getnframes()))
        return samples[::channels], recording.getframerate()


def check_hears_others_not_itself(listener, own, powers):
    summary = ", ".join(f"{frequency} Hz {power:.1f} dB" for frequency, power in sorted(powers.items()))
    for frequency, power in powers.items():
        if frequency != own:
            assert power >= powers[own] + MARGIN_DB, \
                f"{listener} should hear {frequency} Hz at least {MARGIN_DB} dB above its own {own} Hz: {summary}"
            assert power >= PRESENT_FLOOR_DBFS, \
                f"{listener} should hear {frequency} Hz above {PRESENT_FLOOR_DBFS} dBFS: {summary}"
    print(f"{listener} (own {own} Hz) hears: {summary}")


async def run(chime, server, directory):
    meeting = chime.create_meeting(ClientRequestToken="aiortc-audio", MediaRegion="us-east-1",
                                   ExternalMeetingId="aiortc-audio")["Meeting"]
    attendee = chime.create_attendee(MeetingId=meeting["MeetingId"], ExternalUserId="aiortc-tone")["Attendee"]
    bots = {name: start_sdk_bot(server.endpoint, meeting["MeetingId"], name, BOT_SECONDS, tone,
                                os.path.join(directory, f"{name}.wav"))
            for name, tone in BOT_TONES.items()}
    client = ChimeAttendee(meeting["MediaPlacement"]["SignalingUrl"], attendee["JoinToken"], attendee["AttendeeId"],
                           ToneTrack(AIORTC_TONE))
    loop = asyncio.get_running_loop()
    try:
        await client.join()
        state = await client.subscribe()
        # Stay until both bots have left, so they hear aiortc for their whole recording.
        await asyncio.gather(*(loop.run_in_executor(None, process.wait, BOT_SECONDS + 15)
                               for process, _ in bots.values()))
    finally:
        await client.leave()
        for process, _ in bots.values():
            if process.poll() is None:
                process.kill()
    return state, client, bots


def test_aiortc_and_sdk_attendees_hear_each_others_tones_and_not_their_own(chime, server):
    with tempfile.TemporaryDirectory(prefix="carillon-aiortc-audio-") as directory:
        state, client, bots = asyncio.run(run(chime, server, directory))
        assert state == "connected", client.frame_types
        for name, (process, lines) in bots.items():
            assert process.returncode == 0, f"{name} failed:\n" + "".join(lines)
        recordings = {name: read_first_channel(os.path.join(directory, f"{name}.wav")) for name in BOT_TONES}

    assert client.receive_error is None, f"aiortc could not record what it received: {client.receive_error!r}"
    assert client.received_sample_rate, f"aiortc received no audio ({client.frames_received} frames)"
    aiortc_powers = tone_powers_db(client.received_audio, client.received_sample_rate)
    bot_powers = {name: tone_powers_db(*recordings[name]) for name in BOT_TONES}
    check_hears_others_not_itself("aiortc", AIORTC_TONE, aiortc_powers)
    for name, own in BOT_TONES.items():
        check_hears_others_not_itself(name, own, bot_powers[name])
