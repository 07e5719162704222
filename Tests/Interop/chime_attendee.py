"""A small Chime-signaling attendee on aiortc: the project's test client for interop with `carillon serve`.

It speaks the signaling protocol of shared/specs/signaling.md over WebSocket (0x05 type byte + SdkSignalFrame),
JOINs, SUBSCRIBEs with an aiortc offer (one audio transceiver sending the given track; optionally a camera m-line
sending a video track, and recvonly video m-lines for remote streams), applies the answer, and records what the
server tells it (roster, audio metadata, INDEX) and what it receives: the first channel of every decoded audio frame
as 16-bit samples, and per remote video track its decoded frames' count, size and mean colour. `ToneTrack` is a
microphone that plays a sine tone; `ColorTrack` a camera that shows one colour.
"""
import array
import asyncio
import fractions
import math
import os
import random
import subprocess
import sys
import tempfile
import time

import aioice.ice
import av
import websockets
from aiortc import RTCPeerConnection, RTCSessionDescription
from aiortc.mediastreams import MediaStreamError, MediaStreamTrack

# aioice leaves loopback out of its host candidates; these tests must use nothing else.
aioice.ice.get_host_addresses = lambda use_ipv4, use_ipv6: ["127.0.0.1"]

HERE = os.path.dirname(os.path.abspath(__file__))
PROTOS = os.path.join(HERE, "..", "..", "Protos")


def load_signaling_protocol():
    """Generates the Python classes of Protos/SignalingProtocol.proto with protoc into a temporary folder."""
    out = tempfile.mkdtemp(prefix="carillon-pb-")
    subprocess.run(["protoc", f"--proto_path={PROTOS}", f"--python_out={out}", "SignalingProtocol.proto"],
                   check=True, cwd=PROTOS)
    sys.path.insert(0, out)
    import SignalingProtocol_pb2
    return SignalingProtocol_pb2


pb = load_signaling_protocol()


class ToneTrack(MediaStreamTrack):
    """An audio track playing a sine tone: 20 ms frames of 48 kHz mono s16, paced in real time like aiortc's
    AudioStreamTrack (each frame is due at start + its timestamp)."""

    kind = "audio"
    sample_rate = 48000
    samples_per_frame = 960

    def __init__(self, frequency, amplitude=0.25):
        super().__init__()
        self.frequency = frequency
        self.amplitude = amplitude
        self._start = None
        self._timestamp = 0

    async def recv(self):
        if self.readyState != "live":
            raise MediaStreamError
        if self._start is None:
            self._start = time.time()
        else:
            self._timestamp += self.samples_per_frame
            await asyncio.sleep(self._start + self._timestamp / self.sample_rate - time.time())
        peak = self.amplitude * 32767
        step = 2 * math.pi * self.frequency / self.sample_rate
        samples = array.array("h", (round(peak * math.sin(step * (self._timestamp + index)))
                                    for index in range(self.samples_per_frame)))
        frame = av.AudioFrame(format="s16", layout="mono", samples=self.samples_per_frame)
        frame.planes[0].update(samples.tobytes())
        frame.pts = self._timestamp
        frame.sample_rate = self.sample_rate
        frame.time_base = fractions.Fraction(1, self.sample_rate)
        return frame


class ColorTrack(MediaStreamTrack):
    """A camera showing one colour (given as Y, U, V) with a moving bright bar, so the encoder has work to do;
    paced in real time at `fps`."""

    kind = "video"

    def __init__(self, yuv, width=320, height=180, fps=15):
        super().__init__()
        self.yuv = yuv
        self.width = width
        self.height = height
        self.fps = fps
        self._start = None
        self._index = 0

    async def recv(self):
        if self.readyState != "live":
            raise MediaStreamError
        if self._start is None:
            self._start = time.time()
        else:
            self._index += 1
            await asyncio.sleep(self._start + self._index / self.fps - time.time())
        frame = av.VideoFrame(width=self.width, height=self.height, format="yuv420p")
        luma = bytearray([self.yuv[0]]) * (self.width * self.height)
        bar = (self._index * 8) % self.width
        for row in range(self.height):
            start = row * self.width + bar
            luma[start:start + min(16, self.width - bar)] = b"\xeb" * min(16, self.width - bar)
        chroma = (self.width // 2) * (self.height // 2)
        frame.planes[0].update(bytes(luma))
        frame.planes[1].update(bytes([self.yuv[1]]) * chroma)
        frame.planes[2].update(bytes([self.yuv[2]]) * chroma)
        frame.pts = self._index * (90000 // self.fps)
        frame.time_base = fractions.Fraction(1, 90000)
        return frame


class ChimeAttendee:
    """One attendee session: signaling socket plus an aiortc peer connection."""

    def __init__(self, signaling_url, join_token, attendee_id, track):
        self.url = signaling_url + "?X-Chime-Control-Protocol-Version=3"
        self.token = join_token
        self.attendee_id = attendee_id
        self.track = track
        self.pc = RTCPeerConnection()
        self.socket = None
        self.roster = {}            # stream id -> attendee id
        self.metadata = []          # lists of (attendee id, volume or None, signal strength or None)
        self.frames_received = 0
        self.received_audio = array.array("h")   # first channel of every received frame
        self.received_sample_rate = None
        self.receive_error = None   # what stopped the consumer early, if anything did
        self.frame_types = []
        self.index = None           # the newest INDEX frame
        self.allocations = []       # SUBSCRIBE_ACK allocations of this attendee's own video
        self.tracks = []            # SUBSCRIBE_ACK tracks
        self.video = {}             # remote video track id -> {"frames", "width", "height", "u", "v"}
        self._reader = None
        self._pinger = None
        self._events = asyncio.Queue()

    @staticmethod
    def now_ms():
        return int(time.time() * 1000)

    async def send(self, frame):
        frame.timestamp_ms = self.now_ms()
        await self.socket.send(b"\x05" + frame.SerializeToString())

    async def _read(self):
        async for message in self.socket:
            frame = pb.SdkSignalFrame()
            frame.ParseFromString(message[1:])
            self.frame_types.append(frame.type)
            if frame.type == pb.SdkSignalFrame.AUDIO_STREAM_ID_INFO:
                for entry in frame.audio_stream_id_info.streams:
                    if entry.attendee_id:
                        self.roster[entry.audio_stream_id] = entry.attendee_id
                    elif not entry.HasField("muted"):
                        self.roster.pop(entry.audio_stream_id, None)
            elif frame.type == pb.SdkSignalFrame.AUDIO_METADATA:
                self.metadata.append([
                    (self.roster.get(state.audio_stream_id),
                     state.volume if state.HasField("volume") else None,
                     state.signal_strength if state.HasField("signal_strength") else None)
                    for state in frame.audio_metadata.attendee_states])
            elif frame.type == pb.SdkSignalFrame.INDEX:
                self.index = frame.index
            elif frame.type == pb.SdkSignalFrame.PING_PONG and frame.ping_pong.type == pb.PING:
                pong = pb.SdkSignalFrame(type=pb.SdkSignalFrame.PING_PONG)
                pong.ping_pong.type = pb.PONG
                pong.ping_pong.ping_id = frame.ping_pong.ping_id
                await self.send(pong)
            await self._events.put(frame)

    async def _ping(self):
        ping_id = 0
        while True:
            await asyncio.sleep(10)
            ping_id += 1
            ping = pb.SdkSignalFrame(type=pb.SdkSignalFrame.PING_PONG)
            ping.ping_pong.type = pb.PING
            ping.ping_pong.ping_id = ping_id
            await self.send(ping)

    async def expect(self, frame_type, timeout=15):
        """Waits for the next frame of a type (others are recorded and skipped)."""
        async def wait():
            while True:
                frame = await self._events.get()
                if frame.HasField("error") and frame.error.status >= 400:
                    raise AssertionError(f"server error {frame.error.status}: {frame.error.description}")
                if frame.type == frame_type:
                    return frame
        return await asyncio.wait_for(wait(), timeout)

    async def join(self):
        self.socket = await websockets.connect(self.url, subprotocols=["_aws_wt_session", self.token])
        self._reader = asyncio.ensure_future(self._read())
        self._pinger = asyncio.ensure_future(self._ping())
        join = pb.SdkSignalFrame(type=pb.SdkSignalFrame.JOIN)
        join.join.protocol_version = 2
        join.join.flags = pb.HAS_STREAM_UPDATE
        join.join.audio_session_id = random.getrandbits(32)
        join.join.wants_compressed_sdp = False
        await self.send(join)
        await self.expect(pb.SdkSignalFrame.JOIN_ACK)
        await self.expect(pb.SdkSignalFrame.INDEX)

    async def wait_for_sources(self, count, timeout=15):
        """Waits until the newest INDEX lists `count` video sources and returns them."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.index is not None and len(self.index.sources) >= count:
                return list(self.index.sources)
            await asyncio.sleep(0.05)
        raise AssertionError(f"INDEX never listed {count} sources: {self.index}")

    async def subscribe(self, video_track=None, receive_stream_ids=()):
        """Offers audio, then (with `video_track`) a sendonly camera m-line, then one recvonly video m-line per
        wanted remote stream, and applies the answer. Returns the connection state."""
        self.pc.addTransceiver(self.track, direction="sendrecv")
        video_ids = []
        if video_track is not None:
            self.pc.addTransceiver(video_track, direction="sendonly")
            video_ids.append(0)
        for stream_id in receive_stream_ids:
            self.pc.addTransceiver("video", direction="recvonly")
            video_ids.append(stream_id)
        self.pc.on("track", lambda track: asyncio.ensure_future(self._consume(track)))
        await self.pc.setLocalDescription(await self.pc.createOffer())
        subscribe = pb.SdkSignalFrame(type=pb.SdkSignalFrame.SUBSCRIBE)
        subscribe.sub.duplex = pb.DUPLEX if video_track is not None else pb.RX
        stream = subscribe.sub.send_streams.add()
        stream.media_type = pb.AUDIO
        stream.track_label = "AmazonChimeExpressAudio"
        stream.stream_id = 1
        stream.group_id = 1
        stream.attendee_id = self.attendee_id
        if video_track is not None:
            video = subscribe.sub.send_streams.add()
            video.media_type = pb.VIDEO
            video.track_label = "AmazonChimeExpressVideo"
            video.stream_id = 2
            video.group_id = 2
            video.framerate = video_track.fps
            video.max_bitrate_kbps = 600
            video.attendee_id = self.attendee_id
        subscribe.sub.receive_stream_ids.extend(video_ids)
        subscribe.sub.sdp_offer = self.pc.localDescription.sdp
        subscribe.sub.audio_checkin = False
        subscribe.sub.audio_muted = False
        await self.send(subscribe)
        ack = await self.expect(pb.SdkSignalFrame.SUBSCRIBE_ACK)
        self.allocations = list(ack.suback.allocations)
        self.tracks = list(ack.suback.tracks)
        await self.pc.setRemoteDescription(RTCSessionDescription(sdp=ack.suback.sdp_answer, type="answer"))
        for _ in range(300):
            if self.pc.connectionState in ("connected", "failed"):
                break
            await asyncio.sleep(0.05)
        return self.pc.connectionState

    async def _consume(self, track):
        try:
            while True:
                frame = await track.recv()
                if track.kind == "video":
                    self._record_video(track.id, frame)
                    continue
                self.frames_received += 1
                self._record(frame)
        except MediaStreamError:
            pass
        except Exception as error:  # a task's exception would go unseen: keep it for the test
            self.receive_error = error

    def _record_video(self, track_id, frame):
        """Counts a decoded video frame and keeps its size and mean chroma (the sender's colour)."""
        picture = frame.reformat(format="yuv420p")
        u, v = bytes(picture.planes[1]), bytes(picture.planes[2])
        entry = self.video.setdefault(track_id, {"frames": 0})
        entry.update(frames=entry["frames"] + 1, width=frame.width, height=frame.height,
                     u=sum(u) / max(1, len(u)), v=sum(v) / max(1, len(v)))

    def _record(self, frame):
        """Appends the first channel of a decoded frame (aiortc's Opus decoder gives packed s16 stereo)."""
        if frame.format.name != "s16":
            raise ValueError(f"unexpected received sample format {frame.format.name}")
        channels = len(frame.layout.channels)
        # The plane may be padded beyond the frame's samples.
        samples = array.array("h", bytes(frame.planes[0])[:frame.samples * channels * 2])
        self.received_audio.extend(samples[::channels])
        self.received_sample_rate = frame.sample_rate

    async def leave(self):
        if self.socket is not None:
            leave = pb.SdkSignalFrame(type=pb.SdkSignalFrame.LEAVE)
            leave.leave.SetInParent()
            await self.send(leave)
            try:
                await self.expect(pb.SdkSignalFrame.LEAVE_ACK, timeout=5)
            finally:
                for task in (self._pinger, self._reader):
                    if task:
                        task.cancel()
                await self.socket.close()
        await self.pc.close()
