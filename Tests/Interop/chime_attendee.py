"""A small Chime-signaling attendee on aiortc: the project's test client for interop with `carillon serve`.

It speaks the signaling protocol of shared/specs/signaling.md over WebSocket (0x05 type byte + SdkSignalFrame),
JOINs, SUBSCRIBEs with an aiortc offer (one audio transceiver sending the given track), applies the answer, and
records what the server tells it (roster, audio metadata) and what it receives on its audio track.
"""
import array
import asyncio
import os
import random
import subprocess
import sys
import tempfile
import time

import aioice.ice
import websockets
from aiortc import RTCPeerConnection, RTCSessionDescription
from aiortc.mediastreams import MediaStreamError

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
        self.received_samples = array.array("h")   # mono, at received_rate
        self.received_rate = None
        self.frame_types = []
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

    async def subscribe(self):
        self.pc.addTransceiver(self.track, direction="sendrecv")
        self.pc.on("track", lambda track: asyncio.ensure_future(self._consume(track)))
        await self.pc.setLocalDescription(await self.pc.createOffer())
        subscribe = pb.SdkSignalFrame(type=pb.SdkSignalFrame.SUBSCRIBE)
        subscribe.sub.duplex = pb.RX
        stream = subscribe.sub.send_streams.add()
        stream.media_type = pb.AUDIO
        stream.track_label = "AmazonChimeExpressAudio"
        stream.stream_id = 1
        stream.group_id = 1
        stream.attendee_id = self.attendee_id
        subscribe.sub.sdp_offer = self.pc.localDescription.sdp
        subscribe.sub.audio_checkin = False
        subscribe.sub.audio_muted = False
        await self.send(subscribe)
        ack = await self.expect(pb.SdkSignalFrame.SUBSCRIBE_ACK)
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
                self.frames_received += 1
                self._keep(frame)
        except MediaStreamError:
            pass

    def _keep(self, frame):
        """Appends the first channel of a decoded frame (packed s16, as aiortc's Opus decoder gives it)."""
        if frame.format.name != "s16":
            return
        samples = array.array("h", bytes(frame.planes[0]))
        channels = len(frame.layout.channels)
        self.received_rate = frame.sample_rate
        self.received_samples.extend(samples[::channels])

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
