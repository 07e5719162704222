// Carillon join page: the meeting client. It checks the devices, creates the guest's attendee with a POST to the
// invite URL, then speaks Chime signaling over WebSocket and WebRTC as the Chime JS SDK does
// (shared/specs/signaling.md §3, video.md §3, policies.md §1 and §3.1): JOIN, SUBSCRIBE with rid simulcast and
// server-side layer selection (adaptation mode 4), the roster from AUDIO_STREAM_ID_INFO, speakers from
// AUDIO_METADATA, chat as DATA_MESSAGE, screen sharing as a second `<attendee>#content` session, and reconnection.
//
// The frame builders and policy tables at the top are pure and exported, so tests can run them under node; the
// page itself starts only where there is a document. `window.carillonMeeting` is the test and diagnosis surface.

import {encodeFrame, decodeFrame, FrameType, ENUMS, enumName} from './signaling-codec.js';

const MediaType = ENUMS.SdkStreamMediaType;
const Adaption = ENUMS.SdkServerSideNetworkAdaption;
const ServiceType = ENUMS.SdkStreamServiceType;
const Quality = ENUMS.SdkVideoQualityAdaptationPreference;
const PingPong = ENUMS.SdkPingPongType;

export const CLIENT_SOURCE = 'carillon-join-page';
const CONTENT_SUFFIX = '#content';

// Timing (signaling.md §5).
const PING_INTERVAL_MS = 10_000;
const MISSED_PONGS_LIMIT = 4;
const CONNECTION_TIMEOUT_MS = 15_000;
const LEAVE_ACK_TIMEOUT_MS = 2_000;
const CLOSE_TIMEOUT_MS = 2_000;
const RECONNECT_BUDGET_MS = 120_000;
// ICE "disconnected" can recover by itself; only a long outage is worth a full reconnect.
const ICE_DISCONNECTED_GRACE_MS = 10_000;
const DEFAULT_VIDEO_SUBSCRIPTION_LIMIT = 25;

// Chat (signaling.md §3.19): UTF-8 text on one topic, kept by the server for late joiners.
export const CHAT_TOPIC = 'chat';
export const CHAT_LIFETIME_MS = 300_000;
const CHAT_MAX_BYTES = 2048;

// Video: the JS SDK's default capture (video.md §3) and its content-share cap.
const CAMERA_CAPTURE = {width: {ideal: 960}, height: {ideal: 540}, frameRate: {ideal: 15}};
const CAMERA_FRAMERATE = 15;
const CONTENT_FRAMERATE = 15;
const CONTENT_MAX_BITRATE_KBPS = 1500;
// A screen share's start is tried this many times (with the reconnect backoff between) while failures can be retried.
const SHARE_START_ATTEMPTS = 3;
const DEFAULT_PAGE_SIZE = 6;
// Received video is paused (C→S PAUSE) once the tab has been hidden this long, and resumed when it shows again.
// Long, because a hidden tab may still be heard and glanced back at (and headless Chromium hides every tab but the
// newest one).
const HIDDEN_PAUSE_MS = 60_000;

// Active speaker (policies.md §1.2).
const SPEAKING_THRESHOLD = 0.2;
const SPEAKER_WEIGHT = 0.9;
const SPEAKER_TAKEOVER = 0.2;
const SPEAKER_CUTOFF = 0.01;
const METADATA_STALE_MS = 1000;
// Moving the active speaker to the front reorders pages: only for someone on top for this long.
const SPEAKER_REORDER_MS = 2000;

// Downlink preferences (signaling.md §3.10): app priority 1 is the most important; targets are Chime's steps.
const PRIORITY_CONTENT = 1, PRIORITY_SPEAKER = 2, PRIORITY_CAMERA = 3;
const TARGET_HIGH_KBPS = 1500, TARGET_MEDIUM_KBPS = 600;
const MAX_UINT32 = 4294967295;

// ---------------------------------------------------------------------------------------------------------------
// Pure helpers (exported for tests)

/** The name to show for an ExternalUserId: the join page's `<8 hex>#<name>` loses its prefix; others stay whole. */
export function displayNameOf(externalUserId) {
  const text = String(externalUserId ?? '');
  const withoutContent = text.endsWith(CONTENT_SUFFIX) ? text.slice(0, -CONTENT_SUFFIX.length) : text;
  return withoutContent.replace(/^[0-9a-f]{8}#/, '');
}

/** Up to two initials for a tile without video. */
export function initialsOf(name) {
  const words = String(name).trim().split(/[\s._-]+/).filter(Boolean);
  if (words.length === 0) return '?';
  const letters = words.length === 1 ? [...words[0]].slice(0, 2) : [[...words[0]][0], [...words[words.length - 1]][0]];
  return letters.join('').toUpperCase();
}

/** AUDIO_METADATA volume (dB below full scale) as a 0..1 level (signaling.md §3.14). */
export function speakingLevel(volume) {
  return Math.min(1, Math.max(0, (42 - volume) / 28));
}

/**
 * The camera's simulcast layers in rid order low, mid, hi (DefaultSimulcastUplinkPolicy, policies.md §3.1, HD
 * targets): each with whether it is sent, its cap (0 when off) and its down-scaling.
 * `numParticipants` is INDEX.num_participants (0 = unknown); `senders` counts video publishers including this one.
 */
export function uplinkLayers(numParticipants, senders) {
  const layer = (rid, kbps, scale) => ({rid, active: kbps > 0, maxBitrateKbps: kbps, scaleResolutionDownBy: scale});
  if (numParticipants > 0 && numParticipants <= 2) {
    // One stream at the high target, not down-scaled: it goes out on the mid rid.
    return [layer('low', 0, 4), layer('mid', 1200, 1), layer('hi', 0, 1)];
  }
  if (senders <= 4) return [layer('low', 300, 4), layer('mid', 0, 2), layer('hi', 1200, 1)];
  if (senders <= 6) return [layer('low', 200, 4), layer('mid', 600, 2), layer('hi', 0, 1)];
  return [layer('low', 200, 4), layer('mid', 360, 2), layer('hi', 0, 1)];
}

/** The encodings the camera transceiver starts with (video.md §3: ÷4/÷2/÷1 at 200/400/1100 kbps). */
export const INITIAL_CAMERA_ENCODINGS = [
  {rid: 'low', scaleResolutionDownBy: 4, maxBitrate: 200_000, maxFramerate: CAMERA_FRAMERATE},
  {rid: 'mid', scaleResolutionDownBy: 2, maxBitrate: 400_000, maxFramerate: CAMERA_FRAMERATE},
  {rid: 'hi', scaleResolutionDownBy: 1, maxBitrate: 1_100_000, maxFramerate: CAMERA_FRAMERATE},
];

/**
 * SUBSCRIBE.receive_stream_ids for an offer: one entry per m=video section in SDP order, the wanted stream id for a
 * recvonly section whose mid is in `streamIdByMid`, else 0 (the camera section, stopped or inactive ones).
 */
export function receiveStreamIdsFromSdp(sdp, streamIdByMid) {
  const sections = sdp.split(/\r?\n(?=m=)/).slice(1);
  const ids = [];
  for (const section of sections) {
    if (!section.startsWith('m=video ')) continue;
    const port = section.split(' ')[1];
    const mid = /(?:^|\n)a=mid:(\S+)/.exec(section)?.[1];
    const recvonly = /(?:^|\n)a=recvonly\r?$/m.test(section);
    // Port 0 is a stopped section, unless it is bundle-only (Firefox offers every section after the first so).
    const stopped = port === '0' && !/(?:^|\n)a=bundle-only\r?$/m.test(section);
    ids.push(!stopped && recvonly && streamIdByMid.has(mid) ? streamIdByMid.get(mid) : 0);
  }
  return ids;
}

/** The offer text as the JS client sends it (signaling.md §4.2): the origin line's `o=-` becomes `o=mozilla-chrome`. */
export function offerForSubscribe(sdp) {
  return sdp.replace(/^o=- /m, 'o=mozilla-chrome ');
}

/** The answer as the JS client applies it (signaling.md §4.12): server-reflexive candidates removed. */
export function answerForBrowser(sdp) {
  return sdp.split(/\r\n/).filter(line => !/^a=candidate:.* typ srflx/.test(line)).join('\r\n');
}

/** A frame with its send time, ready for encodeFrame. */
export function stampFrame(frame, nowMs = Date.now()) {
  return {...frame, timestamp_ms: BigInt(nowMs)};
}

/** JOIN (signaling.md §2.3): the camera session asks for server-side layer selection; a content session does not. */
export function joinFrame({audioSessionId, content = false, clientDetails = {}}) {
  const join = {
    protocol_version: 2,
    flags: ENUMS.SdkJoinFlags.HAS_STREAM_UPDATE,
    client_details: {...clientDetails, client_source: CLIENT_SOURCE},
    audio_session_id: BigInt(audioSessionId),
    wants_compressed_sdp: false,
    server_side_network_adaption: content ? Adaption.DEFAULT : Adaption.BANDWIDTH_PROBING_AND_VIDEO_QUALITY_ADAPTION,
    supported_server_side_network_adaptions: content ? [] : [
      Adaption.NONE, Adaption.BANDWIDTH_PROBING, Adaption.BANDWIDTH_PROBING_AND_VIDEO_QUALITY_ADAPTION],
    wants_all_temporal_layers_in_index: !content,
    disable_periodic_keyframe_request_on_content_sender: false,
  };
  return {type: FrameType.JOIN, join};
}

/** The fixed audio send-stream descriptor of every SUBSCRIBE (signaling.md §3.6). */
export function audioDescriptor(attendeeId) {
  return {
    stream_id: 1, framerate: 15, max_bitrate_kbps: 600, track_label: 'AmazonChimeExpressAudio', group_id: 1,
    avg_bitrate_bps: 400000, attendee_id: attendeeId, media_type: MediaType.AUDIO,
  };
}

/**
 * SUBSCRIBE (signaling.md §3.6).
 * - `cameraLayers`: the simulcast layers when the camera is sent (rid order), with `allocations` from the previous
 *   SUBSCRIBE_ACK giving their stream and group ids;
 * - `contentVideo`: true for a content session sending its screen as one encoding;
 * - `subscriptions`: per receive mid {mid, attendeeId, groupId, priority (1 = most important), targetBitrateKbps,
 *   quality}; sent only in adaptation modes 3 and 4 (pass null otherwise).
 */
export function subscribeFrame({attendeeId, sdpOffer, audioHost, audioMuted, cameraLayers = null, allocations = [],
                                contentVideo = false, receiveStreamIds, subscriptions = null}) {
  const sendStreams = [];
  if (audioHost) sendStreams.push(audioDescriptor(attendeeId));
  if (cameraLayers) {
    cameraLayers.forEach((layer, index) => {
      const descriptor = {
        framerate: CAMERA_FRAMERATE, max_bitrate_kbps: layer.active ? layer.maxBitrateKbps : 0, track_label: '',
        attendee_id: attendeeId, media_type: MediaType.VIDEO,
      };
      const allocation = allocations[index];
      if (allocation?.stream_id) descriptor.stream_id = allocation.stream_id;
      if (allocation?.group_id) descriptor.group_id = allocation.group_id;
      sendStreams.push(descriptor);
    });
  }
  if (contentVideo) {
    sendStreams.push({
      stream_id: 2, framerate: CONTENT_FRAMERATE, max_bitrate_kbps: CONTENT_MAX_BITRATE_KBPS,
      track_label: 'AmazonChimeExpressVideo', group_id: 2, attendee_id: attendeeId, media_type: MediaType.VIDEO,
    });
  }
  const sub = {
    duplex: cameraLayers || contentVideo ? ServiceType.DUPLEX : ServiceType.RX,
    send_streams: sendStreams,
    receive_stream_ids: receiveStreamIds,
    sdp_offer: offerForSubscribe(sdpOffer),
  };
  if (audioHost) {
    sub.audio_host = audioHost;
    sub.audio_checkin = false;
    sub.audio_muted = Boolean(audioMuted);
  }
  if (subscriptions) sub.video_subscription_configuration = subscriptions.map(subscriptionConfiguration);
  return {type: FrameType.SUBSCRIBE, sub};
}

/** One SdkVideoSubscriptionConfiguration; the wire priority is 2^32 - 1 - p (larger = more important). */
export function subscriptionConfiguration({mid, attendeeId, groupId, priority, targetBitrateKbps, quality}) {
  return {
    mid, attendee_id: attendeeId, group_id: groupId, priority: MAX_UINT32 - priority,
    target_bitrate_kbps: targetBitrateKbps, quality_adaptation_preference: quality,
  };
}

/** REMOTE_VIDEO_UPDATE: changed subscription preferences without renegotiation (signaling.md §3.10). */
export function remoteVideoUpdateFrame(updated, removedMids = []) {
  return {
    type: FrameType.REMOTE_VIDEO_UPDATE,
    remote_video_update: {
      added_or_updated_video_subscriptions: updated.map(subscriptionConfiguration),
      removed_video_subscription_mids: removedMids,
    },
  };
}

export function audioControlFrame(muted) {
  return {type: FrameType.AUDIO_CONTROL, audio_control: {muted: Boolean(muted)}};
}

/** One chat message: UTF-8 text on the chat topic, kept by the server for late joiners. */
export function chatFrame(text, lifetimeMs = CHAT_LIFETIME_MS) {
  return {
    type: FrameType.DATA_MESSAGE,
    data_message: {messages: [{topic: CHAT_TOPIC, data: new TextEncoder().encode(text), lifetime_ms: lifetimeMs}]},
  };
}

export function pingFrame(pingId) {
  return {type: FrameType.PING_PONG, ping_pong: {type: PingPong.PING, ping_id: pingId >>> 0}};
}

export function pongFrame(pingId) {
  return {type: FrameType.PING_PONG, ping_pong: {type: PingPong.PONG, ping_id: pingId >>> 0}};
}

export function leaveFrame() {
  return {type: FrameType.LEAVE, leave: {}};
}

/** C→S PAUSE or RESUME of received streams (signaling.md §3.11). */
export function pauseFrame(streamIds, resume = false) {
  return {type: resume ? FrameType.RESUME : FrameType.PAUSE, pause: {stream_ids: streamIds, group_ids: []}};
}

/** Reconnect back-off: full jitter, random × min(5 s, 1 s × 2^retry) (policies.md §5.2). */
export function backoffDelayMs(retry, random = Math.random()) {
  return random * Math.min(5000, 1000 * 2 ** retry);
}

// ---------------------------------------------------------------------------------------------------------------
// Session errors and how each status is read

/** Why a connection attempt or session stops: kind 'retry' (reconnect), 'ended' (meeting over) or 'terminal'. */
class SessionError extends Error {
  constructor(kind, message) {
    super(message);
    this.kind = kind;
  }
}

const asSessionError = (error, kind = 'retry') =>
  error instanceof SessionError ? error : new SessionError(kind, error?.message ?? String(error));

/** What an `error.status` on any server frame means (signaling.md §3.17); null when nothing. */
export function errorStatusOutcome(status) {
  if (!status || (status >= 200 && status < 300 && status !== 206)) return null;
  if (status === 206) return {kind: 'view-only', message: 'The meeting cannot take more cameras; yours is off.'};
  if (status === 410) return {kind: 'ended', message: 'The meeting has ended.'};
  if (status === 403) return {kind: 'terminal', message: 'The server did not accept this attendee (403).'};
  if (status === 409) return {kind: 'terminal', message: 'The meeting is full.'};
  if (status === 509) return {kind: 'terminal', message: 'The meeting has no room for more video (509).'};
  if (status >= 400 && status < 500) return {kind: 'terminal', message: `The server refused a request (${status}).`};
  if (status >= 500 && status < 600) return {kind: 'retry', message: `Server trouble (${status}).`};
  return {kind: 'terminal', message: `The server sent an unexpected status (${status}).`};
}

/** What an AUDIO_STATUS means (signaling.md §3.16); null when nothing. */
export function audioStatusOutcome(status) {
  if (status === undefined || (status >= 200 && status < 300) || status === 302) return null;
  if (status === 301) return {kind: 'terminal', message: 'You joined this meeting from another device or tab.'};
  if (status === 410) return {kind: 'ended', message: 'The meeting has ended.'};
  if (status === 409) return {kind: 'terminal', message: 'The meeting is full.'};
  if (status === 411) return {kind: 'terminal', message: 'You were removed from the meeting.'};
  if (status === 403) return {kind: 'terminal', message: 'The server did not accept this attendee (403).'};
  if (status === 500 || status === 503) return {kind: 'retry', message: `Audio service trouble (${status}).`};
  return {kind: 'terminal', message: `Disconnected from the meeting's audio (${status}).`};
}

/**
 * What a WebSocket close means in a phase (signaling.md §1.7): 'joining' (waiting for JOIN_ACK and INDEX),
 * 'subscribing' (waiting for the first SUBSCRIBE_ACK and ICE) or 'connected'.
 */
export function closeOutcome(phase, code) {
  const serverTrouble = code >= 4500 && code <= 4599;
  if (phase === 'joining') {
    if (code === 4410) return {kind: 'ended', message: 'The meeting has ended.'};
    if (serverTrouble) return {kind: 'retry', message: `The server asked to try again (${code}).`};
    return {kind: 'terminal', message: `The server refused to let you in (close code ${code}).`};
  }
  if (phase === 'subscribing') return {kind: 'retry', message: `The connection closed while joining (${code}).`};
  if (code === 4410) return {kind: 'ended', message: 'The meeting has ended.'};
  // Other application codes are permanent refusals; the reference client ignores them once connected, which leaves
  // a person in a meeting with a dead control channel, so the page says so instead.
  if (code >= 4000 && code <= 4499) return {kind: 'terminal', message: `Disconnected by the server (close code ${code}).`};
  return {kind: 'retry', message: `The connection to the meeting was lost (${code}).`};
}

// ---------------------------------------------------------------------------------------------------------------
// Browser-side helpers

const log = (...parts) => console.log('carillon:', ...parts);
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));

function withTimeout(promise, ms, message) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new SessionError('retry', message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function random32() {
  return crypto.getRandomValues(new Uint32Array(1))[0];
}

function utcOffset() {
  const minutes = -new Date().getTimezoneOffset();
  const sign = minutes >= 0 ? '+' : '-';
  const absolute = Math.abs(minutes);
  return `${sign}${String(Math.floor(absolute / 60)).padStart(2, '0')}:${String(absolute % 60).padStart(2, '0')}`;
}

function browserClientDetails() {
  const agent = navigator.userAgent;
  const browser = /Edg\/([\d.]+)/.exec(agent) ? ['edge', /Edg\/([\d.]+)/.exec(agent)[1]]
    : /(?:Chrome|Chromium)\/([\d.]+)/.exec(agent) ? ['chrome', /(?:Chrome|Chromium)\/([\d.]+)/.exec(agent)[1]]
      : /Firefox\/([\d.]+)/.exec(agent) ? ['firefox', /Firefox\/([\d.]+)/.exec(agent)[1]]
        : /Version\/([\d.]+).*Safari/.exec(agent) ? ['safari', /Version\/([\d.]+)/.exec(agent)[1]]
          : ['unknown', ''];
  const os = /Android/.test(agent) ? 'Android' : /iPhone|iPad/.test(agent) ? 'iOS' : /Windows/.test(agent) ? 'Windows'
    : /Mac OS X/.test(agent) ? 'Mac OS' : /Linux/.test(agent) ? 'Linux' : '';
  const details = {platform_name: browser[0], platform_version: browser[1], client_utc_offset: utcOffset()};
  if (os) details.os_name = os;
  return details;
}

function describeMediaError(error, device) {
  const what = device === 'microphone' ? 'microphone' : 'camera';
  switch (error?.name) {
    case 'NotAllowedError':
    case 'SecurityError':
      return `Access to the ${what} was refused. You can still join; to use it, allow it in the browser's site settings and reload.`;
    case 'NotFoundError':
    case 'OverconstrainedError':
      return `No ${what} was found. You can still join without one.`;
    case 'NotReadableError':
      return `The ${what} is in use by another application or could not be started.`;
    default:
      return `The ${what} could not be opened (${error?.name ?? 'error'}: ${error?.message ?? ''}).`;
  }
}

async function waitForIceGathering(pc, timeoutMs) {
  if (pc.iceGatheringState === 'complete') return;
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      pc.removeEventListener('icegatheringstatechange', check);
      reject(new SessionError('retry', 'ICE gathering did not complete'));
    }, timeoutMs);
    function check() {
      if (pc.iceGatheringState !== 'complete') return;
      clearTimeout(timer);
      pc.removeEventListener('icegatheringstatechange', check);
      resolve();
    }
    pc.addEventListener('icegatheringstatechange', check);
  });
  if (!/\r\na=candidate:/.test(pc.localDescription.sdp)) throw new SessionError('retry', 'no ICE candidate was gathered');
}

async function waitForIceConnected(pc, timeoutMs) {
  const connected = () => ['connected', 'completed'].includes(pc.iceConnectionState);
  if (connected()) return;
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(new SessionError('retry', 'the media connection did not come up')), timeoutMs);
    function finish(error) {
      clearTimeout(timer);
      pc.removeEventListener('iceconnectionstatechange', check);
      error ? reject(error) : resolve();
    }
    function check() {
      if (connected()) finish();
      else if (pc.iceConnectionState === 'failed' || pc.iceConnectionState === 'closed') {
        finish(new SessionError('retry', 'the media connection failed'));
      }
    }
    pc.addEventListener('iceconnectionstatechange', check);
  });
}

// ---------------------------------------------------------------------------------------------------------------
// One signaling WebSocket

/**
 * A signaling connection: binary frames (0x05 + SdkSignalFrame), PING every 10 s with PONGs counted, answers to
 * server PINGs, and `expect(type)` for the next frame of a type. `onFrame` sees every other frame; `onClose` hears
 * of closes it did not ask for; `onUnhealthy` of four PINGs in a row without an answer.
 */
class SignalingChannel {
  constructor({url, token, label, onFrame, onClose, onUnhealthy}) {
    this.url = url;
    this.token = token;
    this.label = label;
    this.onFrame = onFrame;
    this.onClose = onClose;
    this.onUnhealthy = onUnhealthy;
    this.waiters = new Set();
    this.pingId = 0;
    this.pongPending = false;
    this.missedPongs = 0;
    this.pingTimer = null;
    this.closedByUs = false;
    this.closed = false;
    this.closeCode = null;
    this.closeWaiters = [];
  }

  open(timeoutMs) {
    return new Promise((resolve, reject) => {
      let settled = false;
      const fail = message => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(new SessionError('retry', message));
      };
      let socket;
      try {
        socket = new WebSocket(this.url, ['_aws_wt_session', this.token]);
      } catch (error) {
        fail(`cannot open the signaling connection: ${error.message}`);
        return;
      }
      const timer = setTimeout(() => {
        fail('timed out opening the signaling connection');
        this.closedByUs = true;
        socket.close();
      }, timeoutMs);
      socket.binaryType = 'arraybuffer';
      this.socket = socket;
      socket.addEventListener('open', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        log(`${this.label} signaling open`);
        this.startPinging();
        resolve();
      });
      socket.addEventListener('message', event => this.receive(event.data));
      socket.addEventListener('error', () => {
        this.sawError = true;
        fail('could not open the signaling connection');
      });
      socket.addEventListener('close', event => {
        const wasOpen = settled;
        fail(`the signaling connection closed before it opened (${event.code})`);
        this.handleClose(event, wasOpen);
      });
    });
  }

  get isOpen() {
    return this.socket?.readyState === WebSocket.OPEN;
  }

  send(frame) {
    if (!this.isOpen) {
      log(`${this.label} skipped ${enumName('SdkSignalFrame.Type', frame.type)}: socket not open`);
      return false;
    }
    this.socket.send(encodeFrame(stampFrame(frame)));
    return true;
  }

  /** The next frame of `type` (registered before the request is sent, so no answer is missed). */
  expect(type, timeoutMs = CONNECTION_TIMEOUT_MS) {
    const promise = new Promise((resolve, reject) => {
      const waiter = {type, resolve, reject};
      waiter.timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new SessionError('retry', `no ${enumName('SdkSignalFrame.Type', type)} within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      if (this.closed) {
        clearTimeout(waiter.timer);
        reject(this.closeError());
        return;
      }
      this.waiters.add(waiter);
    });
    promise.catch(() => {});
    return promise;
  }

  closeError() {
    const error = new SessionError('retry', `signaling closed (${this.closeCode})`);
    error.closeCode = this.closeCode;
    return error;
  }

  receive(data) {
    if (this.closed) return;
    let frame;
    try {
      frame = decodeFrame(data, type => log(`${this.label} unexpected frame type byte ${type}`));
    } catch (error) {
      log(`${this.label} protocol decode failure: ${error.message}`);
      return;
    }
    if (frame.type === FrameType.PING_PONG && frame.ping_pong) {
      const {type, ping_id: id} = frame.ping_pong;
      if (type === PingPong.PING) this.send(pongFrame(id));
      else if (id === this.pingId) {
        this.pongPending = false;
        this.missedPongs = 0;
      } else log(`${this.label} stale PONG ${id} (latest PING ${this.pingId})`);
      return;
    }
    // Status checks come first, so a refusal riding on an answer wins over the waiter it would satisfy.
    this.onFrame?.(frame);
    for (const waiter of [...this.waiters]) {
      if (waiter.type !== frame.type) continue;
      this.waiters.delete(waiter);
      clearTimeout(waiter.timer);
      waiter.resolve(frame);
    }
  }

  startPinging() {
    const tick = () => {
      if (!this.isOpen) return;
      if (this.pongPending) {
        this.missedPongs += 1;
        log(`${this.label} missed PONG (${this.missedPongs} in a row)`);
        if (this.missedPongs >= MISSED_PONGS_LIMIT) this.onUnhealthy?.();
      }
      this.pingId = (this.pingId + 1) >>> 0;
      this.pongPending = true;
      this.send(pingFrame(this.pingId));
    };
    tick();
    this.pingTimer = setInterval(tick, PING_INTERVAL_MS);
  }

  handleClose(event, wasOpen) {
    if (this.closed) return;
    this.closed = true;
    this.closeCode = event.code;
    clearInterval(this.pingTimer);
    log(`${this.label} signaling closed code=${event.code}${event.reason ? ` reason=${event.reason}` : ''}`);
    for (const waiter of this.waiters) {
      clearTimeout(waiter.timer);
      waiter.reject(this.closeError());
    }
    this.waiters.clear();
    for (const resolve of this.closeWaiters) resolve();
    if (!this.closedByUs && wasOpen) this.onClose?.(event.code, this.sawError);
  }

  /** Closes without a code (the server sees 1005), waiting at most 2 s for the close (signaling.md §1.5). */
  async close() {
    this.closedByUs = true;
    clearInterval(this.pingTimer);
    if (!this.socket || this.closed) return;
    const closed = new Promise(resolve => this.closeWaiters.push(resolve));
    try {
      this.socket.close();
    } catch (error) {
      log(`${this.label} close: ${error.message}`);
    }
    await Promise.race([closed, sleep(CLOSE_TIMEOUT_MS)]);
    if (!this.closed) this.handleClose({code: 1005, reason: 'no close event'}, false);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Local devices

/** The microphone and camera: choice, capture, the pre-join preview and level meter, and what went wrong. */
class LocalMedia {
  constructor() {
    this.micTrack = null;
    this.cameraTrack = null;
    this.micDeviceId = '';
    this.cameraDeviceId = '';
    this.cameraWanted = true;
    this.startMuted = false;
    this.notices = {microphone: '', camera: ''};
    this.devices = {audioinput: [], videoinput: [], audiooutput: []};
    this.meter = null;
    // False until the first device check is over: joining before it would lose a camera that is still opening.
    this.ready = false;
  }

  /** Asks for both devices once (one permission prompt), then per kind to tell which one failed and why. */
  async requestAccess() {
    if (!navigator.mediaDevices?.getUserMedia) {
      this.notices.microphone = 'This browser cannot use a microphone or camera here (a secure https page is needed).';
      return;
    }
    try {
      const stream = await navigator.mediaDevices.getUserMedia({audio: true, video: CAMERA_CAPTURE});
      this.micTrack = stream.getAudioTracks()[0] ?? null;
      this.cameraTrack = stream.getVideoTracks()[0] ?? null;
    } catch (error) {
      log(`devices: both at once failed (${error.name}); trying each`);
      await this.acquireMic('');
      await this.acquireCamera('');
    }
    this.micDeviceId = this.micTrack?.getSettings().deviceId ?? '';
    this.cameraDeviceId = this.cameraTrack?.getSettings().deviceId ?? '';
    this.meter?.attach(this.micTrack);
    await this.enumerate();
    this.ready = true;
  }

  async enumerate() {
    try {
      const list = await navigator.mediaDevices.enumerateDevices();
      for (const kind of Object.keys(this.devices)) this.devices[kind] = list.filter(d => d.kind === kind && d.deviceId);
    } catch (error) {
      log(`devices: enumerate failed: ${error.message}`);
    }
  }

  async acquireMic(deviceId) {
    try {
      const audio = deviceId ? {deviceId: {exact: deviceId}} : true;
      const stream = await navigator.mediaDevices.getUserMedia({audio});
      this.replaceMic(stream.getAudioTracks()[0]);
      this.notices.microphone = '';
      return this.micTrack;
    } catch (error) {
      log(`devices: microphone failed: ${error.name} ${error.message}`);
      this.notices.microphone = describeMediaError(error, 'microphone');
      return null;
    }
  }

  async acquireCamera(deviceId) {
    try {
      const video = deviceId ? {...CAMERA_CAPTURE, deviceId: {exact: deviceId}} : CAMERA_CAPTURE;
      const stream = await navigator.mediaDevices.getUserMedia({video});
      this.replaceCamera(stream.getVideoTracks()[0]);
      this.notices.camera = '';
      return this.cameraTrack;
    } catch (error) {
      log(`devices: camera failed: ${error.name} ${error.message}`);
      this.notices.camera = describeMediaError(error, 'camera');
      return null;
    }
  }

  replaceMic(track) {
    if (this.micTrack && this.micTrack !== track) this.micTrack.stop();
    this.micTrack = track;
    if (track) this.micDeviceId = track.getSettings().deviceId ?? this.micDeviceId;
    this.meter?.attach(track);
  }

  replaceCamera(track) {
    if (this.cameraTrack && this.cameraTrack !== track) this.cameraTrack.stop();
    this.cameraTrack = track;
    if (track) this.cameraDeviceId = track.getSettings().deviceId ?? this.cameraDeviceId;
  }

  stopCamera() {
    this.cameraTrack?.stop();
    this.cameraTrack = null;
  }

  stopAll() {
    this.micTrack?.stop();
    this.micTrack = null;
    this.stopCamera();
  }
}

/** The pre-join microphone level: an analyser on the mic track, drawn while the pre-join view shows. */
class LevelMeter {
  constructor(fill) {
    this.fill = fill;
    this.context = null;
    this.source = null;
    this.analyser = null;
    this.samples = null;
    this.running = false;
  }

  attach(track) {
    this.source?.disconnect();
    this.source = null;
    if (!track) {
      this.fill.style.width = '0%';
      return;
    }
    try {
      this.context ??= new AudioContext();
      this.analyser ??= this.context.createAnalyser();
      this.analyser.fftSize = 1024;
      this.samples = new Float32Array(this.analyser.fftSize);
      this.source = this.context.createMediaStreamSource(new MediaStream([track]));
      this.source.connect(this.analyser);
      // Browsers start an AudioContext suspended until the person interacts with the page.
      if (this.context.state === 'suspended') {
        this.context.resume().catch(() => {});
        document.addEventListener('pointerdown', () => this.context.resume().catch(() => {}), {once: true});
      }
      this.start();
    } catch (error) {
      log(`meter: ${error.message}`);
    }
  }

  start() {
    if (this.running) return;
    this.running = true;
    const draw = () => {
      // Only the pre-join view shows the meter; in the meeting the tiles' speaking rings take over.
      if (!this.running || !['prejoin', 'joining'].includes(document.body.dataset.state)) {
        this.running = false;
        return;
      }
      if (this.analyser && this.source) {
        this.analyser.getFloatTimeDomainData(this.samples);
        let sum = 0;
        for (const sample of this.samples) sum += sample * sample;
        const rms = Math.sqrt(sum / this.samples.length);
        // -60 dBFS .. 0 dBFS mapped to 0..100 %.
        const db = 20 * Math.log10(Math.max(rms, 1e-6));
        this.fill.style.width = `${Math.round(Math.min(1, Math.max(0, (db + 60) / 60)) * 100)}%`;
      }
      setTimeout(draw, 80);
    };
    draw();
  }

  stop() {
    this.running = false;
    this.fill.style.width = '0%';
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The meeting

/**
 * Everything of one person's stay in a meeting: the join info, the roster, the video sources, chat, and the
 * current connection (`this.conn`: its signaling channel, peer connection and receive slots), which is replaced
 * on every reconnect. `state` is one of prejoin, joining, connected, reconnecting, left, ended, failed.
 */
class Meeting {
  constructor({media, view, pageSize}) {
    this.media = media;
    this.view = view;
    this.pageSize = pageSize;
    this.state = 'prejoin';
    this.reset();
  }

  reset() {
    this.joinInfo = null;
    this.attendeeId = null;
    this.externalUserId = null;
    this.name = '';
    this.muted = false;
    this.cameraOn = false;
    this.conn = null;
    this.share = null;
    this.roster = new Map();
    this.streamOwners = new Map();
    this.seenOrder = new Map();
    this.sources = [];
    this.numParticipants = 0;
    this.atCapacity = false;
    this.pausedStreams = new Set();
    this.pausedGroups = new Set();
    this.chat = [];
    this.chatKeys = new Set();
    this.reconnects = 0;
    this.lastError = null;
    this.pageIndex = 0;
    this.activeSpeaker = null;
    this.orderedSpeaker = null;
    this.speakerSince = 0;
    this.lastMetadataAt = 0;
    this.episodeStart = 0;
    this.leaving = false;
    this.everConnected = false;
    this.audioSessionId = random32();
    clearInterval(this.speakerTimer);
    this.speakerTimer = null;
  }

  setState(state, error = null) {
    if (error !== null) this.lastError = error;
    if (this.state === state) {
      this.view.update();
      return;
    }
    log(`state ${this.state} -> ${state}${error ? `: ${error}` : ''}`);
    this.state = state;
    document.body.dataset.state = state;
    this.view.update();
  }

  get signalingUrl() {
    return this.joinInfo.Meeting.MediaPlacement.SignalingUrl;
  }

  get audioHost() {
    return this.joinInfo.Meeting.MediaPlacement.AudioHostUrl ?? '';
  }

  // ---- Joining ---------------------------------------------------------------------------------------------

  /** POSTs the name to the invite URL for an attendee, then connects. Bad names stay on the pre-join view. */
  /**
   * Notes when a step of the first join happened, in ms since the person pressed Join (the first time only, so a
   * reconnect does not move them): what BENCHMARKS.md's join time is made of.
   */
  mark(step) {
    if (this.joinStartedAt === undefined || step in this.timings) return;
    this.timings[step] = Math.round(performance.now() - this.joinStartedAt);
  }

  async join(name) {
    this.leaving = false;
    this.lastError = null;
    this.joinStartedAt = performance.now();
    this.timings = {};
    this.setState('joining');
    let response, body = null;
    try {
      response = await fetch(location.pathname, {
        method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({Name: name}),
      });
      body = await response.json().catch(() => null);
    } catch (error) {
      this.view.joinError('Could not reach the server. Check your connection and try again.');
      this.setState('prejoin', `join request failed: ${error.message}`);
      return;
    }
    if (!response.ok) {
      const message = body?.Message || `The server answered ${response.status}.`;
      log(`join refused: ${response.status} ${body?.Code ?? ''} ${message}`);
      if (response.status === 400) {
        this.view.joinError(message);
        this.setState('prejoin', message);
      } else if (response.status === 404) {
        this.setState('ended', message);
      } else {
        this.setState('failed', message);
      }
      return;
    }
    const info = body?.JoinInfo;
    if (!info?.Meeting?.MediaPlacement?.SignalingUrl || !info?.Attendee?.JoinToken) {
      this.setState('failed', 'The server sent an incomplete answer to the join request.');
      return;
    }
    this.joinInfo = info;
    this.mark('attendeeCreated');
    this.attendeeId = info.Attendee.AttendeeId;
    this.externalUserId = info.Attendee.ExternalUserId;
    this.name = displayNameOf(this.externalUserId) || name;
    log(`attendee ${this.attendeeId} (${this.externalUserId}) in meeting ${info.Meeting.MeetingId}`);
    this.muted = this.media.startMuted || !this.media.micTrack;
    if (this.media.micTrack) this.media.micTrack.enabled = !this.muted;
    this.cameraOn = Boolean(this.media.cameraTrack) && this.media.cameraWanted;
    if (!this.cameraOn) this.media.stopCamera();
    this.touchAttendee(this.attendeeId);
    this.speakerTimer = setInterval(() => this.decayStaleSpeakers(), 200);
    await this.connectLoop(false);
  }

  /**
   * Connects, retrying with back-off on failures that allow it (signaling.md §3.24, policies.md §5.2) for at most
   * 120 s from the start of the episode; a terminal outcome ends the stay.
   */
  async connectLoop(reconnecting) {
    if (this.connecting) return;
    this.connecting = true;
    this.episodeStart = Date.now();
    try {
      for (let retry = 0; ; retry++) {
        if (this.leaving || !['joining', 'reconnecting'].includes(this.state)) return;
        try {
          await this.connectOnce();
          if (reconnecting) this.reconnects += 1;
          return;
        } catch (error) {
          const outcome = asSessionError(error);
          this.closeConnection();
          if (this.leaving) return;
          if (outcome.kind !== 'retry') {
            this.finish(outcome);
            return;
          }
          this.lastError = outcome.message;
          const elapsed = Date.now() - this.episodeStart;
          if (elapsed >= RECONNECT_BUDGET_MS) {
            this.finish(new SessionError('terminal',
              `Could not ${reconnecting ? 'reconnect to' : 'join'} the meeting within ${RECONNECT_BUDGET_MS / 1000} s (${outcome.message}).`));
            return;
          }
          const delay = backoffDelayMs(retry);
          log(`connection attempt failed: ${outcome.message}; retry in ${Math.round(delay)} ms`);
          this.view.update();
          await sleep(Math.min(delay, RECONNECT_BUDGET_MS - elapsed));
        }
      }
    } finally {
      this.connecting = false;
    }
  }

  /** One full connection: socket, JOIN, JOIN_ACK + INDEX, a new peer connection, SUBSCRIBE, ICE connected. */
  async connectOnce() {
    let abort;
    const aborted = new Promise((_, reject) => { abort = reject; });
    aborted.catch(() => {});
    const conn = {
      phase: 'joining', aborted, abort, channel: null, pc: null, slots: [], allocations: [], cameraLayers: null,
      videoSubscriptionLimit: DEFAULT_VIDEO_SUBSCRIPTION_LIMIT, adaption: Adaption.BANDWIDTH_PROBING_AND_VIDEO_QUALITY_ADAPTION,
      rosterComplete: false, subscribing: false, subscribeWanted: false, evaluateWanted: false, iceTimer: null,
      sentConfigs: new Map(), turn: null, pausedByUs: [],
    };
    this.conn = conn;
    const guard = promise => Promise.race([promise, conn.aborted]);
    const url = `${this.signalingUrl}?X-Chime-Control-Protocol-Version=3&X-Amzn-Chime-Send-Close-On-Error=1`;
    conn.channel = new SignalingChannel({
      url, token: this.joinInfo.Attendee.JoinToken, label: 'meeting',
      onFrame: frame => this.onFrame(conn, frame),
      onClose: code => this.onChannelClosed(conn, code),
      onUnhealthy: () => this.connectionFailed(conn, new SessionError('retry', 'the server stopped answering')),
    });
    await guard(conn.channel.open(CONNECTION_TIMEOUT_MS));
    this.mark('signalingOpen');
    const joinAck = conn.channel.expect(FrameType.JOIN_ACK);
    const firstIndex = conn.channel.expect(FrameType.INDEX);
    conn.channel.send(joinFrame({audioSessionId: this.audioSessionId, clientDetails: browserClientDetails()}));
    const ack = await guard(joinAck);
    this.mark('joinAck');
    if (!ack.joinack) throw new SessionError('terminal', 'The server answered JOIN without a JOIN_ACK body.');
    this.applyJoinAck(conn, ack.joinack);
    await guard(firstIndex);
    this.mark('index');
    conn.phase = 'subscribing';
    this.createPeerConnection(conn);
    // Like the reference client, the first SUBSCRIBE carries no remote video; the INDEX is applied once connected.
    await guard(this.subscribeOnce(conn, {initial: true}));
    this.mark('subscribeAck');
    await guard(waitForIceConnected(conn.pc, CONNECTION_TIMEOUT_MS));
    this.mark('mediaConnected');
    conn.phase = 'connected';
    this.everConnected = true;
    this.episodeStart = 0;
    this.lastError = null;
    this.setState('connected');
    log(`connected (adaptation mode ${conn.adaption}, ${this.sources.length} video streams listed)`);
    this.evaluate();
  }

  applyJoinAck(conn, joinack) {
    if (joinack.video_subscription_limit) conn.videoSubscriptionLimit = joinack.video_subscription_limit;
    // Absent reads as DEFAULT, and the reference client applies it (signaling.md §3.3).
    conn.adaption = joinack.default_server_side_network_adaption ?? Adaption.DEFAULT;
    const turn = joinack.turn_credentials;
    if (turn?.uris?.length) {
      conn.turn = {urls: turn.uris, username: turn.username ?? '', credential: turn.password ?? ''};
    }
    if (joinack.wants_compressed_sdp) log('JOIN_ACK offers compressed SDP; this page sends plain SDP');
    log(`JOIN_ACK: adaptation ${enumName('SdkServerSideNetworkAdaption', conn.adaption)}, limit ${conn.videoSubscriptionLimit}${conn.turn ? ', TURN' : ''}`);
  }

  createPeerConnection(conn) {
    const configuration = {bundlePolicy: 'max-bundle', rtcpMuxPolicy: 'require', iceServers: []};
    if (conn.turn) {
      configuration.iceServers = [conn.turn];
      configuration.iceTransportPolicy = 'relay';
    }
    const pc = new RTCPeerConnection(configuration);
    conn.pc = pc;
    const micTrack = this.media.micTrack;
    const localStream = new MediaStream();
    conn.audioTransceiver = pc.addTransceiver(micTrack ?? 'audio', {direction: 'sendrecv', streams: [localStream]});
    conn.cameraLayers = this.currentUplinkLayers();
    const encodings = INITIAL_CAMERA_ENCODINGS.map((encoding, index) => this.encodingFor(encoding, conn.cameraLayers[index]));
    const cameraTrack = this.cameraOn ? this.media.cameraTrack : null;
    conn.cameraTransceiver = pc.addTransceiver(cameraTrack ?? 'video', {
      direction: cameraTrack ? 'sendrecv' : 'inactive', streams: [localStream], sendEncodings: encodings,
    });
    pc.addEventListener('track', event => {
      if (event.track.kind === 'audio') this.view.playMixedAudio(event.track);
    });
    pc.addEventListener('iceconnectionstatechange', () => this.onIceState(conn));
  }

  encodingFor(base, layer) {
    return {
      ...base, active: layer.active, scaleResolutionDownBy: layer.scaleResolutionDownBy,
      maxBitrate: layer.active ? layer.maxBitrateKbps * 1000 : base.maxBitrate,
    };
  }

  onIceState(conn) {
    if (conn !== this.conn) return;
    const state = conn.pc.iceConnectionState;
    log(`ICE ${state}`);
    clearTimeout(conn.iceTimer);
    if (conn.phase !== 'connected') return;
    if (state === 'failed') this.connectionFailed(conn, new SessionError('retry', 'the media connection failed'));
    if (state === 'disconnected') {
      conn.iceTimer = setTimeout(() => {
        if (conn.pc.iceConnectionState === 'disconnected') {
          this.connectionFailed(conn, new SessionError('retry', 'the media connection was lost'));
        }
      }, ICE_DISCONNECTED_GRACE_MS);
    }
  }

  /** A failure of the live connection: during connecting it aborts the attempt, once connected it reconnects. */
  connectionFailed(conn, error) {
    if (conn !== this.conn || this.leaving) return;
    if (conn.phase !== 'connected') {
      conn.abort(error);
      return;
    }
    this.conn = null;
    this.teardown(conn);
    if (error.kind !== 'retry') {
      this.finish(error);
      return;
    }
    log(`reconnecting: ${error.message}`);
    this.lastError = error.message;
    this.setState('reconnecting');
    this.connectLoop(true);
  }

  onChannelClosed(conn, code) {
    const outcome = closeOutcome(conn.phase, code);
    this.connectionFailed(conn, new SessionError(outcome.kind, outcome.message));
  }

  closeConnection() {
    if (!this.conn) return;
    const conn = this.conn;
    this.conn = null;
    this.teardown(conn);
  }

  teardown(conn) {
    clearTimeout(conn.iceTimer);
    conn.abort(new SessionError('retry', 'connection closed'));
    conn.channel?.close();
    try {
      conn.pc?.close();
    } catch (error) {
      log(`closing the peer connection: ${error.message}`);
    }
    this.view.update();
  }

  /** The end of the stay with an outcome: 'ended' shows "The meeting has ended", others the message. */
  finish(error) {
    this.closeConnection();
    this.share?.stop('meeting over');
    this.media.stopAll();
    clearInterval(this.speakerTimer);
    this.setState(error.kind === 'ended' ? 'ended' : 'failed', error.message);
  }

  // ---- Frames ----------------------------------------------------------------------------------------------

  onFrame(conn, frame) {
    if (conn !== this.conn) return;
    const type = frame.type;
    if (![FrameType.AUDIO_METADATA, FrameType.BITRATES].includes(type)) {
      log(`received ${enumName('SdkSignalFrame.Type', type)}${frame.error?.status ? ` error ${frame.error.status}` : ''}`);
    }
    const errorOutcome = errorStatusOutcome(frame.error?.status);
    if (errorOutcome?.kind === 'view-only') {
      this.videoSendRefused(conn);
    } else if (errorOutcome) {
      this.connectionFailed(conn, new SessionError(errorOutcome.kind, errorOutcome.message));
      return;
    } else if (type === FrameType.AUDIO_STATUS) {
      const outcome = audioStatusOutcome(frame.audio_status?.audio_status);
      if (outcome) {
        this.connectionFailed(conn, new SessionError(outcome.kind, outcome.message));
        return;
      }
    }
    switch (type) {
      case FrameType.INDEX: if (frame.index) this.onIndex(conn, frame.index); break;
      case FrameType.AUDIO_STREAM_ID_INFO: if (frame.audio_stream_id_info) this.onRoster(conn, frame.audio_stream_id_info); break;
      case FrameType.AUDIO_METADATA: if (frame.audio_metadata) this.onAudioMetadata(frame.audio_metadata); break;
      case FrameType.DATA_MESSAGE: if (frame.data_message) this.onDataMessages(frame.data_message.messages); break;
      case FrameType.PAUSE:
      case FrameType.RESUME:
        for (const group of frame.pause?.group_ids ?? []) {
          if (type === FrameType.PAUSE) this.pausedGroups.add(group);
          else this.pausedGroups.delete(group);
        }
        this.view.update();
        break;
      case FrameType.NOTIFICATION:
        log(`notification ${enumName('SdkNotificationFrame.NotificationLevel', frame.notification?.level ?? 3)}: ${frame.notification?.message ?? ''}`);
        break;
      default:
        break;
    }
  }

  onIndex(conn, index) {
    const ownContent = this.attendeeId + CONTENT_SUFFIX;
    // Absent media_type reads as AUDIO (proto2), which the reference client ignores as video.
    this.sources = index.sources.filter(source => source.attendee_id !== ownContent && source.media_type === MediaType.VIDEO);
    this.numParticipants = index.num_participants ?? 0;
    this.atCapacity = index.at_capacity ?? false;
    this.pausedStreams = new Set(index.paused_at_source_ids);
    for (const source of this.sources) this.touchAttendee(source.attendee_id);
    if (conn.phase === 'connected') this.evaluate();
    this.view.update();
  }

  touchAttendee(attendeeId) {
    if (!this.seenOrder.has(attendeeId)) this.seenOrder.set(attendeeId, this.seenOrder.size);
  }

  /** AUDIO_STREAM_ID_INFO (signaling.md §3.13); the first one of a connection is the complete roster. */
  onRoster(conn, info) {
    const presentInFrame = new Set();
    for (const entry of info.streams) {
      const streamId = entry.audio_stream_id ?? 0;
      if (!streamId) continue;
      if (entry.attendee_id) {
        const attendeeId = entry.attendee_id;
        presentInFrame.add(attendeeId);
        let person = this.roster.get(attendeeId);
        if (!person) {
          person = {attendeeId, externalUserId: entry.external_user_id || attendeeId, muted: false, level: 0, score: 0,
            signal: 1, streams: new Set()};
          this.roster.set(attendeeId, person);
          this.touchAttendee(attendeeId);
          if (!attendeeId.endsWith(CONTENT_SUFFIX)) log(`roster: ${person.externalUserId} joined`);
        }
        if (entry.external_user_id) person.externalUserId = entry.external_user_id;
        person.streams.add(streamId);
        this.streamOwners.set(streamId, attendeeId);
      }
      if ('muted' in entry) {
        const person = this.roster.get(this.streamOwners.get(streamId));
        if (person) person.muted = entry.muted;
      }
      if (!entry.attendee_id && !('muted' in entry)) {
        const attendeeId = this.streamOwners.get(streamId);
        this.streamOwners.delete(streamId);
        const person = this.roster.get(attendeeId);
        if (person) {
          person.streams.delete(streamId);
          if (person.streams.size === 0) {
            this.roster.delete(attendeeId);
            if (!attendeeId.endsWith(CONTENT_SUFFIX)) log(`roster: ${person.externalUserId} ${entry.dropped ? 'dropped' : 'left'}`);
          }
        }
      }
    }
    if (!conn.rosterComplete) {
      conn.rosterComplete = true;
      for (const [attendeeId, person] of this.roster) {
        if (attendeeId === this.attendeeId || presentInFrame.has(attendeeId)) continue;
        this.roster.delete(attendeeId);
        for (const streamId of person.streams) this.streamOwners.delete(streamId);
      }
    }
    if (conn.phase === 'connected') this.evaluate();
    this.view.update();
  }

  /** AUDIO_METADATA (signaling.md §3.14) into levels and the active-speaker score (policies.md §1.3). */
  onAudioMetadata(metadata) {
    const states = metadata.attendee_states;
    const updated = new Set();
    const anyVolume = states.some(state => 'volume' in state);
    for (const state of states) {
      const person = this.roster.get(this.streamOwners.get(state.audio_stream_id));
      if (!person) continue;
      if ('volume' in state) {
        person.level = person.muted ? 0 : speakingLevel(state.volume);
        updated.add(person);
      }
      if ('signal_strength' in state) person.signal = state.signal_strength / 2;
    }
    if (anyVolume) for (const person of this.roster.values()) if (!updated.has(person)) person.level = 0;
    if (anyVolume) {
      this.lastMetadataAt = Date.now();
      this.scoreSpeakers();
    }
    this.view.updateSpeaking();
  }

  scoreSpeakers() {
    const people = [...this.roster.values()];
    for (const person of people) {
      const speaking = person.level > SPEAKING_THRESHOLD ? 1 : 0;
      person.score = SPEAKER_WEIGHT * person.score + (1 - SPEAKER_WEIGHT) * speaking;
      if (speaking) for (const other of people) if (other !== person) other.score = Math.max(other.score - SPEAKER_TAKEOVER, 0);
    }
    let best = null;
    for (const person of people) if (person.score >= SPEAKER_CUTOFF && (!best || person.score > best.score)) best = person;
    const speaker = best?.attendeeId ?? null;
    if (speaker !== this.activeSpeaker) this.speakerSince = Date.now();
    this.activeSpeaker = speaker;
    // Reordering tiles changes subscriptions, so it follows only a speaker who stayed on top for a while (two people
    // talking at once swap the top score at every update).
    if (this.orderedSpeaker !== speaker && speaker !== this.attendeeId && speaker !== null &&
        Date.now() - this.speakerSince >= SPEAKER_REORDER_MS) {
      log(`active speaker: ${this.nameOf(speaker)}`);
      this.orderedSpeaker = speaker;
      if (this.conn?.phase === 'connected') this.evaluate();
      this.view.update();
    }
  }

  decayStaleSpeakers() {
    if (!this.lastMetadataAt || Date.now() - this.lastMetadataAt < METADATA_STALE_MS) return;
    for (const person of this.roster.values()) person.level = 0;
    this.lastMetadataAt = Date.now();
    this.scoreSpeakers();
    this.view.updateSpeaking();
  }

  onDataMessages(messages) {
    for (const message of messages) {
      if (message.topic !== CHAT_TOPIC) continue;
      const text = new TextDecoder().decode(message.data ?? new Uint8Array());
      const sender = message.sender_attendee_id ?? '';
      const ingest = message.ingest_time_ns ?? 0n;
      const delivered = ingest > 0n;
      if (sender === this.attendeeId || !sender) {
        // Our own message back: throttled (no ingest time), or a replay after a reconnect.
        const own = this.chat.find(entry => entry.self && entry.text === text && entry.ingest === null);
        if (own) {
          own.delivered = delivered;
          own.ingest = ingest;
          if (!delivered) log(`chat: own message was throttled`);
          this.view.updateChat();
          continue;
        }
      }
      const key = `${sender}|${ingest}|${text}`;
      if (delivered && this.chatKeys.has(key)) continue;
      this.chatKeys.add(key);
      const from = sender === this.attendeeId ? this.name
        : displayNameOf(message.sender_external_user_id || this.roster.get(sender)?.externalUserId || sender);
      this.chat.push({from, text, self: sender === this.attendeeId, delivered, ingest, at: delivered ? Number(ingest / 1_000_000n) : Date.now()});
      log(`chat from ${from}: ${text}${delivered ? '' : ' (not delivered)'}`);
      this.view.updateChat(true);
    }
  }

  // ---- Video subscriptions ---------------------------------------------------------------------------------

  /** The remote video sources by group: only the newest group of each attendee (signaling.md §3.8). */
  videoGroups() {
    const groups = new Map();
    for (const source of this.sources) {
      const groupId = source.group_id ?? 0;
      const attendeeId = source.attendee_id ?? '';
      if (!groupId || !source.stream_id || !attendeeId) continue;
      let group = groups.get(groupId);
      if (!group) {
        group = {groupId, attendeeId, externalUserId: source.external_user_id || attendeeId,
          content: attendeeId.endsWith(CONTENT_SUFFIX), streams: []};
        groups.set(groupId, group);
      }
      group.streams.push(source);
    }
    const newest = new Map();
    for (const group of groups.values()) {
      const other = newest.get(group.attendeeId);
      if (!other || other.groupId < group.groupId) newest.set(group.attendeeId, group);
    }
    return [...newest.values()];
  }

  /** Remote people (not content) in display order: the active speaker first, then by arrival. */
  remotePeople() {
    const ids = new Set();
    for (const attendeeId of this.roster.keys()) ids.add(attendeeId);
    for (const group of this.videoGroups()) if (!group.content) ids.add(group.attendeeId);
    ids.delete(this.attendeeId);
    const people = [...ids].filter(id => !id.endsWith(CONTENT_SUFFIX));
    people.sort((a, b) => {
      if (a === this.orderedSpeaker) return -1;
      if (b === this.orderedSpeaker) return 1;
      return (this.seenOrder.get(a) ?? 1e9) - (this.seenOrder.get(b) ?? 1e9);
    });
    return people;
  }

  /** The tiles: content (always shown, first), and remote people split into pages (the own tile is on every page). */
  layout() {
    const groups = this.videoGroups();
    const cameraGroups = new Map(groups.filter(g => !g.content).map(g => [g.attendeeId, g]));
    const contentGroups = groups.filter(g => g.content);
    const people = this.remotePeople();
    const pageCount = Math.max(1, Math.ceil(people.length / this.pageSize));
    this.pageIndex = Math.min(this.pageIndex, pageCount - 1);
    const onPage = people.slice(this.pageIndex * this.pageSize, (this.pageIndex + 1) * this.pageSize);
    return {contentGroups, cameraGroups, people, onPage: new Set(onPage), onPageOrder: onPage, pageCount};
  }

  /** What to receive now: content first, then the cameras on the page, within the server's limit. */
  wantedVideo() {
    const {contentGroups, cameraGroups, onPageOrder} = this.layout();
    const cameras = onPageOrder.map(id => cameraGroups.get(id)).filter(Boolean);
    const target = cameras.length <= 4 ? TARGET_HIGH_KBPS : TARGET_MEDIUM_KBPS;
    const wanted = [];
    for (const group of contentGroups) {
      wanted.push({group, priority: PRIORITY_CONTENT, targetBitrateKbps: TARGET_HIGH_KBPS, quality: Quality.MAINTAIN_RESOLUTION});
    }
    for (const group of cameras) {
      const priority = group.attendeeId === this.orderedSpeaker ? PRIORITY_SPEAKER : PRIORITY_CAMERA;
      wanted.push({group, priority, targetBitrateKbps: target, quality: Quality.BALANCED});
    }
    const limit = this.conn?.videoSubscriptionLimit ?? DEFAULT_VIDEO_SUBSCRIPTION_LIMIT;
    return wanted.slice(0, limit).map(want => {
      // Mode 4: subscribe to the highest-bitrate stream of the group; the server picks the layer it forwards.
      const best = want.group.streams.reduce((a, b) => ((b.max_bitrate_kbps ?? 0) > (a.max_bitrate_kbps ?? 0) ? b : a));
      return {...want, groupId: want.group.groupId, attendeeId: want.group.attendeeId, streamId: best.stream_id};
    });
  }

  currentUplinkLayers() {
    const ownContent = this.attendeeId + CONTENT_SUFFIX;
    const publishers = new Set(this.sources.map(s => s.attendee_id).filter(id => id !== this.attendeeId && id !== ownContent));
    return uplinkLayers(this.numParticipants, publishers.size + 1);
  }

  /**
   * Re-reads INDEX, roster, page and speaker: renegotiates if the streams or camera layers change, else updates
   * preferences. `withinSubscribes` is for `runSubscribes` itself, between two SUBSCRIBEs: it only marks one as wanted,
   * which that loop then sends, so no second loop (and no second offer in flight) is started.
   */
  evaluate({withinSubscribes = false} = {}) {
    const conn = this.conn;
    if (!conn || conn.phase !== 'connected') return;
    if (conn.subscribing && !withinSubscribes) {
      conn.evaluateWanted = true;
      return;
    }
    const layers = this.currentUplinkLayers();
    if (JSON.stringify(layers) !== JSON.stringify(conn.cameraLayers)) {
      log(`camera layers: ${layers.map(l => `${l.rid}=${l.active ? l.maxBitrateKbps : 'off'}`).join(' ')}`);
      conn.cameraLayers = layers;
      this.applyCameraLayers(conn);
      if (this.cameraOn) conn.subscribeWanted = true;
    }
    const wanted = this.wantedVideo();
    const current = new Map(conn.slots.map(slot => [slot.groupId, slot]));
    const sameStreams = wanted.length === conn.slots.length && wanted.every(w => current.get(w.groupId)?.streamId === w.streamId);
    if (!sameStreams) conn.subscribeWanted = true;
    if (conn.subscribeWanted) {
      if (!withinSubscribes) this.runSubscribes(conn);
      return;
    }
    // Same streams: send only changed preferences.
    const changed = [];
    for (const want of wanted) {
      const slot = current.get(want.groupId);
      const config = this.slotConfig(slot, want);
      if (JSON.stringify(config) !== JSON.stringify(conn.sentConfigs.get(slot.transceiver.mid))) changed.push(config);
      Object.assign(slot, {priority: want.priority, targetBitrateKbps: want.targetBitrateKbps, quality: want.quality});
    }
    if (changed.length && this.usesSubscriptionConfigurations(conn)) {
      conn.channel.send(remoteVideoUpdateFrame(changed));
      for (const config of changed) conn.sentConfigs.set(config.mid, config);
      log(`REMOTE_VIDEO_UPDATE for ${changed.map(c => c.mid).join(', ')}`);
    }
  }

  usesSubscriptionConfigurations(conn) {
    return conn.adaption === Adaption.BANDWIDTH_PROBING || conn.adaption === Adaption.BANDWIDTH_PROBING_AND_VIDEO_QUALITY_ADAPTION;
  }

  slotConfig(slot, want = slot) {
    return {mid: slot.transceiver.mid, attendeeId: want.attendeeId ?? slot.attendeeId, groupId: slot.groupId,
      priority: want.priority, targetBitrateKbps: want.targetBitrateKbps, quality: want.quality};
  }

  requestSubscribe() {
    const conn = this.conn;
    if (!conn) return;
    conn.subscribeWanted = true;
    if (conn.phase === 'connected') this.runSubscribes(conn);
  }

  /** One SUBSCRIBE at a time; what changed meanwhile (INDEX, page, camera) is taken up by the next one. */
  async runSubscribes(conn) {
    if (conn.subscribing) return;
    conn.subscribing = true;
    try {
      while ((conn.subscribeWanted || conn.evaluateWanted) && conn === this.conn) {
        if (conn.subscribeWanted) {
          conn.subscribeWanted = false;
          conn.evaluateWanted = false;
          await Promise.race([this.subscribeOnce(conn, {initial: false}), conn.aborted]);
        } else {
          // What changed while the last SUBSCRIBE was in flight: a new one (sent by this loop) or preferences.
          conn.evaluateWanted = false;
          this.evaluate({withinSubscribes: true});
        }
      }
    } catch (error) {
      this.connectionFailed(conn, asSessionError(error));
    } finally {
      conn.subscribing = false;
    }
  }

  /** Offer, gather, SUBSCRIBE, apply SUBSCRIBE_ACK (signaling.md §3.6-3.7). */
  async subscribeOnce(conn, {initial}) {
    const pc = conn.pc;
    const wanted = initial ? [] : this.wantedVideo();
    const wantedGroups = new Set(wanted.map(w => w.groupId));
    for (const slot of [...conn.slots]) {
      if (wantedGroups.has(slot.groupId)) continue;
      slot.transceiver.stop();
      conn.slots.splice(conn.slots.indexOf(slot), 1);
    }
    for (const want of wanted) {
      let slot = conn.slots.find(s => s.groupId === want.groupId);
      if (!slot) {
        slot = {transceiver: pc.addTransceiver('video', {direction: 'recvonly'}), groupId: want.groupId, deliveredStreamId: 0};
        conn.slots.push(slot);
      }
      Object.assign(slot, {attendeeId: want.attendeeId, streamId: want.streamId, priority: want.priority,
        targetBitrateKbps: want.targetBitrateKbps, quality: want.quality, content: want.group.content});
    }
    const sendingCamera = this.cameraOn && Boolean(this.media.cameraTrack);
    conn.cameraTransceiver.direction = sendingCamera ? 'sendrecv' : 'inactive';
    if (!sendingCamera) conn.allocations = [];
    await pc.setLocalDescription(await pc.createOffer());
    this.mark(wanted.length ? 'videoOfferSet' : 'offerSet');
    await waitForIceGathering(pc, CONNECTION_TIMEOUT_MS);
    this.mark(wanted.length ? 'videoSubscribeSent' : 'subscribeSent');
    const sdp = pc.localDescription.sdp;
    const streamIdByMid = new Map(conn.slots.map(slot => [slot.transceiver.mid, slot.streamId]));
    const subscriptions = this.usesSubscriptionConfigurations(conn) ? conn.slots.map(slot => this.slotConfig(slot)) : null;
    const frame = subscribeFrame({
      attendeeId: this.attendeeId, sdpOffer: sdp, audioHost: this.audioHost, audioMuted: this.muted,
      cameraLayers: sendingCamera ? conn.cameraLayers : null, allocations: conn.allocations,
      receiveStreamIds: receiveStreamIdsFromSdp(sdp, streamIdByMid), subscriptions,
    });
    const answer = conn.channel.expect(FrameType.SUBSCRIBE_ACK);
    if (!conn.channel.send(frame)) throw new SessionError('retry', 'signaling is not open');
    log(`SUBSCRIBE: camera ${sendingCamera ? 'on' : 'off'}, receive ${JSON.stringify(frame.sub.receive_stream_ids)}`);
    conn.sentConfigs = new Map((subscriptions ?? []).map(config => [config.mid, config]));
    const ack = (await answer).suback ?? {};
    if (ack.compressed_sdp_answer?.length) {
      throw new SessionError('retry', 'the server sent a compressed SDP answer though this page asked for plain SDP');
    }
    if (!ack.sdp_answer) throw new SessionError('retry', 'SUBSCRIBE_ACK without an SDP answer');
    await pc.setRemoteDescription({type: 'answer', sdp: answerForBrowser(ack.sdp_answer)});
    // Chromium sets every rid the answer accepts back to active, so the layer table is applied after each answer.
    if (sendingCamera) await this.applyCameraLayers(conn);
    if (sendingCamera && ack.allocations.length) conn.allocations = ack.allocations;
    const streamByMid = new Map();
    for (const track of ack.tracks) {
      if (!track.stream_id || !track.track_label?.startsWith('v_')) continue;
      streamByMid.set(track.track_label.slice(2), track);
    }
    for (const slot of conn.slots) {
      const mapping = streamByMid.get(slot.transceiver.mid);
      slot.deliveredStreamId = mapping?.stream_id ?? 0;
      slot.ssrc = mapping?.ssrc ?? 0;
    }
    if (ack.tracks.length) this.mark('videoSubscribeAck');
    log(`SUBSCRIBE_ACK: ${ack.allocations.length} allocations, tracks ${ack.tracks.map(t => `${t.track_label}=${t.stream_id}`).join(' ') || 'none'}`);
    this.view.update();
  }

  async applyCameraLayers(conn) {
    const sender = conn.cameraTransceiver?.sender;
    if (!sender) return;
    try {
      const parameters = sender.getParameters();
      if (!parameters.encodings || parameters.encodings.length !== conn.cameraLayers.length) return;
      parameters.encodings.forEach((encoding, index) => {
        const layer = conn.cameraLayers.find(l => l.rid === encoding.rid) ?? conn.cameraLayers[index];
        encoding.active = layer.active;
        encoding.scaleResolutionDownBy = layer.scaleResolutionDownBy;
        if (layer.active) encoding.maxBitrate = layer.maxBitrateKbps * 1000;
      });
      await sender.setParameters(parameters);
    } catch (error) {
      log(`camera layers not applied: ${error.message}`);
    }
  }

  videoSendRefused(conn) {
    if (!this.cameraOn) return;
    log('the server refused video sending (206)');
    this.view.toast('The meeting cannot take more cameras right now; yours was turned off.', true);
    this.cameraOn = false;
    this.media.stopCamera();
    conn.cameraTransceiver?.sender.replaceTrack(null).catch(() => {});
    this.view.update();
  }

  // ---- Controls --------------------------------------------------------------------------------------------

  async setMuted(muted) {
    if (!muted && !this.media.micTrack) {
      const track = await this.media.acquireMic(this.media.micDeviceId);
      if (!track) {
        this.view.toast(this.media.notices.microphone, true);
        this.view.update();
        return;
      }
      await this.conn?.audioTransceiver?.sender.replaceTrack(track).catch(error => log(`microphone: ${error.message}`));
    }
    this.muted = muted;
    if (this.media.micTrack) this.media.micTrack.enabled = !muted;
    const me = this.roster.get(this.attendeeId);
    if (me) me.muted = muted;
    this.conn?.channel?.send(audioControlFrame(muted));
    log(muted ? 'muted' : 'unmuted');
    this.view.update();
  }

  async setCamera(on) {
    if (on === this.cameraOn) return;
    if (on) {
      if (this.atCapacity) {
        this.view.toast('The meeting has as many cameras as it can take; try again later.', true);
        return;
      }
      const track = this.media.cameraTrack ?? await this.media.acquireCamera(this.media.cameraDeviceId);
      if (!track) {
        this.view.toast(this.media.notices.camera, true);
        this.view.update();
        return;
      }
      this.cameraOn = true;
      await this.conn?.cameraTransceiver?.sender.replaceTrack(track).catch(error => log(`camera: ${error.message}`));
    } else {
      this.cameraOn = false;
      await this.conn?.cameraTransceiver?.sender.replaceTrack(null).catch(() => {});
      this.media.stopCamera();
    }
    log(`camera ${on ? 'on' : 'off'}`);
    this.view.update();
    this.requestSubscribe();
  }

  async switchMicrophone(deviceId) {
    if (!deviceId) {
      await this.setMuted(true);
      await this.conn?.audioTransceiver?.sender.replaceTrack(null).catch(() => {});
      this.media.micTrack?.stop();
      this.media.micTrack = null;
      this.media.micDeviceId = '';
      this.view.update();
      return;
    }
    const track = await this.media.acquireMic(deviceId);
    if (!track) {
      this.view.toast(this.media.notices.microphone, true);
      return;
    }
    track.enabled = !this.muted;
    await this.conn?.audioTransceiver?.sender.replaceTrack(track).catch(error => log(`microphone: ${error.message}`));
    log(`microphone switched to ${track.label}`);
    this.view.update();
  }

  async switchCamera(deviceId) {
    if (!deviceId) {
      await this.setCamera(false);
      this.media.cameraDeviceId = '';
      return;
    }
    this.media.cameraDeviceId = deviceId;
    if (!this.cameraOn) {
      await this.setCamera(true);
      return;
    }
    const track = await this.media.acquireCamera(deviceId);
    if (!track) {
      this.view.toast(this.media.notices.camera, true);
      return;
    }
    await this.conn?.cameraTransceiver?.sender.replaceTrack(track).catch(error => log(`camera: ${error.message}`));
    log(`camera switched to ${track.label}`);
    this.view.update();
  }

  sendChat(text) {
    const trimmed = text.trim();
    if (!trimmed) return false;
    if (new TextEncoder().encode(trimmed).length > CHAT_MAX_BYTES) {
      this.view.toast('That message is too long.', true);
      return false;
    }
    const sent = this.conn?.channel?.send(chatFrame(trimmed)) ?? false;
    this.chat.push({from: this.name, text: trimmed, self: true, delivered: sent, ingest: sent ? null : 0n, at: Date.now()});
    if (!sent) log('chat: not connected, message not sent');
    this.view.updateChat();
    return true;
  }

  setPage(index) {
    const {pageCount} = this.layout();
    const page = Math.max(0, Math.min(pageCount - 1, index));
    if (page === this.pageIndex) return;
    this.pageIndex = page;
    log(`page ${page + 1} of ${pageCount}`);
    this.evaluate();
    this.view.update();
  }

  async toggleShare() {
    if (this.share) {
      await this.share.stop('stopped by you');
      return;
    }
    if (!navigator.mediaDevices?.getDisplayMedia) {
      this.view.toast('This browser cannot share the screen.', true);
      return;
    }
    let stream;
    try {
      stream = await navigator.mediaDevices.getDisplayMedia({video: {frameRate: {ideal: CONTENT_FRAMERATE, max: CONTENT_FRAMERATE}}, audio: false});
    } catch (error) {
      log(`share: getDisplayMedia failed: ${error.name} ${error.message}`);
      if (error.name !== 'NotAllowedError' && error.name !== 'AbortError') this.view.toast(`Could not share the screen (${error.name}).`, true);
      return;
    }
    const share = new ContentShare(this, stream);
    this.share = share;
    this.view.update();
    await share.run();
  }

  /** LEAVE, LEAVE_ACK (at most 2 s), close; then the "You left" screen. */
  async leave() {
    if (this.leaving) return;
    this.leaving = true;
    log('leaving');
    await this.share?.stop('leaving');
    const conn = this.conn;
    if (conn?.channel?.isOpen) {
      const ack = conn.channel.expect(FrameType.LEAVE_ACK, LEAVE_ACK_TIMEOUT_MS);
      conn.channel.send(leaveFrame());
      await ack.then(() => log('LEAVE_ACK'), () => log('no LEAVE_ACK'));
    }
    this.closeConnection();
    this.media.stopAll();
    clearInterval(this.speakerTimer);
    this.setState('left');
  }

  /** Hidden tab: after a while nobody watches the tiles, so their video is paused; it resumes when the tab shows. */
  onVisibilityChange(hidden) {
    clearTimeout(this.hiddenTimer);
    if (hidden) this.hiddenTimer = setTimeout(() => this.pauseReceivedVideo(true), this.hiddenPauseMs ?? HIDDEN_PAUSE_MS);
    else this.pauseReceivedVideo(false);
  }

  pauseReceivedVideo(pause) {
    const conn = this.conn;
    if (!conn || conn.phase !== 'connected') return;
    if (pause) {
      const streams = conn.slots.map(slot => slot.deliveredStreamId).filter(Boolean);
      // One stream id per frame, as the reference client sends them.
      for (const streamId of streams) conn.channel.send(pauseFrame([streamId]));
      conn.pausedByUs = streams;
      if (streams.length) log(`paused received video ${streams.join(', ')} (tab hidden)`);
    } else if (conn.pausedByUs.length) {
      for (const streamId of conn.pausedByUs) conn.channel.send(pauseFrame([streamId], true));
      log(`resumed received video ${conn.pausedByUs.join(', ')}`);
      conn.pausedByUs = [];
    }
  }

  /** A best-effort LEAVE when the tab goes away, so others see a clean leave instead of a drop. */
  leaveOnUnload() {
    if (this.share?.channel?.isOpen) this.share.channel.send(leaveFrame());
    if (this.conn?.channel?.isOpen) this.conn.channel.send(leaveFrame());
  }

  nameOf(attendeeId) {
    if (attendeeId === this.attendeeId) return this.name;
    const person = this.roster.get(attendeeId);
    if (person) return displayNameOf(person.externalUserId);
    const group = this.videoGroups().find(g => g.attendeeId === attendeeId);
    return displayNameOf(group?.externalUserId ?? attendeeId);
  }

  /** Plain-JSON state for tests and diagnosis (figures from getStats). */
  async snapshot() {
    const conn = this.conn;
    const stats = {inboundByMid: new Map(), audioIn: {packetsReceived: 0, totalAudioEnergy: 0}, audioOut: {packetsSent: 0}, videoOut: []};
    if (conn?.pc && conn.pc.connectionState !== 'closed') {
      const parameters = conn.cameraTransceiver?.sender.getParameters();
      const report = await conn.pc.getStats();
      report.forEach(entry => {
        if (entry.type === 'inbound-rtp' && entry.kind === 'audio') {
          stats.audioIn.packetsReceived += entry.packetsReceived ?? 0;
          stats.audioIn.totalAudioEnergy += entry.totalAudioEnergy ?? 0;
        } else if (entry.type === 'inbound-rtp' && entry.kind === 'video') {
          stats.inboundByMid.set(entry.mid, entry);
        } else if (entry.type === 'outbound-rtp' && entry.kind === 'audio') {
          stats.audioOut.packetsSent += entry.packetsSent ?? 0;
        } else if (entry.type === 'outbound-rtp' && entry.kind === 'video') {
          const encoding = parameters?.encodings?.find(e => e.rid === entry.rid);
          stats.videoOut.push({rid: entry.rid ?? null, active: entry.active ?? encoding?.active ?? null,
            framesEncoded: entry.framesEncoded ?? 0, frameWidth: entry.frameWidth ?? 0, frameHeight: entry.frameHeight ?? 0});
        }
      });
      stats.videoOut.sort((a, b) => ['low', 'mid', 'hi'].indexOf(a.rid) - ['low', 'mid', 'hi'].indexOf(b.rid));
    }
    const shareOut = this.share ? await this.share.stats() : null;
    const {contentGroups, cameraGroups, people, onPage, pageCount} = this.layout();
    const slotOf = groupId => conn?.slots.find(slot => slot.groupId === groupId);
    const tileFigures = (groupId, element) => {
      const slot = groupId ? slotOf(groupId) : null;
      const inbound = slot ? stats.inboundByMid.get(slot.transceiver.mid) : null;
      return {width: element?.videoWidth ?? 0, height: element?.videoHeight ?? 0, framesDecoded: inbound?.framesDecoded ?? 0};
    };
    const tiles = [];
    if (this.share) {
      const video = this.view.videoOf('local-content');
      tiles.push({attendeeId: this.attendeeId + CONTENT_SUFFIX, name: this.name, content: true, local: true,
        onPage: true, width: video?.videoWidth ?? 0, height: video?.videoHeight ?? 0, framesDecoded: null});
    }
    for (const group of contentGroups) {
      // A content tile is named after its owner; `content` tells it from the owner's camera tile.
      tiles.push({attendeeId: group.attendeeId, name: this.nameOf(group.attendeeId.slice(0, -CONTENT_SUFFIX.length)),
        content: true, local: false, onPage: true, ...tileFigures(group.groupId, this.view.videoOf(`content:${group.attendeeId}`))});
    }
    if (this.attendeeId) {
      const video = this.view.videoOf('local');
      tiles.push({attendeeId: this.attendeeId, name: this.name, content: false, local: true, onPage: true,
        width: this.cameraOn ? video?.videoWidth ?? 0 : 0, height: this.cameraOn ? video?.videoHeight ?? 0 : 0, framesDecoded: null});
    }
    for (const attendeeId of people) {
      const group = cameraGroups.get(attendeeId);
      const visible = onPage.has(attendeeId);
      tiles.push({attendeeId, name: this.nameOf(attendeeId), content: false, local: false, onPage: visible,
        ...(group && visible ? tileFigures(group.groupId, this.view.videoOf(`person:${attendeeId}`)) : {width: 0, height: 0, framesDecoded: 0})});
    }
    const roster = [...this.roster.values()].filter(p => !p.attendeeId.endsWith(CONTENT_SUFFIX)).map(person => ({
      attendeeId: person.attendeeId, name: this.nameOf(person.attendeeId),
      muted: person.attendeeId === this.attendeeId ? this.muted : person.muted,
      video: person.attendeeId === this.attendeeId ? this.cameraOn : cameraGroups.has(person.attendeeId),
      speaking: this.isSpeaking(person.attendeeId),
    }));
    return {
      state: this.state, attendeeId: this.attendeeId, externalUserId: this.externalUserId, name: this.name,
      muted: this.muted, camera: this.cameraOn, sharing: Boolean(this.share?.live),
      roster, tiles,
      chat: this.chat.map(({from, text, self, delivered}) => ({from, text, self, delivered})),
      audioIn: stats.audioIn, audioOut: stats.audioOut, videoOut: stats.videoOut, shareOut,
      page: {index: this.pageIndex, count: pageCount}, activeSpeaker: this.activeSpeaker,
      numParticipants: this.numParticipants, reconnects: this.reconnects, lastError: this.lastError, timings: {...this.timings},
    };
  }

  isSpeaking(attendeeId) {
    const person = this.roster.get(attendeeId);
    if (!person || (attendeeId === this.attendeeId && this.muted) || person.muted) return false;
    return person.level > SPEAKING_THRESHOLD && Date.now() - this.lastMetadataAt < 2 * METADATA_STALE_MS;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Screen sharing

/**
 * The screen share: a second session as `<attendeeId>#content` (token `<JoinToken>#content`) with its own socket and
 * peer connection, sending one video encoding and no sound, never receiving video (signaling.md §3.25). Like the
 * meeting's own connection (and the Chime JS SDK's content session), it keeps itself up: a live share whose socket
 * closes, whose server stops answering or whose media connection fails connects again, and a try that fails for a
 * reason worth retrying is tried again with backoff. It ends when the shared track ends, when the person stops it,
 * on a failure not worth retrying, or after `SHARE_START_ATTEMPTS` failed tries in a row.
 */
class ContentShare {
  constructor(meeting, stream) {
    this.meeting = meeting;
    this.stream = stream;
    this.track = stream.getVideoTracks()[0];
    this.track.contentHint = 'detail';
    this.channel = null;
    this.pc = null;
    this.live = false;
    this.stopped = false;
    /** Resolves the live connection's loss (set while live). */
    this.reportLost = null;
    this.track.addEventListener('ended', () => this.stop('the shared screen ended'));
  }

  /** Starts the share and keeps it up until it stops (see the class). */
  async run() {
    let failedTries = 0;
    for (;;) {
      let failure;
      try {
        const lost = new Promise(resolve => { this.reportLost = resolve; });
        await this.start();
        if (this.stopped) return;
        failedTries = 0;
        const error = await lost;
        if (this.stopped) return;
        if (error.kind !== 'retry') {
          // Refused, replaced, removed or ended: connecting again would only be refused again (or take the share
          // back from whoever replaced it).
          this.meeting.view.toast(`Screen sharing stopped: ${error.message}`, true);
          await this.stop(error.message);
          return;
        }
        log(`share connection lost: ${error.message}; reconnecting`);
        await this.discardAttempt();
        continue;
      } catch (error) {
        if (this.stopped) return;
        failure = asSessionError(error);
      }
      failedTries++;
      if (failure.kind === 'retry' && failedTries < SHARE_START_ATTEMPTS) {
        const delay = backoffDelayMs(failedTries);
        log(`share attempt ${failedTries} failed: ${failure.message}; retry in ${Math.round(delay)} ms`);
        await this.discardAttempt();
        await sleep(delay);
        if (this.stopped) return;
        continue;
      }
      log(`share failed: ${failure.message}`);
      this.meeting.view.toast(`Screen sharing failed: ${failure.message}`, true);
      await this.stop('failed');
      return;
    }
  }

  /** The live connection is lost: `run` connects again when `error` is worth retrying, else ends the share. */
  connectionLost(error) {
    if (!this.live || this.stopped) return;
    this.live = false;
    this.meeting.view.update();
    this.reportLost?.(error);
  }

  get attendeeId() {
    return this.meeting.attendeeId + CONTENT_SUFFIX;
  }

  async start() {
    const meeting = this.meeting;
    const token = meeting.joinInfo.Attendee.JoinToken + CONTENT_SUFFIX;
    const url = `${meeting.signalingUrl}?X-Chime-Control-Protocol-Version=3&X-Amzn-Chime-Send-Close-On-Error=1`;
    let fail;
    const failed = new Promise((_, reject) => { fail = reject; });
    failed.catch(() => {});
    const guard = promise => Promise.race([promise, failed]);
    // What a close means depends on how far the try got, as for the meeting's connection (`closeOutcome`).
    let phase = 'joining';
    // A late event of an earlier try's socket must not end this one.
    const channel = new SignalingChannel({
      url, token, label: 'content',
      onFrame: frame => {
        const outcome = errorStatusOutcome(frame.error?.status)
          ?? (frame.type === FrameType.AUDIO_STATUS ? audioStatusOutcome(frame.audio_status?.audio_status) : null);
        if (outcome && outcome.kind !== 'view-only') {
          const error = new SessionError(outcome.kind, outcome.message);
          fail(error);
          if (channel === this.channel) this.connectionLost(error);
        } else if (outcome) {
          fail(new SessionError('terminal', 'The meeting cannot take another screen share now.'));
        }
      },
      onClose: code => {
        const outcome = closeOutcome(this.live ? 'connected' : phase, code);
        const error = new SessionError(outcome.kind, outcome.message);
        fail(error);
        if (channel === this.channel) this.connectionLost(error);
      },
      onUnhealthy: () => {
        const error = new SessionError('retry', 'the server stopped answering');
        fail(error);
        if (channel === this.channel) this.connectionLost(error);
      },
    });
    this.channel = channel;
    await guard(this.channel.open(CONNECTION_TIMEOUT_MS));
    const joinAck = this.channel.expect(FrameType.JOIN_ACK);
    const index = this.channel.expect(FrameType.INDEX);
    this.channel.send(joinFrame({audioSessionId: random32(), content: true, clientDetails: browserClientDetails()}));
    const ack = (await guard(joinAck)).joinack ?? {};
    await guard(index);
    phase = 'subscribing';
    const configuration = {bundlePolicy: 'max-bundle', rtcpMuxPolicy: 'require', iceServers: []};
    if (ack.turn_credentials?.uris?.length) {
      configuration.iceServers = [{urls: ack.turn_credentials.uris, username: ack.turn_credentials.username ?? '',
        credential: ack.turn_credentials.password ?? ''}];
      configuration.iceTransportPolicy = 'relay';
    }
    const pc = new RTCPeerConnection(configuration);
    this.pc = pc;
    pc.addEventListener('iceconnectionstatechange', () => {
      clearTimeout(this.iceTimer);
      if (pc !== this.pc) return;
      if (pc.iceConnectionState === 'failed') {
        this.connectionLost(new SessionError('retry', 'the media connection failed'));
      }
      if (pc.iceConnectionState === 'disconnected') {
        this.iceTimer = setTimeout(() => {
          if (pc === this.pc && pc.iceConnectionState === 'disconnected') {
            this.connectionLost(new SessionError('retry', 'the media connection was lost'));
          }
        }, ICE_DISCONNECTED_GRACE_MS);
      }
    });
    pc.addTransceiver('audio', {direction: 'sendrecv', streams: [this.stream]});
    this.transceiver = pc.addTransceiver(this.track, {
      direction: 'sendrecv', streams: [this.stream],
      sendEncodings: [{maxBitrate: CONTENT_MAX_BITRATE_KBPS * 1000, maxFramerate: CONTENT_FRAMERATE}],
    });
    await pc.setLocalDescription(await pc.createOffer());
    await guard(waitForIceGathering(pc, CONNECTION_TIMEOUT_MS));
    const sdp = pc.localDescription.sdp;
    const answer = this.channel.expect(FrameType.SUBSCRIBE_ACK);
    this.channel.send(subscribeFrame({
      attendeeId: this.attendeeId, sdpOffer: sdp, audioHost: meeting.audioHost, audioMuted: true, contentVideo: true,
      receiveStreamIds: receiveStreamIdsFromSdp(sdp, new Map()),
    }));
    const suback = (await guard(answer)).suback ?? {};
    if (!suback.sdp_answer) throw new SessionError('retry', 'SUBSCRIBE_ACK without an SDP answer');
    await pc.setRemoteDescription({type: 'answer', sdp: answerForBrowser(suback.sdp_answer)});
    await guard(waitForIceConnected(pc, CONNECTION_TIMEOUT_MS));
    if (this.stopped) return;
    this.live = true;
    log(`sharing the screen as ${this.attendeeId}`);
    meeting.view.update();
  }

  /** Closes a failed start's socket and peer connection (the shared track stays) so that `start` can run again. */
  async discardAttempt() {
    const channel = this.channel;
    const pc = this.pc;
    this.channel = null;
    this.pc = null;
    clearTimeout(this.iceTimer);
    await channel?.close();
    pc?.close();
  }

  async stop(reason) {
    if (this.stopped) return;
    this.stopped = true;
    this.live = false;
    log(`screen share stopped: ${reason}`);
    if (this.meeting.share === this) this.meeting.share = null;
    this.meeting.view.update();
    this.track.stop();
    clearTimeout(this.iceTimer);
    this.reportLost?.(new SessionError('terminal', reason));
    if (this.channel?.isOpen) {
      const ack = this.channel.expect(FrameType.LEAVE_ACK, LEAVE_ACK_TIMEOUT_MS);
      this.channel.send(leaveFrame());
      await ack.catch(() => {});
    }
    await this.channel?.close();
    this.pc?.close();
  }

  async stats() {
    const figures = {framesEncoded: 0, frameWidth: 0, frameHeight: 0, packetsSent: 0};
    if (!this.pc || this.pc.connectionState === 'closed') return figures;
    (await this.pc.getStats()).forEach(entry => {
      if (entry.type === 'outbound-rtp' && entry.kind === 'video') {
        figures.framesEncoded += entry.framesEncoded ?? 0;
        figures.frameWidth = entry.frameWidth ?? figures.frameWidth;
        figures.frameHeight = entry.frameHeight ?? figures.frameHeight;
        figures.packetsSent += entry.packetsSent ?? 0;
      }
    });
    return figures;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The view

const SVG = 'http://www.w3.org/2000/svg';

function iconElement(name, className = 'icon') {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('class', className);
  svg.setAttribute('aria-hidden', 'true');
  const use = document.createElementNS(SVG, 'use');
  use.setAttribute('href', `#icon-${name}`);
  svg.appendChild(use);
  return svg;
}

function avatarColor(key) {
  let hash = 0;
  for (const character of String(key)) hash = (hash * 31 + character.codePointAt(0)) >>> 0;
  return `hsl(${hash % 360} 45% 42%)`;
}

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** The DOM side: renders the meeting's state into the views, and turns clicks into meeting actions. */
class View {
  constructor() {
    this.$ = id => document.getElementById(id);
    this.tiles = new Map();
    this.renderQueued = false;
    this.panel = null;
    this.unread = 0;
    this.renderedChat = 0;
  }

  bind(meeting, media) {
    this.meeting = meeting;
    this.media = media;
    new ResizeObserver(() => this.layoutGrid()).observe(this.$('grid'));
  }

  update() {
    if (this.renderQueued) return;
    this.renderQueued = true;
    setTimeout(() => {
      this.renderQueued = false;
      this.render();
    }, 0);
  }

  render() {
    const meeting = this.meeting;
    document.body.dataset.state = meeting.state;
    const statusText = {joining: 'Joining…', connected: 'Connected', reconnecting: 'Reconnecting…'}[meeting.state] ?? '';
    this.$('connection-status').textContent = statusText;
    this.$('meeting-title').textContent = meeting.joinInfo?.Meeting?.ExternalMeetingId ?? '';
    if (meeting.joinInfo?.Meeting?.ExternalMeetingId) document.title = `${meeting.joinInfo.Meeting.ExternalMeetingId} · Carillon`;
    this.renderPrejoin();
    if (meeting.state === 'prejoin' && this.media.micTrack) this.media.meter?.start();
    if (['connected', 'reconnecting'].includes(meeting.state)) this.renderMeeting();
    this.renderEnd();
  }

  // ---- Pre-join --------------------------------------------------------------------------------------------

  renderPrejoin() {
    const media = this.media;
    const joining = this.meeting.state === 'joining';
    this.$('join').disabled = joining || !media.ready;
    this.$('join').textContent = joining ? 'Joining…' : media.ready ? 'Join' : 'Checking devices…';
    const preview = this.$('preview');
    const cameraShown = Boolean(media.cameraTrack) && media.cameraWanted && this.meeting.state === 'prejoin' || (joining && media.cameraTrack);
    if (cameraShown && preview.srcObject?.getVideoTracks()[0] !== media.cameraTrack) {
      preview.srcObject = new MediaStream([media.cameraTrack]);
      preview.play().catch(() => {});
    }
    if (!cameraShown && preview.srcObject) preview.srcObject = null;
    preview.parentElement.classList.toggle('camera-off', !cameraShown);
    this.$('preview-off').firstElementChild.textContent = media.cameraTrack || media.cameraWanted === false
      ? 'Camera is off' : 'No camera';
    const micButton = this.$('prejoin-mic');
    micButton.classList.toggle('off', media.startMuted || !media.micTrack);
    micButton.setAttribute('aria-pressed', String(media.startMuted));
    micButton.title = media.startMuted ? 'You will join muted' : 'Join muted';
    micButton.disabled = !media.micTrack;
    const cameraButton = this.$('prejoin-camera');
    cameraButton.classList.toggle('off', !cameraShown);
    cameraButton.setAttribute('aria-pressed', String(!cameraShown));
    cameraButton.title = cameraShown ? 'Turn the camera off' : 'Turn the camera on';
    this.fillDeviceSelects();
    const notices = this.$('device-notices');
    notices.replaceChildren(...[media.notices.microphone, media.notices.camera].filter(Boolean).map(text => element('li', '', text)));
  }

  fillDeviceSelects() {
    // Empty until the device check is over, so a listed option means the choice is real.
    if (!this.media.ready) return;
    const fill = (select, devices, selectedId, noneLabel, kindLabel) => {
      const wanted = [['', noneLabel], ...devices.map((d, i) => [d.deviceId, d.label || `${kindLabel} ${i + 1}`])];
      const current = [...select.options].map(o => [o.value, o.textContent]);
      if (JSON.stringify(current) !== JSON.stringify(wanted)) {
        select.replaceChildren(...wanted.map(([value, label]) => {
          const option = element('option', '', label);
          option.value = value;
          return option;
        }));
      }
      if (document.activeElement !== select) select.value = wanted.some(([value]) => value === selectedId) ? selectedId : '';
    };
    const media = this.media;
    fill(this.$('microphone'), media.devices.audioinput, media.micTrack ? media.micDeviceId : '', 'No microphone', 'Microphone');
    const cameraActive = this.meeting.state === 'prejoin' || this.meeting.state === 'joining' ? media.cameraWanted && media.cameraTrack : this.meeting.cameraOn;
    fill(this.$('camera'), media.devices.videoinput, cameraActive ? media.cameraDeviceId : '', 'No camera', 'Camera');
    const speakers = media.devices.audiooutput;
    const canChooseSpeaker = 'setSinkId' in HTMLMediaElement.prototype && speakers.length > 0;
    this.$('speaker-field').hidden = !canChooseSpeaker;
    if (canChooseSpeaker) fill(this.$('speaker'), speakers, this.speakerId ?? 'default', 'System default', 'Speaker');
  }

  joinError(message) {
    this.$('join-error').textContent = message;
  }

  // ---- Meeting ---------------------------------------------------------------------------------------------

  renderMeeting() {
    const meeting = this.meeting;
    // One set of device selects: in the settings panel while in the meeting.
    const devices = this.$('devices');
    if (devices.parentElement !== this.$('settings-devices')) this.$('settings-devices').appendChild(devices);
    this.$('banner').textContent = meeting.state === 'reconnecting' ? 'Reconnecting…' : '';
    const mute = this.$('mute');
    mute.classList.toggle('off', meeting.muted);
    mute.setAttribute('aria-pressed', String(meeting.muted));
    mute.title = meeting.muted ? 'Unmute' : 'Mute';
    mute.querySelector('.label').textContent = meeting.muted ? 'Unmute' : 'Mute';
    const camera = this.$('camera-toggle');
    camera.classList.toggle('off', !meeting.cameraOn);
    camera.setAttribute('aria-pressed', String(meeting.cameraOn));
    camera.title = meeting.cameraOn ? 'Turn the camera off' : 'Turn the camera on';
    camera.querySelector('.label').textContent = meeting.cameraOn ? 'Stop video' : 'Start video';
    const share = this.$('share');
    share.setAttribute('aria-pressed', String(Boolean(meeting.share)));
    share.querySelector('.label').textContent = meeting.share ? 'Stop sharing' : 'Share';
    share.title = meeting.share ? 'Stop sharing your screen' : 'Share your screen';
    share.disabled = meeting.state !== 'connected' && !meeting.share;
    this.renderTiles();
    this.renderRoster();
    this.updateChat();
    this.renderPanel();
  }

  tile(key, {content = false, local = false} = {}) {
    let tile = this.tiles.get(key);
    if (tile) return tile;
    const root = element('div', `tile${content ? ' content' : ''}${local ? ' local' : ''}`);
    const video = document.createElement('video');
    video.autoplay = true;
    video.muted = true;
    video.playsInline = true;
    const avatar = element('div', 'avatar');
    const initials = element('span');
    avatar.appendChild(initials);
    const note = element('div', 'status-note');
    const label = element('div', 'tile-label');
    const name = element('span', 'name');
    label.append(iconElement('mic-off'), name);
    root.append(video, avatar, note, label);
    video.addEventListener('resize', () => this.update());
    tile = {key, root, video, initials, name, note, track: null};
    this.tiles.set(key, tile);
    return tile;
  }

  setTileVideo(tile, track) {
    if (tile.track !== track) {
      tile.track = track;
      tile.video.srcObject = track ? new MediaStream([track]) : null;
      if (track) tile.video.play().catch(() => {});
      if (track && track.kind === 'video' && tile.key !== 'local' && tile.key !== 'local-content') {
        tile.video.requestVideoFrameCallback?.(() => this.meeting.mark('firstRemoteFrame'));
      }
    }
    tile.root.classList.toggle('has-video', Boolean(track) && tile.video.videoWidth > 0);
  }

  videoOf(key) {
    return this.tiles.get(key)?.video ?? null;
  }

  renderTiles() {
    const meeting = this.meeting;
    const conn = meeting.conn;
    const {contentGroups, cameraGroups, onPageOrder, pageCount} = meeting.layout();
    const slotTrack = groupId => {
      const slot = conn?.slots.find(s => s.groupId === groupId);
      return slot && slot.deliveredStreamId ? slot.transceiver.receiver.track : null;
    };
    const contentKeys = [];
    const gridKeys = [];
    const used = new Set();
    const show = (key, options, fill) => {
      const tile = this.tile(key, options);
      fill(tile);
      used.add(key);
      return key;
    };
    if (meeting.share) {
      contentKeys.push(show('local-content', {content: true, local: true}, tile => {
        tile.name.textContent = 'You are sharing your screen';
        tile.initials.textContent = initialsOf(meeting.name);
        this.setTileVideo(tile, meeting.share.track);
        tile.root.classList.remove('muted', 'speaking');
      }));
    }
    for (const group of contentGroups) {
      const owner = group.attendeeId.slice(0, -CONTENT_SUFFIX.length);
      contentKeys.push(show(`content:${group.attendeeId}`, {content: true}, tile => {
        tile.name.textContent = `${meeting.nameOf(owner)} is presenting`;
        tile.initials.textContent = initialsOf(meeting.nameOf(owner));
        this.setTileVideo(tile, slotTrack(group.groupId));
        tile.note.textContent = meeting.pausedGroups.has(group.groupId) ? 'Paused: weak connection' : '';
        tile.root.classList.remove('muted', 'speaking');
      }));
    }
    if (meeting.attendeeId) {
      gridKeys.push(show('local', {local: true}, tile => {
        tile.name.textContent = `${meeting.name} (you)`;
        tile.initials.textContent = initialsOf(meeting.name);
        tile.root.style.setProperty('--avatar', avatarColor(meeting.attendeeId));
        this.setTileVideo(tile, meeting.cameraOn ? meeting.media.cameraTrack : null);
        tile.root.classList.toggle('muted', meeting.muted);
      }));
    }
    for (const attendeeId of onPageOrder) {
      gridKeys.push(show(`person:${attendeeId}`, {}, tile => {
        const name = meeting.nameOf(attendeeId);
        tile.name.textContent = name;
        tile.initials.textContent = initialsOf(name);
        tile.root.style.setProperty('--avatar', avatarColor(attendeeId));
        tile.root.dataset.attendee = attendeeId;
        const group = cameraGroups.get(attendeeId);
        this.setTileVideo(tile, group ? slotTrack(group.groupId) : null);
        const paused = group && (meeting.pausedGroups.has(group.groupId) || group.streams.some(s => meeting.pausedStreams.has(s.stream_id)));
        tile.note.textContent = paused ? 'Paused: weak connection' : '';
        tile.root.classList.toggle('muted', Boolean(meeting.roster.get(attendeeId)?.muted));
      }));
    }
    for (const [key, tile] of this.tiles) {
      if (used.has(key)) continue;
      tile.video.srcObject = null;
      tile.root.remove();
      this.tiles.delete(key);
    }
    const place = (container, keys) => {
      keys.forEach((key, index) => {
        const node = this.tiles.get(key).root;
        if (container.children[index] !== node) container.insertBefore(node, container.children[index] ?? null);
      });
      while (container.children.length > keys.length) container.lastElementChild.remove();
    };
    place(this.$('content-area'), contentKeys);
    place(this.$('grid'), gridKeys);
    this.$('stage').classList.toggle('has-content', contentKeys.length > 0);
    this.$('pager').classList.toggle('visible', pageCount > 1);
    this.$('stage').classList.toggle('paged', pageCount > 1);
    this.$('page-label').textContent = `${meeting.pageIndex + 1} / ${pageCount}`;
    this.$('page-prev').disabled = meeting.pageIndex === 0;
    this.$('page-next').disabled = meeting.pageIndex >= pageCount - 1;
    this.layoutGrid();
    this.updateSpeaking();
  }

  /** Tile width that fits every grid tile (16:9) in the grid's box. */
  layoutGrid() {
    const grid = this.$('grid');
    const count = grid.children.length;
    if (!count || this.$('stage').classList.contains('has-content')) {
      grid.style.removeProperty('--tile-width');
      return;
    }
    const gap = 10;
    const width = grid.clientWidth, height = grid.clientHeight;
    let best = 0;
    for (let columns = 1; columns <= count; columns++) {
      const rows = Math.ceil(count / columns);
      const tileWidth = Math.min((width - gap * (columns - 1)) / columns, ((height - gap * (rows - 1)) / rows) * 16 / 9);
      best = Math.max(best, tileWidth);
    }
    grid.style.setProperty('--tile-width', `${Math.max(120, Math.floor(best))}px`);
  }

  updateSpeaking() {
    const meeting = this.meeting;
    for (const [key, tile] of this.tiles) {
      const attendeeId = key === 'local' ? meeting.attendeeId : key.startsWith('person:') ? key.slice(7) : null;
      const speaking = attendeeId ? meeting.isSpeaking(attendeeId) : false;
      tile.root.classList.toggle('speaking', speaking);
      if (speaking) tile.root.style.setProperty('--level', String(meeting.roster.get(attendeeId)?.level ?? 1));
    }
    for (const item of this.$('roster').children) {
      item.classList.toggle('speaking', meeting.isSpeaking(item.dataset.attendee));
    }
  }

  renderRoster() {
    const meeting = this.meeting;
    const people = [...meeting.roster.values()].filter(p => !p.attendeeId.endsWith(CONTENT_SUFFIX));
    if (!meeting.roster.has(meeting.attendeeId) && meeting.attendeeId) people.unshift({attendeeId: meeting.attendeeId});
    people.sort((a, b) => (a.attendeeId === meeting.attendeeId ? -1 : b.attendeeId === meeting.attendeeId ? 1
      : meeting.nameOf(a.attendeeId).localeCompare(meeting.nameOf(b.attendeeId))));
    const cameras = new Set(meeting.videoGroups().filter(g => !g.content).map(g => g.attendeeId));
    this.$('people-count').textContent = String(people.length);
    this.$('roster').replaceChildren(...people.map(person => {
      const self = person.attendeeId === meeting.attendeeId;
      const name = meeting.nameOf(person.attendeeId);
      const item = element('li');
      item.dataset.attendee = person.attendeeId;
      const avatar = element('span', 'mini-avatar', initialsOf(name));
      avatar.style.setProperty('--avatar', avatarColor(person.attendeeId));
      const who = element('span', 'who', name);
      if (self) who.appendChild(element('small', '', ' (you)'));
      const muted = self ? meeting.muted : person.muted;
      const video = self ? meeting.cameraOn : cameras.has(person.attendeeId);
      const mic = iconElement(muted ? 'mic-off' : 'mic', `icon${muted ? ' off' : ''}`);
      const cam = iconElement(video ? 'video' : 'video-off', `icon${video ? '' : ' off'}`);
      item.append(avatar, who, mic, cam);
      item.classList.toggle('speaking', meeting.isSpeaking(person.attendeeId));
      return item;
    }));
  }

  updateChat(incoming = false) {
    const meeting = this.meeting;
    const chatLog = this.$('chat-log');
    if (incoming && this.panel !== 'chat') this.unread += 1;
    this.$('chat-unread').textContent = this.unread ? String(this.unread) : '';
    if (meeting.chat.length === 0) {
      if (!chatLog.querySelector('.chat-empty')) chatLog.replaceChildren(element('li', 'chat-empty', 'No messages yet. Messages stay for 5 minutes for people who join later.'));
      return;
    }
    const atBottom = chatLog.scrollHeight - chatLog.scrollTop - chatLog.clientHeight < 40;
    chatLog.replaceChildren(...meeting.chat.map(entry => {
      const item = element('li', `${entry.self ? 'self' : ''}${entry.delivered ? '' : ' undelivered'}`);
      const time = new Date(entry.at).toLocaleTimeString([], {hour: '2-digit', minute: '2-digit'});
      item.append(
        element('span', 'chat-meta', `${entry.self ? 'You' : entry.from} · ${time}${entry.delivered ? '' : ' · not delivered'}`),
        element('span', 'chat-text', entry.text));
      return item;
    }));
    if (atBottom || incoming === false) chatLog.scrollTop = chatLog.scrollHeight;
  }

  openPanel(name) {
    this.panel = this.panel === name ? null : name;
    if (this.panel === 'chat') this.unread = 0;
    this.renderPanel();
    this.updateChat();
    this.layoutGrid();
    if (this.panel === 'chat') this.$('chat-input').focus();
  }

  renderPanel() {
    const panel = this.panel;
    this.$('side-panel').classList.toggle('open', Boolean(panel));
    for (const name of ['chat', 'people', 'settings']) {
      this.$(`panel-${name}`).classList.toggle('active', panel === name);
      this.$(`tab-${name}`).setAttribute('aria-selected', String(panel === name));
    }
    this.$('chat-toggle').setAttribute('aria-pressed', String(panel === 'chat'));
    this.$('people-toggle').setAttribute('aria-pressed', String(panel === 'people'));
    this.$('settings-toggle').setAttribute('aria-pressed', String(panel === 'settings'));
  }

  // ---- End -------------------------------------------------------------------------------------------------

  renderEnd() {
    const meeting = this.meeting;
    if (!['left', 'ended', 'failed'].includes(meeting.state)) return;
    const devices = this.$('devices');
    if (devices.parentElement !== this.$('join-form')) this.$('join-form').insertBefore(devices, this.$('device-notices'));
    for (const tile of this.tiles.values()) tile.video.srcObject = null;
    const failedTitle = meeting.everConnected ? 'You were disconnected' : 'Cannot join the meeting';
    const title = {left: 'You left the meeting', ended: 'The meeting has ended', failed: failedTitle}[meeting.state];
    this.$('end-title').textContent = title;
    const endedPlainly = meeting.state === 'ended' && (!meeting.lastError || meeting.lastError === 'The meeting has ended.');
    this.$('end-message').textContent = meeting.state === 'left' ? 'Thanks for joining.'
      : endedPlainly ? 'Everyone has been disconnected. You can close this page.' : meeting.lastError ?? '';
    this.$('rejoin').textContent = meeting.state === 'left' ? 'Rejoin' : 'Try again';
    this.$('remote-audio').srcObject = null;
  }

  playMixedAudio(track) {
    const audio = this.$('remote-audio');
    audio.srcObject = new MediaStream([track]);
    if (this.speakerId && audio.setSinkId) audio.setSinkId(this.speakerId).catch(() => {});
    audio.play().catch(error => {
      log(`audio playback blocked: ${error.name}`);
      this.toast('Click anywhere to turn on the meeting sound.');
      document.addEventListener('pointerdown', () => audio.play().catch(() => {}), {once: true});
    });
  }

  toast(message, isError = false) {
    if (!message) return;
    const item = element('div', `toast${isError ? ' error' : ''}`, message);
    this.$('toasts').appendChild(item);
    setTimeout(() => item.remove(), 6000);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Start

function pageSizeFromUrl() {
  const value = Number.parseInt(new URLSearchParams(location.search).get('pageSize') ?? '', 10);
  return Number.isInteger(value) && value >= 1 ? value : DEFAULT_PAGE_SIZE;
}

async function start() {
  const view = new View();
  const media = new LocalMedia();
  const meeting = new Meeting({media, view, pageSize: pageSizeFromUrl()});
  view.bind(meeting, media);
  media.meter = new LevelMeter(view.$('mic-meter'));
  window.carillonMeeting = {
    get state() { return meeting.state; },
    snapshot: () => meeting.snapshot(),
    meeting,
  };
  const $ = view.$;
  const params = new URLSearchParams(location.search);
  $('name').value = params.get('name') ?? localStorage.getItem('carillon.name') ?? '';

  $('join-form').addEventListener('submit', event => {
    event.preventDefault();
    if (meeting.state !== 'prejoin' || !media.ready) return;
    const name = $('name').value.trim();
    if (name.length < 2 || name.length > 64) {
      view.joinError('Please enter a name of 2 to 64 characters.');
      $('name').focus();
      return;
    }
    view.joinError('');
    try {
      localStorage.setItem('carillon.name', name);
    } catch {
      // Storage may be off; the name is only a convenience.
    }
    meeting.join(name);
  });
  $('prejoin-mic').addEventListener('click', () => {
    media.startMuted = !media.startMuted;
    view.update();
  });
  $('prejoin-camera').addEventListener('click', async () => {
    if (media.cameraWanted && media.cameraTrack) {
      media.cameraWanted = false;
      media.stopCamera();
    } else {
      media.cameraWanted = true;
      if (!media.cameraTrack) await media.acquireCamera(media.cameraDeviceId);
    }
    view.update();
  });
  $('microphone').addEventListener('change', async event => {
    const deviceId = event.target.value;
    if (['connected', 'reconnecting'].includes(meeting.state)) {
      await meeting.switchMicrophone(deviceId);
    } else if (deviceId) {
      await media.acquireMic(deviceId);
    } else {
      media.replaceMic(null);
      media.micDeviceId = '';
    }
    view.update();
  });
  $('camera').addEventListener('change', async event => {
    const deviceId = event.target.value;
    if (['connected', 'reconnecting'].includes(meeting.state)) {
      await meeting.switchCamera(deviceId);
    } else if (deviceId) {
      media.cameraWanted = true;
      await media.acquireCamera(deviceId);
    } else {
      media.cameraWanted = false;
      media.stopCamera();
    }
    view.update();
  });
  $('speaker').addEventListener('change', event => {
    view.speakerId = event.target.value || 'default';
    $('remote-audio').setSinkId?.(view.speakerId === 'default' ? '' : view.speakerId).catch(error => log(`speaker: ${error.message}`));
  });
  $('mute').addEventListener('click', () => meeting.setMuted(!meeting.muted));
  $('camera-toggle').addEventListener('click', () => meeting.setCamera(!meeting.cameraOn));
  $('share').addEventListener('click', () => meeting.toggleShare());
  $('leave').addEventListener('click', () => meeting.leave());
  $('chat-toggle').addEventListener('click', () => view.openPanel('chat'));
  $('people-toggle').addEventListener('click', () => view.openPanel('people'));
  $('settings-toggle').addEventListener('click', () => view.openPanel('settings'));
  for (const name of ['chat', 'people', 'settings']) $(`tab-${name}`).addEventListener('click', () => view.openPanel(name));
  $('panel-close').addEventListener('click', () => view.openPanel(null));
  $('chat-form').addEventListener('submit', event => {
    event.preventDefault();
    if (meeting.sendChat($('chat-input').value)) $('chat-input').value = '';
  });
  $('page-prev').addEventListener('click', () => meeting.setPage(meeting.pageIndex - 1));
  $('page-next').addEventListener('click', () => meeting.setPage(meeting.pageIndex + 1));
  $('rejoin').addEventListener('click', async () => {
    const name = meeting.name || $('name').value.trim();
    const cameraWanted = media.cameraWanted;
    meeting.reset();
    view.panel = null;
    meeting.setState('prejoin');
    await media.requestAccess();
    media.cameraWanted = cameraWanted;
    if (!cameraWanted) media.stopCamera();
    view.update();
    if (name.length >= 2) meeting.join(name);
  });
  window.addEventListener('pagehide', () => meeting.leaveOnUnload());
  document.addEventListener('visibilitychange', () => meeting.onVisibilityChange(document.hidden));
  navigator.mediaDevices?.addEventListener?.('devicechange', async () => {
    await media.enumerate();
    view.update();
  });

  view.update();
  await media.requestAccess();
  log(`devices: microphone ${media.micTrack ? media.micTrack.label : 'none'}, camera ${media.cameraTrack ? media.cameraTrack.label : 'none'}`);
  view.update();
}

if (typeof document !== 'undefined') {
  start().catch(error => {
    console.error('carillon: the page failed to start', error);
  });
}
