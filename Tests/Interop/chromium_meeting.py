"""Headless Chromium as a simulcast attendee of a Carillon meeting, run inside a fresh network namespace whose only
interface is loopback (see test_rtc_chromium_simulcast.py), so no packet leaves 127.0.0.0/8.

Usage: chromium_meeting.py. Starts `carillon serve`, creates a meeting, and joins three attendees: Chromium (this
script speaks the Chime signaling for it, the page makes the offer: audio, a camera canvas sent with three
`sendEncodings` rids low/mid/hi at scaleResolutionDownBy 4/2/1, and one recvonly video m-line), a `carillon join`
bot sending its pattern with the SDK's simulcast (three participants and two publishers: low + hi), and a
`carillon join` bot that only receives. Prints one JSON line: Chromium's getStats figures (its sent layers, what it
decoded of the SDK's camera), the SUBSCRIBE_ACK it got, the INDEX it saw of the SDK sender's layers, and each bot's
last videoStats per remote attendee.
"""
import asyncio
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from aiortc.mediastreams import AudioStreamTrack

import chromium_video_page
from chime_attendee import ChimeAttendee, pb
from conftest import ACCESS_KEY_ID, SECRET_ACCESS_KEY, make_client, start_server, stop_server

WIDTH, HEIGHT, FPS = 960, 540, 15
# The SDK sender's camera: its pattern at 640x360, so its layers are 160x90 (low) and 640x360 (hi).
SDK_WIDTH, SDK_HEIGHT = 640, 360
# Chromium's encodings, as the Chime JS client configures them (video.md §3).
ENCODINGS = [("low", 4, 200), ("mid", 2, 400), ("hi", 1, 1100)]
BOT_SECONDS = 45
DECODED_TARGET = 3 * FPS

_SCRIPT = chromium_video_page.PAGE
HELPERS = _SCRIPT[_SCRIPT.index("<script>") + len("<script>"):_SCRIPT.index("async function main()")]

PAGE = """<!doctype html><meta charset="utf-8"><title>carillon simulcast interop</title><body><script>""" + HELPERS + """
async function main() {
  const config = await (await fetch('/config')).json();
  const canvas = document.createElement('canvas');
  canvas.width = config.width; canvas.height = config.height;
  const drawing = canvas.getContext('2d');
  let frame = 0;
  drawPattern(drawing, config.width, config.height, frame, config.color);
  setInterval(() => drawPattern(drawing, config.width, config.height, ++frame, config.color), 1000 / config.fps);
  const videoTrack = canvas.captureStream(config.fps).getVideoTracks()[0];
  const audio = new AudioContext();
  const oscillator = audio.createOscillator();
  const destination = audio.createMediaStreamDestination();
  oscillator.connect(destination);
  oscillator.start();
  const audioTrack = destination.stream.getAudioTracks()[0];
  const stream = new MediaStream([audioTrack, videoTrack]);
  const pc = new RTCPeerConnection({bundlePolicy: 'max-bundle', rtcpMuxPolicy: 'require'});
  const received = document.createElement('video');
  received.muted = true; received.autoplay = true; received.playsInline = true;
  document.body.appendChild(received);
  pc.addEventListener('track', event => {
    if (event.track.kind !== 'video') return;
    received.srcObject = new MediaStream([event.track]);
    received.play().catch(() => {});
  });
  pc.addTransceiver(audioTrack, {direction: 'sendrecv', streams: [stream]});
  pc.addTransceiver(videoTrack, {direction: 'sendonly', streams: [stream], sendEncodings: config.encodings.map(
    ([rid, scale, kbps]) => ({rid, scaleResolutionDownBy: scale, maxBitrate: kbps * 1000}))});
  pc.addTransceiver('video', {direction: 'recvonly'});
  await pc.setLocalDescription(await pc.createOffer());
  await gathered(pc);
  const answer = await post('/offer', {sdp: pc.localDescription.sdp});
  await pc.setRemoteDescription({type: 'answer', sdp: answer.sdp});
  const start = Date.now();
  while (pc.connectionState !== 'connected' && Date.now() - start < 20000) await pause(50);
  const connectedState = pc.connectionState;
  const connectedAt = Date.now();
  let figures = await videoStats(pc);
  while ((figures.inbound?.framesDecoded ?? 0) < config.decodedTarget && Date.now() - connectedAt < 15000) {
    await pause(200);
    figures = await videoStats(pc);
  }
  // Let Chromium's estimate grow so its upper layers go out, then read every layer it sends.
  while (Date.now() - connectedAt < 12000) await pause(200);
  figures = await videoStats(pc);
  const layers = [];
  (await pc.getStats()).forEach(s => {
    if (s.type === 'outbound-rtp' && s.kind === 'video') layers.push({
      rid: s.rid, ssrc: s.ssrc, framesEncoded: s.framesEncoded, framesSent: s.framesSent, frameWidth: s.frameWidth,
      frameHeight: s.frameHeight, bytesSent: s.bytesSent});
  });
  const picture = received.videoWidth > 0 ? readPattern(received) : null;
  await post('/result', {connectionState: connectedState, inbound: figures.inbound, layers, picture,
                         localOffer: pc.localDescription.sdp});
}
main().catch(e => post('/result', {error: String(e)}));
</script>"""


def run_bot(binary, endpoint, meeting_id, name, out, video_in, env):
    arguments = [binary, "join", "--endpoint", endpoint, "--meeting", meeting_id, "--name", name, "--video-out", out,
                 "--json", "--duration", str(BOT_SECONDS)]
    if video_in:
        arguments += ["--video-in", video_in, "--video-size", f"{SDK_WIDTH}x{SDK_HEIGHT}"]
    process = subprocess.Popen(arguments, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, env=env)
    lines = []
    threading.Thread(target=lambda: lines.extend(process.stdout), daemon=True).start()
    return process, lines


def last_video_stats(lines):
    """Each remote attendee's last videoStats line that decoded frames, by attendee."""
    stats = {}
    for line in list(lines):
        if not line.startswith("{"):
            continue
        event = json.loads(line)
        if event.get("event") == "videoStats" and event.get("framesDecoded", 0) > 0:
            stats[event["attendee"]] = {key: event.get(key) for key in ("width", "height", "framesDecoded", "fps")}
    return stats


async def subscribe(attendee, sdp, receive_stream_ids):
    """SUBSCRIBE for the page's offer: audio, the camera's three encodings (rid order, all enabled), and the stream
    wanted on the recvonly m-line."""
    frame = pb.SdkSignalFrame(type=pb.SdkSignalFrame.SUBSCRIBE)
    frame.sub.duplex = pb.DUPLEX
    audio = frame.sub.send_streams.add()
    audio.media_type, audio.track_label, audio.stream_id, audio.group_id = pb.AUDIO, "AmazonChimeExpressAudio", 1, 1
    audio.attendee_id = attendee.attendee_id
    for rid, scale, kbps in ENCODINGS:
        video = frame.sub.send_streams.add()
        video.media_type, video.track_label, video.framerate, video.max_bitrate_kbps = pb.VIDEO, "", FPS, kbps
        video.width, video.height = WIDTH // scale, HEIGHT // scale
        video.attendee_id = attendee.attendee_id
    frame.sub.receive_stream_ids.extend([0, *receive_stream_ids])
    frame.sub.sdp_offer = sdp
    frame.sub.audio_checkin = False
    frame.sub.audio_muted = False
    await attendee.send(frame)
    ack = await attendee.expect(pb.SdkSignalFrame.SUBSCRIBE_ACK)
    attendee.allocations = list(ack.suback.allocations)
    attendee.tracks = list(ack.suback.tracks)
    return ack.suback.sdp_answer


async def run():
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    binary = os.environ.get("CARILLON_BIN", ".build/debug/carillon")
    env = dict(os.environ, CARILLON_ACCESS_KEY_ID=ACCESS_KEY_ID, CARILLON_SECRET_ACCESS_KEY=SECRET_ACCESS_KEY)
    root = tempfile.mkdtemp(prefix="carillon-simulcast-")
    data_dir = os.path.join(root, "data")
    os.mkdir(data_dir)
    server = start_server(data_dir)
    chime = make_client(server.endpoint)
    meeting = chime.create_meeting(ClientRequestToken="simulcast", MediaRegion="us-east-1",
                                   ExternalMeetingId="simulcast")["Meeting"]
    person = chime.create_attendee(MeetingId=meeting["MeetingId"], ExternalUserId="chromium")["Attendee"]
    browser = ChimeAttendee(meeting["MediaPlacement"]["SignalingUrl"], person["JoinToken"], person["AttendeeId"],
                            AudioStreamTrack())
    loop = asyncio.get_running_loop()
    result = {}
    done = asyncio.Event()
    bots = {}
    chromium = None
    http_server = None
    profile = tempfile.mkdtemp(prefix="carillon-chromium-")
    try:
        await browser.join()
        for name, video_in in (("sdk-sender", "pattern:magenta"), ("sdk-viewer", None)):
            out = os.path.join(root, name)
            os.mkdir(out)
            bots[name] = run_bot(binary, server.endpoint, meeting["MeetingId"], name, out, video_in, env)
        # Three participants, two publishers once Chromium's camera is in: the SDK sender announces low + hi. Until
        # Chromium publishes it counts two publishers (itself and none else): low + hi as well. The layers' sizes come
        # in a later SUBSCRIBE (and INDEX) once the sender's camera gave its first picture: wait for them.
        deadline = time.monotonic() + 30
        sender_layers = []
        while time.monotonic() < deadline:
            index = browser.index
            if index is not None:
                sender_layers = [s for s in index.sources if s.external_user_id == "sdk-sender"]
                if len(sender_layers) >= 2 and all(s.width > 0 for s in sender_layers):
                    break
            await asyncio.sleep(0.1)
        result["sdkIndex"] = [{"streamId": s.stream_id, "kbps": s.max_bitrate_kbps, "width": s.width,
                               "height": s.height} for s in sender_layers]
        wanted = [max(sender_layers, key=lambda s: s.max_bitrate_kbps).stream_id] if sender_layers else []

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def reply(self, body, content_type="application/json"):
                data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
                self.send_response(200)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                if self.path == "/":
                    self.reply(PAGE, "text/html")
                elif self.path == "/config":
                    self.reply({"width": WIDTH, "height": HEIGHT, "fps": FPS, "encodings": ENCODINGS,
                                "color": chromium_video_page.PALETTE_RGB["cyan"], "decodedTarget": DECODED_TARGET})
                else:
                    self.send_error(404)

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if self.path == "/offer":
                    answer = asyncio.run_coroutine_threadsafe(subscribe(browser, body["sdp"], wanted), loop).result(30)
                    result["answer"] = answer
                    self.reply({"sdp": answer})
                elif self.path == "/result":
                    result["chromium"] = body
                    self.reply({})
                    loop.call_soon_threadsafe(done.set)
                else:
                    self.send_error(404)

        http_server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=http_server.serve_forever, daemon=True).start()
        chromium = subprocess.Popen([
            shutil.which("chromium"), "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
            f"--user-data-dir={profile}", "--allow-loopback-in-peer-connection",
            "--disable-features=WebRtcHideLocalIpsWithMdns", "--autoplay-policy=no-user-gesture-required",
            f"http://127.0.0.1:{http_server.server_address[1]}/",
        ], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            await asyncio.wait_for(done.wait(), 90)
        except asyncio.TimeoutError:
            result["chromium"] = {"error": "no browser result"}
        result["subscribeAck"] = {"allocations": [{"streamId": a.stream_id, "groupId": a.group_id}
                                                  for a in browser.allocations],
                                  "tracks": [{"streamId": t.stream_id, "ssrc": t.ssrc} for t in browser.tracks]}
    finally:
        if chromium is not None:
            chromium.kill()
            chromium.wait(timeout=10)
        for name, (process, lines) in bots.items():
            try:
                process.wait(timeout=BOT_SECONDS + 30)
            except subprocess.TimeoutExpired:
                process.kill()
            result.setdefault("bots", {})[name] = {"exit": process.returncode, "videoStats": last_video_stats(lines)}
            if process.returncode != 0:
                result["bots"][name]["output"] = "".join(lines)[-4000:]
        try:
            await browser.leave()
        except Exception as error:  # the session may already be gone; the result says what happened before
            result["leaveError"] = str(error)
        if http_server is not None:
            http_server.shutdown()
        stop_server(server)
        shutil.rmtree(profile, ignore_errors=True)
        shutil.rmtree(root, ignore_errors=True)
    result.pop("answer", None)
    print(json.dumps(result))


if __name__ == "__main__":
    asyncio.run(run())
