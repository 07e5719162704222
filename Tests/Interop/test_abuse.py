"""The standing abuse suite: attacks on a live `carillon serve`, each while a canary meeting runs beside it.

The canary is two SDK bots (`carillon join`) speaking 440 and 660 Hz and recording what they hear; every whole second
of each recording must carry the other's tone. The attacks come from attendees with valid join tokens (of another
meeting, and of the canary meeting itself) and from strangers, and each is checked for the limit that stops it:
- a DATA_MESSAGE frame of 100 000 empty messages: refused whole with one warning (it silenced every meeting and
  came back as 100 000 frames);
- a flood of full data-message frames: the sender is closed with 4429 past the hard limit;
- 5 000 PINGs from another meeting as fast as the socket takes them: closed with 4429 past the frame limit, never
  more than 32 waiting on the meeting's loop;
- a SUBSCRIBE announcing 16 000 video streams: refused with 400, no INDEX to anyone (every other attendee's INDEX
  grew to 3.5 MiB, over the clients' frame limit);
- sockets without a valid token that never send JOIN: closed after 10 s;
- 300 TCP connections from one address that send nothing or half a request head: 64 held (the per-address
  pre-join cap), the rest closed at accept, all closed after the 10 s head timeout, the API answering meanwhile.
A second test runs a server with only 256 descriptors and floods it from many addresses: the oldest silent
connections make way, so `/health`, the API and the canary meeting keep working, and the server does not spin.
(Forged ICE checks naming a session are covered on a real port by `MediaPortTests`: the attacker needs the session's
ICE username, which the SDK bots do not print.)
Afterwards the server still answers the control API and its memory is back within a margin. Loops are bounded in
count and time; everything stays on 127.0.0.1.
"""
import asyncio
import math
import os
import re
import resource
import socket
import tempfile
import time
import urllib.request

import websockets

from chime_attendee import pb
from conftest import make_client, start_server, stop_server
from test_aiortc_audio import goertzel_power, read_first_channel, start_sdk_bot

CANARY_SECONDS = 50
CANARY_TONES = {"canary-440": 440, "canary-660": 660}
# A tone heard in a second is at least this loud there (the tones arrive near -15 dBFS; a second without them is
# concealment or silence, far below).
HEARD_DBFS = -35
# What the server may keep after the attacks, over its size before them.
MEMORY_MARGIN_KB = 80 * 1024


def resident_kb(pid):
    with open(f"/proc/{pid}/status") as status:
        return int(re.search(r"VmRSS:\s+(\d+) kB", status.read()).group(1))


def signal_frame(frame_type):
    frame = pb.SdkSignalFrame(type=frame_type)
    frame.timestamp_ms = int(time.time() * 1000)
    return frame


class RawAttendee:
    """A signaling socket that speaks the wire format by hand: it sends what an attacker would."""

    def __init__(self, meeting, attendee):
        self.url = meeting["MediaPlacement"]["SignalingUrl"] + "?X-Chime-Control-Protocol-Version=3"
        self.token = attendee["JoinToken"]
        self.socket = None
        self.received = []

    async def join(self):
        self.socket = await websockets.connect(self.url, subprotocols=["_aws_wt_session", self.token],
                                               max_size=4 * 1024 * 1024)
        join = signal_frame(pb.SdkSignalFrame.JOIN)
        join.join.protocol_version = 2
        join.join.flags = pb.HAS_STREAM_UPDATE
        await self.send_bytes(b"\x05" + join.SerializeToString())
        await self.read_until(lambda frame: frame.type == pb.SdkSignalFrame.INDEX, 10)

    async def send_bytes(self, data):
        await self.socket.send(data)

    async def read_for(self, seconds):
        """Reads frames for `seconds` (or until the socket closes); returns how many came."""
        count = 0
        deadline = time.monotonic() + seconds
        try:
            while time.monotonic() < deadline:
                message = await asyncio.wait_for(self.socket.recv(), max(0.01, deadline - time.monotonic()))
                frame = pb.SdkSignalFrame()
                frame.ParseFromString(message[1:])
                self.received.append(frame)
                count += 1
        except (asyncio.TimeoutError, websockets.ConnectionClosed):
            pass
        return count

    async def read_until(self, predicate, seconds):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            message = await asyncio.wait_for(self.socket.recv(), deadline - time.monotonic())
            frame = pb.SdkSignalFrame()
            frame.ParseFromString(message[1:])
            self.received.append(frame)
            if predicate(frame):
                return frame
        raise AssertionError("the expected frame never came")

    async def close(self):
        # A socket the server has closed needs nothing more. The server often ends a flooder's socket with a TCP
        # reset (it drops the unread bytes as it closes), and closing such a socket again trips websockets over a
        # transport that is already gone (`'NoneType' object has no attribute 'call_soon'`, once under load).
        if self.socket is None or self.socket.close_code is not None \
                or self.socket.state is websockets.protocol.State.CLOSED:
            return
        await self.socket.close()


def flood_frame(count, payload_bytes=0):
    frame = signal_frame(pb.SdkSignalFrame.DATA_MESSAGE)
    for _ in range(count):
        message = frame.data_message.messages.add()
        if payload_bytes:
            message.topic = "flood"
            message.data = b"x" * payload_bytes
    return b"\x05" + frame.SerializeToString()


async def attack_with_a_huge_data_message_frame(meeting, attendee):
    attacker = RawAttendee(meeting, attendee)
    await attacker.join()
    frame = flood_frame(100_000)
    already = len(attacker.received)
    for _ in range(2):
        await attacker.send_bytes(frame)
    # Decoding such a frame takes the server a while on a loaded machine: wait for both warnings, then a moment more.
    def warnings():
        return sum(f.type == pb.SdkSignalFrame.NOTIFICATION for f in attacker.received[already:])
    deadline = time.monotonic() + 20
    while warnings() < 2 and time.monotonic() < deadline:
        await attacker.read_for(0.2)
    await attacker.read_for(1)
    await attacker.close()
    replies = attacker.received[already:]
    # One warning per frame and no data messages back (the meeting's own frames, such as AUDIO_METADATA, may come).
    assert warnings() == 2 and len(replies) < 50, [f.type for f in replies]
    assert not any(f.type == pb.SdkSignalFrame.DATA_MESSAGE for f in replies)
    return "2 frames of 100 000 messages: 1 warning each"


async def flood_until_closed(meeting, attendee, frame, count):
    """Joins and sends `frame` `count` times as fast as the socket takes it; returns how many went out and the code
    the server closed the socket with."""
    attacker = RawAttendee(meeting, attendee)
    await attacker.join()
    sent = 0
    try:
        for _ in range(count):
            await attacker.send_bytes(frame)
            sent += 1
    except websockets.ConnectionClosed:
        pass
    # The close comes once the server has got that far; on a loaded machine that may take a while.
    deadline = time.monotonic() + 20
    while attacker.socket.close_code is None and time.monotonic() < deadline:
        await attacker.read_for(0.2)
    code = attacker.socket.close_code
    await attacker.close()
    return sent, code


async def attack_past_the_hard_limit(meeting, attendee):
    # 400 frames of 16: 6 400 messages, three times the burst of 2 000.
    sent, code = await flood_until_closed(meeting, attendee, flood_frame(16, payload_bytes=2048), 400)
    assert code == 4429, f"closed with {code} after {sent} frames"
    return f"{sent} frames of 16 x 2 KiB: closed with 4429"


async def attack_with_a_frame_flood(meeting, attendee):
    """5 000 PINGs as fast as the socket takes them: each is cheap, but queued without end they would hold the loop
    other meetings share. The reader keeps at most 32 of them waiting on the meeting's loop, and past the frame
    limit (burst 3 000) the sender is closed with 4429."""
    ping = signal_frame(pb.SdkSignalFrame.PING_PONG)
    ping.ping_pong.type = pb.PING
    ping.ping_pong.ping_id = 1
    sent, code = await flood_until_closed(meeting, attendee, b"\x05" + ping.SerializeToString(), 5_000)
    assert code == 4429, f"closed with {code} after {sent} pings"
    return f"{sent} pings as fast as they go: closed with 4429"


async def attack_with_a_huge_subscribe(meeting, attendee):
    attacker = RawAttendee(meeting, attendee)
    await attacker.join()
    subscribe = signal_frame(pb.SdkSignalFrame.SUBSCRIBE)
    subscribe.sub.sdp_offer = "v=0"
    for index in range(16_000):   # about 170 KiB, under the 256 KiB message limit
        stream = subscribe.sub.send_streams.add()
        stream.media_type = pb.VIDEO
        stream.stream_id = index + 1
        stream.max_bitrate_kbps = 100
    await attacker.send_bytes(b"\x05" + subscribe.SerializeToString())
    refusal = await attacker.read_until(lambda frame: frame.HasField("error"), 10)
    await attacker.close()
    assert refusal.error.status == 400, refusal
    return "16 000 streams in one SUBSCRIBE: 400"


async def sockets_that_never_join(meeting, count=50):
    url = meeting["MediaPlacement"]["SignalingUrl"] + "?X-Chime-Control-Protocol-Version=3"
    sockets = [await websockets.connect(url, subprotocols=["_aws_wt_session", "no-such-token"]) for _ in range(count)]
    started = time.monotonic()
    closed = 0
    for connection in sockets:
        try:
            await asyncio.wait_for(connection.recv(), max(0.1, 20 - (time.monotonic() - started)))
        except websockets.ConnectionClosed:
            closed += 1
        except asyncio.TimeoutError:
            pass
        await connection.close()
    waited = time.monotonic() - started
    assert closed == count, f"{closed} of {count} closed within {waited:.1f} s"
    return f"{count} sockets without a token that never join: closed within {waited:.1f} s"


def open_connections(port, source, count, head=b""):
    """`count` TCP connections to the server from `source` (a 127.0.0.0/8 address), each sending `head` (often
    nothing); those the kernel could not complete within a second are left out."""
    opened = []
    for _ in range(count):
        connection = socket.socket()
        connection.bind((source, 0))
        connection.settimeout(1)
        try:
            connection.connect(("127.0.0.1", port))
            if head:
                connection.sendall(head)
            connection.setblocking(False)
            opened.append(connection)
        except OSError:
            connection.close()
    return opened


def closed_by_server(connection):
    try:
        return connection.recv(1, socket.MSG_DONTWAIT | socket.MSG_PEEK) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def wait_until_closed(connections, seconds):
    """Seconds until the server closed every connection, or None if some are still open after `seconds`."""
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        if all(closed_by_server(connection) for connection in connections):
            return time.monotonic() - started
        time.sleep(0.2)
    return None


def api_port(server):
    return int(server.endpoint.rsplit(":", 1)[1])


async def silent_connections_from_one_address(chime, server, meeting, count=300):
    loop = asyncio.get_running_loop()
    port = api_port(server)
    # Half send nothing, half stop in the middle of a request head (slowloris).
    connections = await loop.run_in_executor(None, open_connections, port, "127.0.0.2", count // 2)
    connections += await loop.run_in_executor(None, open_connections, port, "127.0.0.2", count // 2,
                                              b"GET /meetings HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    await asyncio.sleep(1)
    held = sum(not closed_by_server(connection) for connection in connections)
    # Strangers from one address hold at most its pre-join cap; the API still answers others meanwhile.
    assert held <= 64, f"{held} of {len(connections)} connections from one address held"
    assert chime.get_meeting(MeetingId=meeting["MeetingId"])["Meeting"]["MeetingId"] == meeting["MeetingId"]
    waited = await loop.run_in_executor(None, wait_until_closed, connections, 25)
    for connection in connections:
        connection.close()
    assert waited is not None, "silent connections still open 25 s later"
    return (f"{len(connections)} silent or half-headed connections from one address: {held} held (cap 64), "
            f"the rest closed at accept, all closed within {waited:.1f} s")


async def run(chime, server, directory):
    canary = chime.create_meeting(ClientRequestToken="abuse-canary", MediaRegion="us-east-1",
                                  ExternalMeetingId="abuse-canary")["Meeting"]
    other = chime.create_meeting(ClientRequestToken="abuse-other", MediaRegion="us-east-1",
                                 ExternalMeetingId="abuse-other")["Meeting"]
    outsider = chime.create_attendee(MeetingId=other["MeetingId"], ExternalUserId="outsider")["Attendee"]
    insider = chime.create_attendee(MeetingId=canary["MeetingId"], ExternalUserId="insider")["Attendee"]
    flooder = chime.create_attendee(MeetingId=canary["MeetingId"], ExternalUserId="flooder")["Attendee"]
    before_kb = resident_kb(server.process.pid)
    bots = {name: start_sdk_bot(server.endpoint, canary["MeetingId"], name, CANARY_SECONDS, tone,
                                os.path.join(directory, f"{name}.wav"))
            for name, tone in CANARY_TONES.items()}
    results = []
    try:
        await asyncio.sleep(6)   # both bots in and hearing each other
        attacks = [
            lambda: attack_with_a_huge_data_message_frame(other, outsider),
            lambda: attack_with_a_huge_data_message_frame(canary, insider),
            lambda: attack_with_a_huge_subscribe(canary, insider),
            lambda: attack_past_the_hard_limit(other, outsider),
            lambda: attack_past_the_hard_limit(canary, flooder),
            lambda: attack_with_a_frame_flood(other, outsider),
            lambda: sockets_that_never_join(canary),
            lambda: silent_connections_from_one_address(chime, server, canary),
        ]
        canary_ends = time.monotonic() + CANARY_SECONDS - 6
        for attack in attacks:
            before_attack_kb = resident_kb(server.process.pid)
            outcome = await attack()
            results.append(f"{outcome} (server {before_attack_kb // 1024} -> {resident_kb(server.process.pid) // 1024} MB)")
        # Every attack ran while the canary was talking.
        assert time.monotonic() < canary_ends - 2, "the attacks outlasted the canary: lengthen CANARY_SECONDS"
        loop = asyncio.get_running_loop()
        await asyncio.gather(*(loop.run_in_executor(None, process.wait, CANARY_SECONDS + 20)
                               for process, _ in bots.values()))
    finally:
        for process, _ in bots.values():
            if process.poll() is None:
                process.kill()
    after_kb = resident_kb(server.process.pid)
    return canary, bots, results, before_kb, after_kb


def seconds_heard(samples, sample_rate, frequency):
    """For each whole second of a recording: whether `frequency` is heard in it."""
    return [10 * math.log10(max(goertzel_power(samples[start:start + sample_rate], sample_rate, frequency), 1e-15))
            >= HEARD_DBFS for start in range(0, len(samples) - sample_rate + 1, sample_rate)]


def assert_every_second_heard(directory, seconds):
    """Each canary bot's recording carries the other's tone in every whole second but the joining ones and the last."""
    recordings = {name: read_first_channel(os.path.join(directory, f"{name}.wav")) for name in CANARY_TONES}
    for listener, (samples, rate) in recordings.items():
        other = next(tone for name, tone in CANARY_TONES.items() if name != listener)
        heard = seconds_heard(samples, rate, other)
        # The first seconds are joining; the last may be cut by the leave.
        window = heard[3:-1]
        assert len(window) >= seconds - 8, f"{listener} recorded only {len(heard)} s"
        missed = [index + 3 for index, ok in enumerate(window) if not ok]
        assert not missed, f"{listener} did not hear {other} Hz in seconds {missed} of {len(heard)}"


def test_attacks_leave_the_canary_meeting_heard_every_second(chime, server):
    with tempfile.TemporaryDirectory(prefix="carillon-abuse-") as directory:
        canary, bots, results, before_kb, after_kb = asyncio.run(run(chime, server, directory))
        for name, (process, lines) in bots.items():
            assert process.returncode == 0, f"{name} failed:\n" + "".join(lines)
        for result in results:
            print("held:", result)
        print(f"server memory: {before_kb} kB before the attacks, {after_kb} kB after")
        assert_every_second_heard(directory, CANARY_SECONDS)
    # The server kept serving and let go of what the attacks made it hold.
    assert chime.get_meeting(MeetingId=canary["MeetingId"])["Meeting"]["MeetingId"] == canary["MeetingId"]
    assert after_kb - before_kb < MEMORY_MARGIN_KB, f"server grew from {before_kb} kB to {after_kb} kB"


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def health(server):
    try:
        with urllib.request.urlopen(server.metrics + "/health", timeout=5) as response:
            return response.status
    except OSError as error:
        return str(error)


DESCRIPTOR_LIMIT = 256
DESCRIPTOR_CANARY_SECONDS = 24


def test_running_out_of_descriptors_closes_strangers_not_the_meeting():
    """A server with 256 descriptors, asked for 100 000 connections, flooded with 600 silent connections from 20
    addresses (30 each, under the per-address cap). It keeps to 192 connections (its descriptors less a reserve;
    at EMFILE the accept loop would spin), and the oldest silent ones are closed to make room, so `/health`, the API
    and a canary meeting keep working, and the idle server does not spin."""
    def low_limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (DESCRIPTOR_LIMIT, DESCRIPTOR_LIMIT))
    bots = {}
    with tempfile.TemporaryDirectory(prefix="carillon-descriptors-") as data_dir, \
            tempfile.TemporaryDirectory(prefix="carillon-descriptors-canary-") as directory:
        server = start_server(data_dir, extra=("--max-connections", "100000"), preexec_fn=low_limit)
        chime = make_client(server.endpoint)
        connections = []
        try:
            log = "".join(server.output)
            assert f"open-file limit {DESCRIPTOR_LIMIT}" in log and "at most 192 open" in log, log
            canary = chime.create_meeting(ClientRequestToken="descriptors", MediaRegion="us-east-1",
                                          ExternalMeetingId="descriptors")["Meeting"]
            bots = {name: start_sdk_bot(server.endpoint, canary["MeetingId"], name, DESCRIPTOR_CANARY_SECONDS, tone,
                                        os.path.join(directory, f"{name}.wav"))
                    for name, tone in CANARY_TONES.items()}
            time.sleep(6)
            port = api_port(server)
            before = cpu_seconds(server.process.pid)
            started = time.monotonic()
            for host in range(2, 22):
                connections += open_connections(port, f"127.0.0.{host}", 30)
            # The flood is held: the server answers what it must.
            assert health(server) == 200
            assert chime.create_attendee(MeetingId=canary["MeetingId"], ExternalUserId="late")["Attendee"]["JoinToken"]
            time.sleep(5)
            spent = cpu_seconds(server.process.pid) - before
            elapsed = time.monotonic() - started
            open_now = sum(not closed_by_server(connection) for connection in connections)
            assert open_now <= 192, f"{open_now} silent connections open with a budget of 192"
            # A spinning accept loop takes a whole core; the meeting and the flood's accepts take a fraction.
            assert spent < 0.6 * elapsed, f"server used {spent:.1f} s of CPU in {elapsed:.1f} s"
            assert health(server) == 200
            for process, _ in bots.values():
                process.wait(timeout=DESCRIPTOR_CANARY_SECONDS + 20)
            for name, (process, lines) in bots.items():
                assert process.returncode == 0, f"{name} failed:\n" + "".join(lines)
            assert_every_second_heard(directory, DESCRIPTOR_CANARY_SECONDS)
            assert "Error handling upgrade result" not in "".join(server.output), "a flood costs an error line per connection"
            print(f"{len(connections)} connections from 20 addresses with {DESCRIPTOR_LIMIT} descriptors: {open_now} held,"
                  f" /health and CreateAttendee answered, {spent:.2f} s of CPU in {elapsed:.1f} s, canary heard every second")
        finally:
            for connection in connections:
                connection.close()
            for process, _ in bots.values():
                if process.poll() is None:
                    process.kill()
            stop_server(server)
