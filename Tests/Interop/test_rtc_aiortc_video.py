"""aiortc and `carillon peer --video` connect on 127.0.0.1 in both roles with audio and a bundled VP8 m-line, and each
decodes the other's video: aiortc sends Carillon's pattern layout in green (video_pattern.py) and Carillon reads its
counters and colour back; Carillon sends its pattern in magenta and aiortc's decoder gives pictures whose counters and
colour read back. aiortc negotiates no transport-cc, so this covers the REMB-only path of the peer."""
import asyncio
import time

import aioice.ice
import pytest
from aiortc import MediaStreamTrack, RTCPeerConnection, RTCSessionDescription
from aiortc.mediastreams import AudioStreamTrack, MediaStreamError

import video_pattern
from carillon_peer import CarillonPeer

# aioice leaves loopback out of its host candidates; these tests must use nothing else.
aioice.ice.get_host_addresses = lambda use_ipv4, use_ipv6: ["127.0.0.1"]

WIDTH, HEIGHT, FPS = 320, 180, 15
AIORTC_RGB, CARILLON_RGB = (40, 200, 60), (210, 50, 200)  # VideoTestPattern.Color.green and .magenta
DURATION = 8.0


class PatternTrack(MediaStreamTrack):
    """Carillon's pattern layout in one colour, paced in real time; the counter is the picture number."""

    kind = "video"

    def __init__(self):
        super().__init__()
        self.start = None
        self.index = 0

    async def recv(self):
        if self.readyState != "live":
            raise MediaStreamError
        if self.start is None:
            self.start = time.monotonic()
        else:
            self.index += 1
            await asyncio.sleep(self.start + self.index / FPS - time.monotonic())
        return video_pattern.picture(WIDTH, HEIGHT, self.index, video_pattern.studio_yuv(AIORTC_RGB), FPS)


async def consume(track, pictures):
    try:
        while True:
            frame = await track.recv()
            if track.kind == "video":
                pictures.append((frame.width, frame.height, *video_pattern.read(frame)))
    except MediaStreamError:
        pass


async def wait_connected(pc, timeout=20.0):
    for _ in range(int(timeout / 0.05)):
        if pc.connectionState == "connected":
            return
        if pc.connectionState == "failed":
            break
        await asyncio.sleep(0.05)
    raise AssertionError(f"aiortc connection state {pc.connectionState}")


async def run(carillon_role, drop_every):
    pc = RTCPeerConnection()
    pc.addTrack(AudioStreamTrack())
    pc.addTrack(PatternTrack())
    pictures = []
    pc.on("track", lambda track: asyncio.ensure_future(consume(track, pictures)))
    peer = CarillonPeer(carillon_role, duration=DURATION,
                        extra_args=["--video", "--video-size", f"{WIDTH}x{HEIGHT}", "--video-fps", str(FPS),
                                    "--video-color", "magenta", "--video-drop-every", str(drop_every)])
    loop = asyncio.get_running_loop()
    try:
        if carillon_role == "answer":
            await pc.setLocalDescription(await pc.createOffer())
            peer.send({"type": "offer", "sdp": pc.localDescription.sdp})
            answer = await loop.run_in_executor(None, peer.next, "answer")
            await pc.setRemoteDescription(RTCSessionDescription(sdp=answer["sdp"], type="answer"))
        else:
            offer = await loop.run_in_executor(None, peer.next, "offer")
            await pc.setRemoteDescription(RTCSessionDescription(sdp=offer["sdp"], type="offer"))
            await pc.setLocalDescription(await pc.createAnswer())
            peer.send({"type": "answer", "sdp": pc.localDescription.sdp})
        await wait_connected(pc)
        result = await loop.run_in_executor(None, peer.next, "result", 60.0)
    finally:
        await pc.close()
        peer.close()
    return result, pictures


# With drop_every, Carillon leaves out every 20th VP8 packet it sends and discards every 20th it receives: aiortc
# must NACK and get Carillon's RTX retransmissions, and Carillon must NACK and get aiortc's.
@pytest.mark.parametrize("carillon_role,drop_every", [("answer", 0), ("offer", 0), ("offer", 20)])
def test_aiortc_and_carillon_exchange_vp8(carillon_role, drop_every):
    result, pictures = asyncio.run(run(carillon_role, drop_every))
    print(carillon_role, drop_every, result, len(pictures))
    assert result["connected"], result
    sent, received = result["video"]["sent"], result["video"]["received"]

    # aiortc -> Carillon: every picture decoded at aiortc's size, green, its counters read and only going forward.
    assert received["keyFramesDecoded"] >= 1 and received["decodeErrors"] == 0, received
    assert received["framesDecoded"] >= (DURATION - 2) * FPS, received
    assert (received["width"], received["height"]) == (WIDTH, HEIGHT), received
    assert received["colors"].get("green", 0) >= 0.95 * received["framesDecoded"], received
    assert received["countersRead"] >= 0.95 * received["framesDecoded"], received
    assert received["counterRegressions"] == 0, received
    # No transport-cc with aiortc: nothing to report back but NACK and PLI.
    assert received["feedbackSent"] == 0, received

    # Carillon -> aiortc: aiortc's decoder gave Carillon's pictures, magenta, with counters moving on.
    assert sent["keyFrames"] >= 1 and sent["frames"] >= (DURATION - 1) * FPS, sent
    assert len(pictures) >= (DURATION - 2) * FPS, (len(pictures), sent)
    assert all((width, height) == (WIDTH, HEIGHT) for width, height, _, _ in pictures), pictures[:3]
    counters = [counter for _, _, counter, _ in pictures if counter is not None]
    assert len(counters) >= 0.95 * len(pictures), (len(counters), len(pictures))
    assert all(later > earlier for earlier, later in zip(counters, counters[1:])), counters
    expected = video_pattern.studio_yuv(CARILLON_RGB)
    for _, _, _, (y, u, v) in pictures[-10:]:
        assert abs(u - expected[1]) <= 8 and abs(v - expected[2]) <= 8 and abs(y - expected[0]) <= 12, (y, u, v)

    if drop_every:
        # Every packet Carillon discarded came back over RTX in time: no frame skipped, no key frame asked for;
        # Carillon NACKed every discarded packet a NACK could cover, and gave none up (those after the last arrival,
        # and those whose NACK or retransmission was still under way when the run ended, are owed nothing yet);
        # aiortc NACKed what Carillon left out and Carillon answered.
        assert received["packetsDropped"] >= 5 and received["dropsNeverNacked"] == 0, received
        assert received["dropsGivenUp"] == 0, received
        assert received["framesSkipped"] == 0 and received["keyFrameRequests"] == 0, received
        assert sent["packetsDropped"] >= 20 and sent["retransmissions"] >= sent["packetsDropped"] - 1, sent
