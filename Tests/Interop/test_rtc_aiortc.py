"""aiortc and a Carillon endpoint connect on 127.0.0.1 in both roles and exchange SRTP both ways."""
import asyncio

import aioice.ice
import pytest
from aiortc import RTCPeerConnection, RTCSessionDescription
from aiortc.mediastreams import AudioStreamTrack, MediaStreamError

from carillon_peer import CarillonPeer

# aioice leaves loopback out of its host candidates; these tests must use nothing else.
aioice.ice.get_host_addresses = lambda use_ipv4, use_ipv6: ["127.0.0.1"]

PACKETS = 150


async def consume(track, counter):
    try:
        while True:
            await track.recv()
            counter["frames"] += 1
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


async def inbound_packets(pc):
    stats = await pc.getStats()
    return sum(s.packetsReceived for s in stats.values() if s.type == "inbound-rtp")


async def run(carillon_role):
    pc = RTCPeerConnection()
    pc.addTrack(AudioStreamTrack())
    counter = {"frames": 0}
    pc.on("track", lambda track: asyncio.ensure_future(consume(track, counter)))
    peer = CarillonPeer(carillon_role, packets=PACKETS, duration=5.0)
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
        received = await inbound_packets(pc)
    finally:
        await pc.close()
        peer.close()
    return result, received, counter["frames"]


@pytest.mark.parametrize("carillon_role", ["answer", "offer"])
def test_aiortc_and_carillon_exchange_srtp(carillon_role):
    result, aiortc_received, frames = asyncio.run(run(carillon_role))
    assert result["connected"], result
    assert result["srtpProfile"] in ("AEAD_AES_128_GCM", "AEAD_AES_256_GCM", "AES128_CM_HMAC_SHA1_80")
    # Carillon sent its packets and aiortc decrypted and counted them (its stats count only authenticated packets).
    assert result["rtpSent"] == PACKETS
    assert aiortc_received >= PACKETS * 0.9, (aiortc_received, result)
    assert frames > 0
    # aiortc sends Opus from its silence track every 20 ms; Carillon decrypted and counted them.
    assert result["rtpReceived"] >= 100, result
    assert result["rtcpReceived"] >= 1, result
