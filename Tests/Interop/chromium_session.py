"""One headless-Chromium session against `carillon peer`, meant to run inside a fresh network namespace whose only
interface is loopback (see test_rtc_chromium.py), so no packet can leave 127.0.0.0/8.

Usage: chromium_session.py offer|answer [video [--drop-every N] [--capture FILE]]   (the role Carillon takes). Prints
one JSON line: Carillon's result and Chromium's getStats figures. With `video` (see chromium_video_page.py) both sides
also send and decode VP8; `--drop-every N` makes Carillon leave out every Nth VP8 packet it sends and receives, so
both sides' NACK and RTX repair run; `--capture FILE` makes Carillon write the first VP8 packets it receives from
Chromium there (from a small textured canvas, for test fixtures).
"""
import argparse
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading

from carillon_peer import CarillonPeer
import chromium_video_page

PACKETS = 150

PAGE = """<!doctype html><meta charset="utf-8"><title>carillon interop</title><script>
const post = (path, body) => fetch(path, {method: 'POST', body: JSON.stringify(body)}).then(r => r.json());
async function gathered(pc) {
  if (pc.iceGatheringState === 'complete') return;
  await new Promise(resolve => pc.addEventListener('icegatheringstatechange',
    () => pc.iceGatheringState === 'complete' && resolve()));
}
async function main() {
  const pc = new RTCPeerConnection({bundlePolicy: 'max-bundle', rtcpMuxPolicy: 'require'});
  const audio = new AudioContext();
  const oscillator = audio.createOscillator();
  const destination = audio.createMediaStreamDestination();
  oscillator.connect(destination);
  oscillator.start();
  const track = destination.stream.getAudioTracks()[0];
  const role = await (await fetch('/role')).json();
  if (role.carillon === 'answer') {
    pc.addTransceiver(track, {direction: 'sendrecv', streams: [destination.stream]});
    await pc.setLocalDescription(await pc.createOffer());
    await gathered(pc);
    const answer = await post('/offer', {sdp: pc.localDescription.sdp});
    await pc.setRemoteDescription({type: 'answer', sdp: answer.sdp});
  } else {
    const offer = await (await fetch('/offer')).json();
    await pc.setRemoteDescription({type: 'offer', sdp: offer.sdp});
    pc.getTransceivers()[0].sender.replaceTrack(track);
    pc.getTransceivers()[0].direction = 'sendrecv';
    await pc.setLocalDescription(await pc.createAnswer());
    await gathered(pc);
    await post('/answer', {sdp: pc.localDescription.sdp});
  }
  const start = Date.now();
  while (pc.connectionState !== 'connected' && Date.now() - start < 20000) await new Promise(r => setTimeout(r, 50));
  const connectedState = pc.connectionState;
  await new Promise(r => setTimeout(r, 5000));
  const report = {connectionState: connectedState, inbound: 0, outbound: 0, dtlsState: null, srtpCipher: null};
  (await pc.getStats()).forEach(s => {
    if (s.type === 'inbound-rtp' && s.kind === 'audio') report.inbound += s.packetsReceived;
    if (s.type === 'outbound-rtp' && s.kind === 'audio') report.outbound += s.packetsSent;
    if (s.type === 'transport') { report.dtlsState = s.dtlsState; report.srtpCipher = s.srtpCipher; }
  });
  await post('/result', report);
}
main().catch(e => post('/result', {error: String(e)}));
</script>"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("role", choices=["offer", "answer"])
    parser.add_argument("media", nargs="?", choices=["video"])
    parser.add_argument("--drop-every", type=int, default=0)
    parser.add_argument("--capture")
    arguments = parser.parse_args()
    role, video = arguments.role, arguments.media == "video"
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    if video:
        peer = CarillonPeer(role, packets=PACKETS, duration=chromium_video_page.CARILLON_DURATION,
                            extra_args=chromium_video_page.carillon_arguments(arguments.drop_every, arguments.capture))
        page = chromium_video_page.PAGE
        config = chromium_video_page.CAPTURE_CONFIG if arguments.capture else chromium_video_page.CONFIG
    else:
        peer = CarillonPeer(role, packets=PACKETS, duration=6.0)
        page, config = PAGE, {}
    browser_result = {}
    done = threading.Event()

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
                self.reply(page, "text/html")
            elif self.path == "/role":
                self.reply({"carillon": role, **config})
            elif self.path == "/offer":
                self.reply({"sdp": peer.next("offer")["sdp"]})
            else:
                self.send_error(404)

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            if self.path == "/offer":
                peer.send({"type": "offer", "sdp": body["sdp"]})
                self.reply({"sdp": peer.next("answer")["sdp"]})
            elif self.path == "/answer":
                peer.send({"type": "answer", "sdp": body["sdp"]})
                self.reply({})
            elif self.path == "/result":
                browser_result.update(body)
                self.reply({})
                done.set()
            else:
                self.send_error(404)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    profile = tempfile.mkdtemp(prefix="carillon-chromium-")
    browser = subprocess.Popen([
        shutil.which("chromium"), "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
        f"--user-data-dir={profile}", "--allow-loopback-in-peer-connection",
        "--disable-features=WebRtcHideLocalIpsWithMdns", "--autoplay-policy=no-user-gesture-required",
        "--use-fake-ui-for-media-stream", f"http://127.0.0.1:{server.server_address[1]}/",
    ], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        finished = done.wait(timeout=90 if video else 60)
        carillon = peer.next("result", timeout=30) if finished else {"error": "no browser result"}
    finally:
        browser.kill()
        browser.wait(timeout=10)
        peer.close()
        server.shutdown()
        shutil.rmtree(profile, ignore_errors=True)
    print(json.dumps({"carillon": carillon, "chromium": browser_result}))


if __name__ == "__main__":
    main()
