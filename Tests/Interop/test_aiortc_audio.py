"""Sound both ways between aiortc and the SDK through a Carillon meeting.

An aiortc attendee speaking Chime signaling (chime_attendee.py) sends a 1000 Hz tone into a meeting with two SDK bots
(`carillon join`) that send 440 and 660 Hz. The server mixes: each SDK bot's recording must hold aiortc's tone and
the other bot's, not its own; aiortc must hear both SDK tones and not its own.
"""
import array
import asyncio
import fractions
import math
import os
import subprocess
import tempfile
import threading
import time
import wave

import av
from aiortc.mediastreams import MediaStreamTrack

from chime_attendee import ChimeAttendee
from conftest import ACCESS_KEY_ID, SECRET_ACCESS_KEY

RATE = 48000
SDK_TONES = {"bot-low": 440.0, "bot-high": 660.0}
AIORTC_TONE = 1000.0
SECONDS = 8


class ToneTrack(MediaStreamTrack):
    """A sine tone in 20 ms s16 mono frames, paced in real time."""
    kind = "audio"

    def __init__(self, frequency):
        super().__init__()
        self.frequency = frequency
        self.sent = 0
        self.start = None

    async def recv(self):
        samples = RATE // 50
        if self.start is None:
            self.start = time.time()
        else:
            wait = self.start + self.sent / RATE - time.time()
            if wait > 0:
                await asyncio.sleep(wait)
        values = array.array("h", (int(12000 * math.sin(2 * math.pi * self.frequency * (self.sent + i) / RATE))
                                   for i in range(samples)))
        frame = av.AudioFrame(format="s16", layout="mono", samples=samples)
        frame.planes[0].update(values.tobytes())
        frame.sample_rate = RATE
        frame.pts = self.sent
        frame.time_base = fractions.Fraction(1, RATE)
        self.sent += samples
        return frame


def goertzel_power(samples, rate, frequency):
    """Power of one frequency in the samples (Goertzel), normalised by length."""
    coefficient = 2 * math.cos(2 * math.pi * frequency / rate)
    previous = before = 0.0
    for sample in samples:
        previous, before = sample + coefficient * previous - before, previous
    return (previous * previous + before * before - coefficient * previous * before) / max(1, len(samples)) ** 2


def tone_levels(samples, rate, frequencies):
    """dB of each frequency relative to the strongest of them, over the samples after the first 2 s."""
    steady = samples[2 * rate:]
    powers = {f: goertzel_power(steady, rate, f) for f in frequencies}
    strongest = max(powers.values()) or 1e-20
    return {f: 10 * math.log10(max(p, 1e-20) / strongest) for f, p in powers.items()}


def read_wav_mono(path):
    with wave.open(path, "rb") as wav:
        channels, rate = wav.getnchannels(), wav.getframerate()
        samples = array.array("h", wav.readframes(wav.getnframes()))
    return samples[::channels], rate


def start_bot(endpoint, meeting_id, name, tone, recording):
    binary = os.environ.get("CARILLON_BIN", ".build/debug/carillon")
    env = dict(os.environ, CARILLON_ACCESS_KEY_ID=ACCESS_KEY_ID, CARILLON_SECRET_ACCESS_KEY=SECRET_ACCESS_KEY)
    process = subprocess.Popen([binary, "join", "--endpoint", endpoint, "--meeting", meeting_id, "--name", name,
                                "--audio-in", f"tone:{int(tone)}", "--audio-out", recording,
                                "--duration", str(SECONDS)],
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               env=env)
    lines = []
    threading.Thread(target=lambda: lines.extend(process.stdout), daemon=True).start()
    return process, lines


async def run(chime, server, directory):
    meeting = chime.create_meeting(ClientRequestToken="aiortc-audio", MediaRegion="us-east-1",
                                   ExternalMeetingId="aiortc-audio")["Meeting"]
    attendee = chime.create_attendee(MeetingId=meeting["MeetingId"], ExternalUserId="aiortc")["Attendee"]
    bots = {name: start_bot(server.endpoint, meeting["MeetingId"], name, tone, os.path.join(directory, f"{name}.wav"))
            for name, tone in SDK_TONES.items()}
    client = ChimeAttendee(meeting["MediaPlacement"]["SignalingUrl"], attendee["JoinToken"], attendee["AttendeeId"],
                           ToneTrack(AIORTC_TONE))
    try:
        await client.join()
        state = await client.subscribe()
        await asyncio.sleep(SECONDS - 1)
    finally:
        await client.leave()
    for process, _ in bots.values():
        await asyncio.get_running_loop().run_in_executor(None, process.wait, 30)
    return state, client, bots


def test_aiortc_and_sdk_attendees_hear_each_other(chime, server):
    directory = tempfile.mkdtemp(prefix="carillon-aiortc-audio-")
    state, client, bots = asyncio.run(run(chime, server, directory))
    assert state == "connected", client.frame_types
    for name, (process, lines) in bots.items():
        assert process.returncode == 0, "".join(lines)
    frequencies = list(SDK_TONES.values()) + [AIORTC_TONE]

    # aiortc hears both SDK bots, not itself.
    assert client.received_rate, f"aiortc decoded nothing ({client.frames_received} frames)"
    heard = tone_levels(client.received_samples, client.received_rate, frequencies)
    print("aiortc hears", heard)
    for tone in SDK_TONES.values():
        assert heard[tone] > -15, heard
    assert heard[AIORTC_TONE] < -20, heard

    # Each SDK bot hears aiortc and the other bot, not itself.
    for name, own in SDK_TONES.items():
        samples, rate = read_wav_mono(os.path.join(directory, f"{name}.wav"))
        levels = tone_levels(samples, rate, frequencies)
        print(name, "hears", levels)
        assert levels[AIORTC_TONE] > -15, (name, levels)
        other = next(tone for bot, tone in SDK_TONES.items() if bot != name)
        assert levels[other] > -15, (name, levels)
        assert levels[own] < -20, (name, levels)
