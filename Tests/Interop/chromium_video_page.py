"""The page and settings of a Chromium session with video against `carillon peer --video` (chromium_session.py).

Both sides draw the layout of Carillon's VideoTestPattern, so each can read the other's pictures back: a 20 x 10 grid
whose top two rows hold a 16-bit frame counter and its CRC-8 as 24 black/white cells (columns 0-11) and a flat
colour area (columns 12-19), with moving content below. Chromium draws it on a canvas and sends `captureStream()`;
Carillon reads the counter and colour of every picture it decodes. Carillon sends its own pattern; the page draws
the received <video> into a canvas and reads a counter and the colour area's pixels from two pictures two seconds
apart (the counters must have moved on as the time between them says), and reports getStats figures (frames
decoded, size, key frames, frame rate over that window).
"""

WIDTH, HEIGHT, FPS = 320, 180, 15
# What each side paints in its colour area: Chromium cyan, Carillon magenta (VideoTestPattern.Color's RGB values).
CHROMIUM_COLOR, CARILLON_COLOR = "cyan", "magenta"
PALETTE_RGB = {"cyan": (40, 200, 210), "magenta": (210, 50, 200)}
# Frames Chromium must have decoded before the page measures: three seconds of Carillon's video.
DECODED_TARGET = 3 * FPS
# The page waits at most this long for that (seconds after connecting); then measures for two seconds.
DECODE_WAIT = 10
# Carillon's run from connecting to its result: longer than the page's whole measurement, so video flows
# throughout it.
CARILLON_DURATION = 16.0

CONFIG = {"video": {"width": WIDTH, "height": HEIGHT, "fps": FPS, "color": PALETTE_RGB[CHROMIUM_COLOR],
                    "decodedTarget": DECODED_TARGET, "decodeWait": DECODE_WAIT, "texture": False}}
# For capturing packets as test fixtures: a small picture whose lower part is blocky noise, so even a small key frame
# spans more than one packet.
CAPTURE_CONFIG = {"video": {**CONFIG["video"], "width": 160, "height": 96, "texture": True}}


def carillon_arguments(drop_every=0, capture=None):
    arguments = ["--video", "--video-size", f"{WIDTH}x{HEIGHT}", "--video-fps", str(FPS),
                 "--video-color", CARILLON_COLOR, "--video-drop-every", str(drop_every)]
    if capture:
        arguments += ["--capture-video", capture, "--capture-frames", "5"]
    return arguments


PAGE = """<!doctype html><meta charset="utf-8"><title>carillon video interop</title><body><script>
const post = (path, body) => fetch(path, {method: 'POST', body: JSON.stringify(body)}).then(r => r.json());
const pause = ms => new Promise(r => setTimeout(r, ms));
async function gathered(pc) {
  if (pc.iceGatheringState === 'complete') return;
  await new Promise(resolve => pc.addEventListener('icegatheringstatechange',
    () => pc.iceGatheringState === 'complete' && resolve()));
}
// CRC-8, polynomial 0x07, initial 0xFF, over the counter's two bytes high first (as VideoTestPattern).
function crc8(counter) {
  let crc = 0xFF;
  for (const byte of [counter >> 8, counter & 0xFF]) {
    crc ^= byte;
    for (let i = 0; i < 8; i++) crc = crc & 0x80 ? ((crc << 1) ^ 0x07) & 0xFF : (crc << 1) & 0xFF;
  }
  return crc;
}
const cellLeft = (column, width) => Math.floor(column * width / 20);
const cellTop = (row, height) => Math.floor(row * height / 10);
let noise = null;
// Grey noise in 4x4-pixel blocks from a fixed linear congruential sequence (the same every run).
function makeNoise(width, height) {
  const image = new ImageData(width, height);
  const columns = Math.ceil(width / 4), levels = [];
  let state = 12345;
  for (let block = 0; block < columns * Math.ceil(height / 4); block++) {
    state = (state * 1103515245 + 12345) % 2147483648;
    levels.push(64 + (state >> 16) % 128);
  }
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) {
    const at = 4 * (y * width + x), level = levels[Math.floor(y / 4) * columns + Math.floor(x / 4)];
    image.data[at] = image.data[at + 1] = image.data[at + 2] = level;
    image.data[at + 3] = 255;
  }
  return image;
}
function drawPattern(context, width, height, frame, rgb) {
  const counter = frame & 0xFFFF, bits = counter * 256 + crc8(counter);
  for (let index = 0; index < 24; index++) {
    const row = Math.floor(index / 12), column = index % 12;
    context.fillStyle = (bits >> (23 - index)) & 1 ? '#ffffff' : '#000000';
    context.fillRect(cellLeft(column, width), cellTop(row, height),
                     cellLeft(column + 1, width) - cellLeft(column, width), cellTop(row + 1, height) - cellTop(row, height));
  }
  context.fillStyle = `rgb(${rgb[0]}, ${rgb[1]}, ${rgb[2]})`;
  context.fillRect(cellLeft(12, width), 0, width - cellLeft(12, width), cellTop(2, height));
  const top = cellTop(2, height);
  if (noise) {
    // Moving detail: the noise field scrolls sideways two pixels a picture.
    const shift = (frame * 2) % width;
    context.putImageData(noise, -shift, top);
    context.putImageData(noise, width - shift, top);
    return;
  }
  // Moving content below: a grey field with a light bar drifting across and a dark one drifting down.
  context.fillStyle = '#606060';
  context.fillRect(0, top, width, height - top);
  context.fillStyle = '#d0d0d0';
  context.fillRect((frame * 7) % width, top, Math.floor(width / 12), height - top);
  context.fillStyle = '#202020';
  context.fillRect(0, top + (frame * 3) % (height - top), width, Math.floor(height / 20));
}
function mean(data, width, xs, ys) {
  let r = 0, g = 0, b = 0, n = 0;
  for (let y = ys[0]; y < ys[1]; y++) for (let x = xs[0]; x < xs[1]; x++) {
    const at = 4 * (y * width + x);
    r += data[at]; g += data[at + 1]; b += data[at + 2]; n++;
  }
  return [r / n, g / n, b / n];
}
// Reads the counter (null unless every cell is clear and the CRC matches) and the colour area of the picture
// the <video> shows, with the thresholds of VideoPatternReading.
function readPattern(video) {
  const width = video.videoWidth, height = video.videoHeight;
  const canvas = document.createElement('canvas');
  canvas.width = width; canvas.height = height;
  const context = canvas.getContext('2d', {willReadFrequently: true});
  context.drawImage(video, 0, 0, width, height);
  const data = context.getImageData(0, 0, width, height).data;
  let bits = 0, clear = true;
  for (let index = 0; index < 24 && clear; index++) {
    const row = Math.floor(index / 12), column = index % 12;
    const left = cellLeft(column, width), right = cellLeft(column + 1, width);
    const top = cellTop(row, height), bottom = cellTop(row + 1, height);
    const insetX = Math.floor((right - left) / 4), insetY = Math.floor((bottom - top) / 4);
    const [r, g, b] = mean(data, width, [left + insetX, right - insetX], [top + insetY, bottom - insetY]);
    const luma = 0.299 * r + 0.587 * g + 0.114 * b;
    if (luma > 160) bits = bits * 2 + 1; else if (luma < 96) bits = bits * 2; else clear = false;
  }
  const counter = Math.floor(bits / 256);
  const margin = [Math.max(1, Math.floor(width / 80)), Math.max(1, Math.floor(height / 40))];
  const color = mean(data, width, [cellLeft(12, width) + margin[0], width - margin[0]],
                     [margin[1], cellTop(2, height) - margin[1]]).map(Math.round);
  return {counter: clear && crc8(counter) === (bits & 0xFF) ? counter : null, color, width, height,
          at: performance.now()};
}
async function videoStats(pc) {
  const figures = {inbound: null, outbound: null, audioInbound: 0, audioOutbound: 0, dtlsState: null, srtpCipher: null,
                   at: performance.now()};
  (await pc.getStats()).forEach(s => {
    if (s.type === 'inbound-rtp' && s.kind === 'video') figures.inbound = {
      framesDecoded: s.framesDecoded, keyFramesDecoded: s.keyFramesDecoded, frameWidth: s.frameWidth,
      frameHeight: s.frameHeight, framesPerSecond: s.framesPerSecond, framesDropped: s.framesDropped,
      freezeCount: s.freezeCount, packetsReceived: s.packetsReceived, packetsLost: s.packetsLost,
      nackCount: s.nackCount, pliCount: s.pliCount, firCount: s.firCount, decoderImplementation: s.decoderImplementation};
    if (s.type === 'outbound-rtp' && s.kind === 'video') figures.outbound = {
      framesEncoded: s.framesEncoded, framesSent: s.framesSent, keyFramesEncoded: s.keyFramesEncoded,
      frameWidth: s.frameWidth, frameHeight: s.frameHeight, framesPerSecond: s.framesPerSecond,
      qualityLimitationReason: s.qualityLimitationReason, nackCount: s.nackCount, pliCount: s.pliCount,
      targetBitrate: s.targetBitrate, retransmittedPacketsSent: s.retransmittedPacketsSent};
    if (s.type === 'remote-inbound-rtp' && s.kind === 'video') figures.remoteInbound = {
      roundTripTime: s.roundTripTime, roundTripTimeMeasurements: s.roundTripTimeMeasurements,
      packetsLost: s.packetsLost, fractionLost: s.fractionLost};
    if (s.type === 'inbound-rtp' && s.kind === 'audio') figures.audioInbound += s.packetsReceived;
    if (s.type === 'outbound-rtp' && s.kind === 'audio') figures.audioOutbound += s.packetsSent;
    if (s.type === 'transport') { figures.dtlsState = s.dtlsState; figures.srtpCipher = s.srtpCipher; }
  });
  return figures;
}
async function main() {
  const config = await (await fetch('/role')).json();
  const settings = config.video;
  // The camera: a canvas with the pattern, redrawn at the frame rate.
  const canvas = document.createElement('canvas');
  canvas.width = settings.width; canvas.height = settings.height;
  const drawing = canvas.getContext('2d');
  if (settings.texture) noise = makeNoise(settings.width, settings.height - cellTop(2, settings.height));
  let frame = 0;
  drawPattern(drawing, settings.width, settings.height, frame, settings.color);
  setInterval(() => drawPattern(drawing, settings.width, settings.height, ++frame, settings.color), 1000 / settings.fps);
  const camera = canvas.captureStream(settings.fps);
  const videoTrack = camera.getVideoTracks()[0];
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
  if (config.carillon === 'answer') {
    pc.addTransceiver(audioTrack, {direction: 'sendrecv', streams: [stream]});
    pc.addTransceiver(videoTrack, {direction: 'sendrecv', streams: [stream]});
    await pc.setLocalDescription(await pc.createOffer());
    await gathered(pc);
    const answer = await post('/offer', {sdp: pc.localDescription.sdp});
    await pc.setRemoteDescription({type: 'answer', sdp: answer.sdp});
  } else {
    const offer = await (await fetch('/offer')).json();
    await pc.setRemoteDescription({type: 'offer', sdp: offer.sdp});
    for (const transceiver of pc.getTransceivers()) {
      const kind = transceiver.receiver.track.kind;
      await transceiver.sender.replaceTrack(kind === 'video' ? videoTrack : audioTrack);
      transceiver.sender.setStreams(stream);
      transceiver.direction = 'sendrecv';
    }
    await pc.setLocalDescription(await pc.createAnswer());
    await gathered(pc);
    await post('/answer', {sdp: pc.localDescription.sdp});
  }
  // A camera whose size never changes, whatever the bandwidth or CPU estimates say (the test checks the size).
  for (const sender of pc.getSenders()) {
    if (sender.track?.kind !== 'video') continue;
    const parameters = sender.getParameters();
    parameters.degradationPreference = 'maintain-resolution';
    await sender.setParameters(parameters);
  }
  const start = Date.now();
  while (pc.connectionState !== 'connected' && Date.now() - start < 20000) await pause(50);
  const connectedState = pc.connectionState;
  // Bounded wait for Carillon's video to be decoded, then a two-second measurement window.
  const connectedAt = Date.now();
  let before = await videoStats(pc);
  while ((before.inbound?.framesDecoded ?? 0) < settings.decodedTarget
         && Date.now() - connectedAt < settings.decodeWait * 1000) {
    await pause(100);
    before = await videoStats(pc);
  }
  const first = received.videoWidth > 0 ? readPattern(received) : null;
  await pause(2000);
  const second = received.videoWidth > 0 ? readPattern(received) : null;
  const after = await videoStats(pc);
  const seconds = (after.at - before.at) / 1000;
  const fps = after.inbound && before.inbound
    ? Math.round((after.inbound.framesDecoded - before.inbound.framesDecoded) / seconds * 10) / 10 : 0;
  await post('/result', {connectionState: connectedState, dtlsState: after.dtlsState, srtpCipher: after.srtpCipher,
                         inbound: after.audioInbound, outbound: after.audioOutbound,
                         video: {inbound: after.inbound, outbound: after.outbound, remoteInbound: after.remoteInbound, decodedFps: fps,
                                 windowSeconds: seconds, pictures: [first, second]}});
}
main().catch(e => post('/result', {error: String(e)}));
</script>"""
