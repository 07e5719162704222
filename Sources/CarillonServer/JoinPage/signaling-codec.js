// Carillon join page: a small proto2 codec for the Chime signaling frames (Protos/SignalingProtocol.proto,
// shared/specs/signaling.md §2), driven by a schema table instead of generated code.
//
// Decoded messages are plain objects whose keys are the proto's snake_case field names. Presence is kept: an
// optional field that was not on the wire has no property (signaling.md §1.4: muted=false differs from absent);
// repeated fields are always arrays. 64-bit integers (uint64, int64) decode to BigInt; encoding takes a BigInt or a
// safe integer Number. bytes are Uint8Array, strings UTF-8. Repeated scalars are written unpacked (as the Chime JS
// client does) and read packed or unpacked. Unknown fields are skipped; a missing required field is an error both
// ways, as for the reference client (a frame that fails to decode is dropped).

/** Enum tables by proto name (nested enums as `Message.Enum`). */
export const ENUMS = {
  'SdkSignalFrame.Type': {
    JOIN: 1, JOIN_ACK: 2, SUBSCRIBE: 3, SUBSCRIBE_ACK: 4, INDEX: 5, PAUSE: 7, RESUME: 8, LEAVE: 9, LEAVE_ACK: 10,
    BITRATES: 13, AUDIO_CONTROL: 16, AUDIO_METADATA: 17, AUDIO_STREAM_ID_INFO: 18, PING_PONG: 19, AUDIO_STATUS: 20,
    CLIENT_METRIC: 21, DATA_MESSAGE: 22, REMOTE_VIDEO_UPDATE: 24, PRIMARY_MEETING_JOIN: 25,
    PRIMARY_MEETING_JOIN_ACK: 26, PRIMARY_MEETING_LEAVE: 27, NOTIFICATION: 34, MEETING_SESSION_TIMING: 43,
  },
  SdkJoinFlags: {HAS_STREAM_UPDATE: 2, COMPLETE_VIDEO_SOURCES_LIST: 16, EXCLUDE_SELF_CONTENT_IN_INDEX: 32},
  SdkServerSideNetworkAdaption: {
    DEFAULT: 1, NONE: 2, BANDWIDTH_PROBING: 3, BANDWIDTH_PROBING_AND_VIDEO_QUALITY_ADAPTION: 4,
  },
  SdkStreamServiceType: {RX: 1, TX: 2, DUPLEX: 3},
  SdkStreamMediaType: {AUDIO: 1, VIDEO: 2},
  SdkVideoQualityAdaptationPreference: {BALANCED: 1, MAINTAIN_FRAMERATE: 2, MAINTAIN_RESOLUTION: 3},
  SdkVideoCodecCapability: {
    VP8: 1, H264_BASELINE_PROFILE: 2, H264_CONSTRAINED_BASELINE_PROFILE: 3, H264_MAIN_PROFILE: 4,
    H264_HIGH_PROFILE: 5, H264_CONSTRAINED_HIGH_PROFILE: 6, VP9_PROFILE_0: 8, AV1_MAIN_PROFILE: 11,
  },
  SdkPingPongType: {PING: 1, PONG: 2},
  'SdkNotificationFrame.NotificationLevel': {INFO: 1, WARNING: 2, ERROR: 3},
};

/** The frame types by name, for readable code: FrameType.JOIN === 1. */
export const FrameType = ENUMS['SdkSignalFrame.Type'];

// One schema row. `type` is a scalar type name, `enum:<Enum>` or `message:<Message>`.
const field = (number, name, type, label = 'optional', extra = {}) => ({name, number, type, label, ...extra});

/**
 * The messages the page reads or writes, each a list of fields in field-number order. Fields of the proto that the
 * page never uses (client metrics, replica promotion, timing) are left out: decoding skips them as unknown.
 */
export const SCHEMA = {
  SdkSignalFrame: [
    field(1, 'timestamp_ms', 'uint64', 'required'),
    field(2, 'type', 'enum:SdkSignalFrame.Type', 'required'),
    field(3, 'error', 'message:SdkErrorFrame'),
    field(4, 'join', 'message:SdkJoinFrame'),
    field(5, 'joinack', 'message:SdkJoinAckFrame'),
    field(6, 'sub', 'message:SdkSubscribeFrame'),
    field(7, 'suback', 'message:SdkSubscribeAckFrame'),
    field(8, 'index', 'message:SdkIndexFrame'),
    field(10, 'pause', 'message:SdkPauseResumeFrame'),
    field(11, 'leave', 'message:SdkLeaveFrame'),
    field(12, 'leave_ack', 'message:SdkLeaveAckFrame'),
    field(14, 'bitrates', 'message:SdkBitrateFrame'),
    field(17, 'audio_control', 'message:SdkAudioControlFrame'),
    field(18, 'audio_metadata', 'message:SdkAudioMetadataFrame'),
    field(19, 'audio_stream_id_info', 'message:SdkAudioStreamIdInfoFrame'),
    field(20, 'ping_pong', 'message:SdkPingPongFrame'),
    field(21, 'audio_status', 'message:SdkAudioStatusFrame'),
    field(23, 'data_message', 'message:SdkDataMessageFrame'),
    field(25, 'remote_video_update', 'message:SdkRemoteVideoUpdateFrame'),
    field(35, 'notification', 'message:SdkNotificationFrame'),
  ],
  SdkErrorFrame: [
    field(1, 'status', 'uint32'),
    field(2, 'description', 'string'),
  ],
  SdkClientDetails: [
    field(1, 'app_name', 'string'),
    field(2, 'app_version', 'string'),
    field(3, 'device_model', 'string'),
    field(4, 'device_make', 'string'),
    field(5, 'platform_name', 'string'),
    field(6, 'platform_version', 'string'),
    field(7, 'client_source', 'string'),
    field(8, 'chime_sdk_version', 'string'),
    field(9, 'client_utc_offset', 'string'),
    field(10, 'os_name', 'string'),
    field(11, 'os_version', 'string'),
  ],
  SdkJoinFrame: [
    field(1, 'protocol_version', 'uint32', 'optional', {default: 2}),
    field(2, 'max_num_of_videos', 'uint32'),
    field(3, 'flags', 'uint32'),
    field(4, 'client_details', 'message:SdkClientDetails'),
    field(6, 'audio_session_id', 'uint64'),
    field(7, 'wants_compressed_sdp', 'bool'),
    field(10, 'server_side_network_adaption', 'enum:SdkServerSideNetworkAdaption'),
    field(11, 'supported_server_side_network_adaptions', 'enum:SdkServerSideNetworkAdaption', 'repeated'),
    field(12, 'wants_all_temporal_layers_in_index', 'bool'),
    field(13, 'disable_periodic_keyframe_request_on_content_sender', 'bool'),
  ],
  SdkTurnCredentials: [
    field(1, 'username', 'string'),
    field(2, 'password', 'string'),
    field(3, 'ttl', 'uint32'),
    field(4, 'uris', 'string', 'repeated'),
  ],
  SdkJoinAckFrame: [
    field(1, 'turn_credentials', 'message:SdkTurnCredentials'),
    field(2, 'video_subscription_limit', 'uint32'),
    field(3, 'wants_compressed_sdp', 'bool'),
    field(4, 'default_server_side_network_adaption', 'enum:SdkServerSideNetworkAdaption'),
  ],
  SdkLeaveFrame: [],
  SdkLeaveAckFrame: [],
  SdkStreamDescriptor: [
    field(1, 'stream_id', 'uint32'),
    field(2, 'framerate', 'uint32'),
    field(3, 'max_bitrate_kbps', 'uint32'),
    field(4, 'track_label', 'string'),
    field(6, 'group_id', 'uint32'),
    field(7, 'avg_bitrate_bps', 'uint32'),
    field(8, 'attendee_id', 'string'),
    field(9, 'media_type', 'enum:SdkStreamMediaType'),
    field(10, 'external_user_id', 'string'),
    field(11, 'width', 'uint32'),
    field(12, 'height', 'uint32'),
  ],
  SdkVideoSubscriptionConfiguration: [
    field(1, 'mid', 'string', 'required'),
    field(2, 'attendee_id', 'string'),
    field(3, 'stream_id', 'uint32'),
    field(4, 'priority', 'uint32'),
    field(5, 'target_bitrate_kbps', 'uint32'),
    field(6, 'group_id', 'uint32'),
    field(7, 'quality_adaptation_preference', 'enum:SdkVideoQualityAdaptationPreference'),
  ],
  SdkSubscribeFrame: [
    field(1, 'duplex', 'enum:SdkStreamServiceType', 'optional', {default: 1}),
    field(2, 'send_streams', 'message:SdkStreamDescriptor', 'repeated'),
    field(3, 'receive_stream_ids', 'uint32', 'repeated'),
    field(4, 'sdp_offer', 'string'),
    field(5, 'audio_host', 'string'),
    field(6, 'audio_checkin', 'bool'),
    field(7, 'audio_muted', 'bool'),
    field(8, 'compressed_sdp_offer', 'bytes'),
    field(9, 'video_subscription_configuration', 'message:SdkVideoSubscriptionConfiguration', 'repeated'),
  ],
  SdkStreamAllocation: [
    field(1, 'track_label', 'string'),
    field(2, 'stream_id', 'uint32'),
    field(3, 'group_id', 'uint32'),
  ],
  SdkTrackMapping: [
    field(1, 'stream_id', 'uint32'),
    field(2, 'ssrc', 'uint32'),
    field(3, 'track_label', 'string'),
  ],
  SdkSubscribeAckFrame: [
    field(1, 'duplex', 'enum:SdkStreamServiceType'),
    field(2, 'allocations', 'message:SdkStreamAllocation', 'repeated'),
    field(3, 'sdp_answer', 'string'),
    field(4, 'tracks', 'message:SdkTrackMapping', 'repeated'),
    field(5, 'compressed_sdp_answer', 'bytes'),
  ],
  SdkIndexFrame: [
    field(1, 'at_capacity', 'bool'),
    field(2, 'sources', 'message:SdkStreamDescriptor', 'repeated'),
    field(3, 'paused_at_source_ids', 'uint32', 'repeated'),
    field(4, 'num_participants', 'uint32'),
    field(5, 'supported_receive_codec_intersection', 'enum:SdkVideoCodecCapability', 'repeated'),
  ],
  SdkPauseResumeFrame: [
    field(1, 'stream_ids', 'uint32', 'repeated'),
    field(2, 'group_ids', 'uint32', 'repeated'),
  ],
  SdkBitrate: [
    field(1, 'source_stream_id', 'uint32'),
    field(2, 'avg_bitrate_bps', 'uint32'),
  ],
  SdkBitrateFrame: [
    field(1, 'bitrates', 'message:SdkBitrate', 'repeated'),
    field(2, 'server_available_outgoing_bitrate', 'uint32'),
  ],
  SdkAudioControlFrame: [
    field(1, 'muted', 'bool'),
  ],
  SdkAudioAttendeeState: [
    field(1, 'audio_stream_id', 'uint32'),
    field(2, 'volume', 'uint32'),
    field(3, 'muted', 'bool'),
    field(4, 'signal_strength', 'uint32'),
  ],
  SdkAudioMetadataFrame: [
    field(1, 'attendee_states', 'message:SdkAudioAttendeeState', 'repeated'),
  ],
  SdkAudioStreamIdInfo: [
    field(1, 'audio_stream_id', 'uint32'),
    field(2, 'attendee_id', 'string'),
    field(3, 'muted', 'bool'),
    field(4, 'external_user_id', 'string'),
    field(5, 'dropped', 'bool'),
  ],
  SdkAudioStreamIdInfoFrame: [
    field(1, 'streams', 'message:SdkAudioStreamIdInfo', 'repeated'),
  ],
  SdkAudioStatusFrame: [
    field(1, 'audio_status', 'uint32'),
  ],
  SdkPingPongFrame: [
    field(1, 'type', 'enum:SdkPingPongType', 'required'),
    field(2, 'ping_id', 'uint32', 'required'),
  ],
  SdkDataMessagePayload: [
    field(1, 'topic', 'string'),
    field(2, 'data', 'bytes'),
    field(3, 'lifetime_ms', 'uint32'),
    field(4, 'sender_attendee_id', 'string'),
    field(5, 'ingest_time_ns', 'int64'),
    field(6, 'sender_external_user_id', 'string'),
  ],
  SdkDataMessageFrame: [
    field(1, 'messages', 'message:SdkDataMessagePayload', 'repeated'),
  ],
  SdkRemoteVideoUpdateFrame: [
    field(1, 'added_or_updated_video_subscriptions', 'message:SdkVideoSubscriptionConfiguration', 'repeated'),
    field(2, 'removed_video_subscription_mids', 'string', 'repeated'),
  ],
  SdkNotificationFrame: [
    field(1, 'level', 'enum:SdkNotificationFrame.NotificationLevel', 'optional', {default: 3}),
    field(2, 'message', 'string'),
  ],
};

// Wire types (protobuf encoding guide): varint, 64-bit, length-delimited, group start/end, 32-bit.
const VARINT = 0, FIXED64 = 1, LENGTH_DELIMITED = 2, START_GROUP = 3, END_GROUP = 4, FIXED32 = 5;

const WIRE_TYPE = {
  uint32: VARINT, uint64: VARINT, int64: VARINT, bool: VARINT, enum: VARINT, double: FIXED64,
  string: LENGTH_DELIMITED, bytes: LENGTH_DELIMITED, message: LENGTH_DELIMITED,
};

// Per message: field number -> row, and name -> row, built once.
const byNumber = {}, byName = {};
for (const [message, fields] of Object.entries(SCHEMA)) {
  byNumber[message] = new Map(fields.map(row => [row.number, row]));
  byName[message] = new Map(fields.map(row => [row.name, row]));
}

const kindOf = type => type.split(':')[0];
const targetOf = type => type.slice(type.indexOf(':') + 1);

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder();
const TWO_POW_32 = 4294967296;

// ---------------------------------------------------------------------------------------------------------------
// Encoding

/** A growable byte buffer for the encoder. */
class ByteWriter {
  constructor() {
    this.bytes = new Uint8Array(256);
    this.length = 0;
  }

  reserve(count) {
    if (this.length + count <= this.bytes.length) return;
    let size = this.bytes.length * 2;
    while (size < this.length + count) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }

  byte(value) {
    this.reserve(1);
    this.bytes[this.length++] = value;
  }

  raw(bytes) {
    this.reserve(bytes.length);
    this.bytes.set(bytes, this.length);
    this.length += bytes.length;
  }

  // A varint of an unsigned value below 2^32 (a Number).
  varint32(value) {
    let rest = value >>> 0;
    while (rest > 0x7f) {
      this.byte((rest & 0x7f) | 0x80);
      rest >>>= 7;
    }
    this.byte(rest);
  }

  // A varint of an unsigned 64-bit value (a BigInt in [0, 2^64)).
  varint64(value) {
    let rest = value;
    while (rest > 0x7fn) {
      this.byte(Number(rest & 0x7fn) | 0x80);
      rest >>= 7n;
    }
    this.byte(Number(rest));
  }

  tag(number, wireType) {
    this.varint32(((number << 3) | wireType) >>> 0);
  }

  finish() {
    return this.bytes.slice(0, this.length);
  }
}

function checkedInteger(value, row, message) {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  throw new TypeError(`${message}.${row.name}: expected an integer, got ${typeof value} ${String(value)}`);
}

function writeScalar(writer, row, message, value) {
  const kind = kindOf(row.type);
  switch (kind) {
    case 'uint32': {
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value >= TWO_POW_32) {
        throw new TypeError(`${message}.${row.name}: expected a uint32, got ${String(value)}`);
      }
      writer.varint32(value);
      return;
    }
    case 'enum': {
      const values = ENUMS[targetOf(row.type)];
      if (typeof value !== 'number' || !Object.values(values).includes(value)) {
        throw new TypeError(`${message}.${row.name}: ${String(value)} is not a ${targetOf(row.type)} value`);
      }
      writer.varint32(value);
      return;
    }
    case 'bool':
      if (typeof value !== 'boolean') throw new TypeError(`${message}.${row.name}: expected a boolean`);
      writer.byte(value ? 1 : 0);
      return;
    case 'uint64': {
      const integer = checkedInteger(value, row, message);
      if (integer < 0n || integer >= 1n << 64n) throw new RangeError(`${message}.${row.name}: out of uint64 range`);
      writer.varint64(integer);
      return;
    }
    case 'int64': {
      const integer = checkedInteger(value, row, message);
      if (integer < -(1n << 63n) || integer >= 1n << 63n) {
        throw new RangeError(`${message}.${row.name}: out of int64 range`);
      }
      // Negative values travel as their two's complement: a 10-byte varint.
      writer.varint64(BigInt.asUintN(64, integer));
      return;
    }
    case 'double': {
      if (typeof value !== 'number') throw new TypeError(`${message}.${row.name}: expected a number`);
      const bytes = new Uint8Array(8);
      new DataView(bytes.buffer).setFloat64(0, value, true);
      writer.raw(bytes);
      return;
    }
    case 'string': {
      if (typeof value !== 'string') throw new TypeError(`${message}.${row.name}: expected a string`);
      const bytes = utf8Encoder.encode(value);
      writer.varint32(bytes.length);
      writer.raw(bytes);
      return;
    }
    case 'bytes': {
      let bytes = value;
      if (bytes instanceof ArrayBuffer) bytes = new Uint8Array(bytes);
      if (!(bytes instanceof Uint8Array)) throw new TypeError(`${message}.${row.name}: expected a Uint8Array`);
      writer.varint32(bytes.length);
      writer.raw(bytes);
      return;
    }
    case 'message': {
      const nested = encodeMessage(targetOf(row.type), value);
      writer.varint32(nested.length);
      writer.raw(nested);
      return;
    }
    default:
      throw new TypeError(`${message}.${row.name}: unknown type ${row.type}`);
  }
}

function writeMessage(writer, message, object) {
  const rows = byName[message];
  if (!rows) throw new TypeError(`unknown message ${message}`);
  if (object === null || typeof object !== 'object') throw new TypeError(`${message}: expected an object`);
  for (const key of Object.keys(object)) {
    if (!rows.has(key)) throw new TypeError(`${message} has no field ${key}`);
  }
  for (const row of SCHEMA[message]) {
    const value = object[row.name];
    const absent = value === undefined || value === null;
    if (row.label === 'required' && absent) throw new TypeError(`${message}.${row.name} is required`);
    if (absent) continue;
    const wireType = WIRE_TYPE[kindOf(row.type)];
    if (row.label === 'repeated') {
      if (!Array.isArray(value)) throw new TypeError(`${message}.${row.name}: expected an array`);
      for (const element of value) {
        writer.tag(row.number, wireType);
        writeScalar(writer, row, message, element);
      }
    } else {
      writer.tag(row.number, wireType);
      writeScalar(writer, row, message, value);
    }
  }
}

/** The wire bytes of `object` as the message `message` (no frame-type byte). */
export function encodeMessage(message, object) {
  const writer = new ByteWriter();
  writeMessage(writer, message, object);
  return writer.finish();
}

/** One WebSocket message: the 0x05 frame-type byte, then the encoded SdkSignalFrame. */
export function encodeFrame(frame) {
  const writer = new ByteWriter();
  writer.byte(0x05);
  writeMessage(writer, 'SdkSignalFrame', frame);
  return writer.finish();
}

// ---------------------------------------------------------------------------------------------------------------
// Decoding

class DecodeError extends Error {}

/** Reads protobuf primitives from a Uint8Array slice. */
class ByteReader {
  constructor(bytes, start = 0, end = bytes.length) {
    this.bytes = bytes;
    this.position = start;
    this.end = end;
  }

  get done() {
    return this.position >= this.end;
  }

  byte() {
    if (this.position >= this.end) throw new DecodeError('truncated message');
    return this.bytes[this.position++];
  }

  // A varint as its low and high 32-bit halves (unsigned Numbers), so no precision is lost above 2^53.
  varintParts() {
    let low = 0, high = 0;
    for (let index = 0; index < 10; index++) {
      const byte = this.byte();
      const bits = byte & 0x7f;
      const shift = index * 7;
      if (shift < 28) {
        low |= bits << shift;
      } else if (shift === 28) {
        low |= (bits & 0x0f) << 28;
        high |= bits >>> 4;
      } else {
        high |= bits << (shift - 32);
      }
      if ((byte & 0x80) === 0) return [low >>> 0, high >>> 0];
    }
    throw new DecodeError('varint longer than 10 bytes');
  }

  uint32() {
    return this.varintParts()[0];
  }

  uint64() {
    const [low, high] = this.varintParts();
    return (BigInt(high) << 32n) | BigInt(low);
  }

  slice(length) {
    if (length > this.end - this.position) throw new DecodeError('length past the end of the message');
    const start = this.position;
    this.position += length;
    return [start, this.position];
  }

  skip(wireType, number) {
    switch (wireType) {
      case VARINT: this.varintParts(); return;
      case FIXED64: this.slice(8); return;
      case FIXED32: this.slice(4); return;
      case LENGTH_DELIMITED: this.slice(this.uint32()); return;
      case START_GROUP:
        // A proto2 group: skip fields until its matching end tag.
        for (;;) {
          const tag = this.uint32();
          if ((tag & 7) === END_GROUP) {
            if (tag >>> 3 !== number) throw new DecodeError('mismatched end of group');
            return;
          }
          this.skip(tag & 7, tag >>> 3);
        }
      default:
        throw new DecodeError(`unknown wire type ${wireType}`);
    }
  }
}

// One scalar of `row` read from a reader positioned at its value (wire type already matched).
function readScalar(reader, row) {
  switch (kindOf(row.type)) {
    case 'uint32': return reader.uint32();
    case 'enum': return reader.uint32();
    case 'bool': {
      const [low, high] = reader.varintParts();
      return (low | high) !== 0;
    }
    case 'uint64': return reader.uint64();
    case 'int64': return BigInt.asIntN(64, reader.uint64());
    case 'double': {
      const [start] = reader.slice(8);
      return new DataView(reader.bytes.buffer, reader.bytes.byteOffset + start, 8).getFloat64(0, true);
    }
    case 'string': {
      const [start, end] = reader.slice(reader.uint32());
      return utf8Decoder.decode(reader.bytes.subarray(start, end));
    }
    case 'bytes': {
      const [start, end] = reader.slice(reader.uint32());
      return reader.bytes.slice(start, end);
    }
    case 'message': {
      const [start, end] = reader.slice(reader.uint32());
      return readMessage(new ByteReader(reader.bytes, start, end), targetOf(row.type));
    }
    default:
      throw new DecodeError(`unknown type ${row.type}`);
  }
}

function readMessage(reader, message) {
  const rows = byNumber[message];
  const object = {};
  for (const row of SCHEMA[message]) if (row.label === 'repeated') object[row.name] = [];
  while (!reader.done) {
    const tag = reader.uint32();
    const number = tag >>> 3, wireType = tag & 7;
    if (number === 0) throw new DecodeError('field number 0');
    const row = rows.get(number);
    const expected = row && WIRE_TYPE[kindOf(row.type)];
    if (row && wireType === expected) {
      const value = readScalar(reader, row);
      // A repeated field collects every element; a singular one keeps the last (the proto merge rule for scalars).
      if (row.label === 'repeated') object[row.name].push(value);
      else if (kindOf(row.type) === 'message' && object[row.name] !== undefined) {
        object[row.name] = mergeMessages(targetOf(row.type), object[row.name], value);
      } else object[row.name] = value;
    } else if (row && row.label === 'repeated' && wireType === LENGTH_DELIMITED && expected !== LENGTH_DELIMITED) {
      // Packed repeated scalars: one length-delimited run of values.
      const [start, end] = reader.slice(reader.uint32());
      const packed = new ByteReader(reader.bytes, start, end);
      while (!packed.done) object[row.name].push(readScalar(packed, row));
    } else {
      reader.skip(wireType, number);
    }
  }
  for (const row of SCHEMA[message]) {
    if (row.label === 'required' && object[row.name] === undefined) {
      throw new DecodeError(`${message}.${row.name} is required but missing`);
    }
  }
  return object;
}

// A singular sub-message seen twice on the wire merges (later fields win, repeated ones append).
function mergeMessages(message, first, second) {
  const merged = {...first};
  for (const row of SCHEMA[message]) {
    const value = second[row.name];
    if (value === undefined) continue;
    if (row.label === 'repeated') merged[row.name] = [...first[row.name], ...value];
    else if (kindOf(row.type) === 'message' && first[row.name] !== undefined) {
      merged[row.name] = mergeMessages(targetOf(row.type), first[row.name], value);
    } else merged[row.name] = value;
  }
  return merged;
}

function asBytes(data) {
  if (data instanceof Uint8Array) return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  throw new TypeError('expected an ArrayBuffer or Uint8Array');
}

/** The message `message` decoded from its wire bytes (no frame-type byte). Throws on malformed input. */
export function decodeMessage(message, data) {
  if (!SCHEMA[message]) throw new TypeError(`unknown message ${message}`);
  return readMessage(new ByteReader(asBytes(data)), message);
}

/**
 * The SdkSignalFrame of one WebSocket message. The first byte is the frame type: 0x05 (or the legacy 0x02) is
 * expected; like the reference client, any other value is reported through `onUnexpectedType` and decoding goes on.
 */
export function decodeFrame(data, onUnexpectedType = null) {
  const bytes = asBytes(data);
  if (bytes.length < 1) throw new DecodeError('empty signaling message');
  if (bytes[0] !== 0x05 && bytes[0] !== 0x02 && onUnexpectedType) onUnexpectedType(bytes[0]);
  return readMessage(new ByteReader(bytes, 1), 'SdkSignalFrame');
}

/** The name of an enum value, for logs: enumName('SdkSignalFrame.Type', 5) === 'INDEX'. */
export function enumName(enumeration, value) {
  const entry = Object.entries(ENUMS[enumeration] ?? {}).find(([, number]) => number === value);
  return entry ? entry[0] : String(value);
}

export {DecodeError};
