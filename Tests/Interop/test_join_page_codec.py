"""The join page's signaling codec (Sources/CarillonServer/JoinPage/signaling-codec.js) against the proto.

(a) Its schema table matches Protos/SignalingProtocol.proto (compiled by protoc into a descriptor set): every message,
field number, type, label, explicit default and enum value. (b) Frames go both ways through node: Python's protobuf
classes build frames that set every field the schema lists (presence-only values such as muted=False, 64-bit values
above 2^53, negative int64, packed and unpacked repeated scalars, nested messages, UTF-8 text, bytes), node decodes
and re-encodes them, Python parses the result and compares; and the frame builders of meeting.js (the frames the page
sends) are encoded by node and parsed by Python, field by field.
"""
import atexit
import importlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

import pytest
from google.protobuf import descriptor_pb2

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
PROTOS = os.path.join(REPO, "Protos")
PAGE = os.path.join(REPO, "Sources", "CarillonServer", "JoinPage")


def _module_copies():
    """The page's scripts copied beside a `package.json` of type module: Debian 12's node (18) reads a `.js` file as
    CommonJS unless its package says otherwise (newer ones detect ES module syntax by themselves)."""
    directory = tempfile.mkdtemp(prefix="carillon-join-page-js-")
    atexit.register(shutil.rmtree, directory, True)
    for name in ("signaling-codec.js", "meeting.js"):
        shutil.copy(os.path.join(PAGE, name), directory)
    with open(os.path.join(directory, "package.json"), "w") as handle:
        handle.write('{"type": "module"}\n')
    return directory


MODULES = _module_copies()
CODEC_URL = "file://" + os.path.join(MODULES, "signaling-codec.js")
MEETING_URL = "file://" + os.path.join(MODULES, "meeting.js")
TIMESTAMP = 1_700_000_000_123

# The messages the page needs (the brief of the page): the schema must cover each of them.
REQUIRED_MESSAGES = [
    "SdkSignalFrame", "SdkErrorFrame", "SdkJoinFrame", "SdkClientDetails", "SdkJoinAckFrame", "SdkTurnCredentials",
    "SdkLeaveFrame", "SdkLeaveAckFrame", "SdkStreamDescriptor", "SdkVideoSubscriptionConfiguration",
    "SdkSubscribeFrame", "SdkStreamAllocation", "SdkTrackMapping", "SdkSubscribeAckFrame", "SdkIndexFrame",
    "SdkPauseResumeFrame", "SdkBitrate", "SdkBitrateFrame", "SdkAudioControlFrame", "SdkAudioAttendeeState",
    "SdkAudioMetadataFrame", "SdkAudioStreamIdInfo", "SdkAudioStreamIdInfoFrame", "SdkAudioStatusFrame",
    "SdkPingPongFrame", "SdkDataMessagePayload", "SdkDataMessageFrame", "SdkRemoteVideoUpdateFrame",
    "SdkNotificationFrame",
]

# Runs one request (JSON on stdin) against the codec and the page module; answers JSON on stdout. BigInt values
# travel as {"$bigint": "..."} and byte arrays as {"$bytes": "<hex>"}, both ways.
NODE_DRIVER = r"""
import {readFileSync} from 'node:fs';
const request = JSON.parse(readFileSync(0, 'utf8'));
const codec = await import(request.codec);
const page = request.meeting ? await import(request.meeting) : null;
const toHex = bytes => Buffer.from(bytes).toString('hex');
const fromHex = hex => new Uint8Array(Buffer.from(hex, 'hex'));
const tag = value => JSON.parse(JSON.stringify(value, (key, item) =>
  typeof item === 'bigint' ? {$bigint: item.toString()}
    : item instanceof Uint8Array ? {$bytes: toHex(item)} : item));
const untag = value => JSON.parse(JSON.stringify(value), (key, item) =>
  item && typeof item === 'object' && '$bigint' in item ? BigInt(item.$bigint)
    : item && typeof item === 'object' && '$bytes' in item ? fromHex(item.$bytes) : item);
const attempt = work => { try { return work(); } catch (error) { return {error: String(error.message ?? error)}; } };
let answer;
switch (request.op) {
  case 'schema':
    answer = {schema: codec.SCHEMA, enums: codec.ENUMS};
    break;
  case 'roundtrip':
    answer = request.frames.map(hex => attempt(() => {
      const decoded = codec.decodeFrame(fromHex(hex));
      return {decoded: tag(decoded), encoded: toHex(codec.encodeFrame(decoded))};
    }));
    break;
  case 'encode':
    answer = request.frames.map(frame => attempt(() => toHex(codec.encodeFrame(untag(frame)))));
    break;
  case 'page':
    answer = request.calls.map(({fn, args}) => attempt(() => {
      const result = page[fn](...untag(args));
      if (request.encode) return toHex(codec.encodeFrame(page.stampFrame(result, request.timestamp)));
      return tag(result);
    }));
    break;
  default:
    answer = {error: 'unknown op'};
}
process.stdout.write(JSON.stringify(answer));
"""


def node(request):
    completed = subprocess.run(["node", "--input-type=module", "-e", NODE_DRIVER],
                               input=json.dumps({"codec": CODEC_URL, **request}), capture_output=True, text=True,
                               timeout=60)
    assert completed.returncode == 0, completed.stderr[-4000:]
    return json.loads(completed.stdout)


def page_calls(calls, encode=True):
    """Runs meeting.js exports: each call is (function name, [arguments]); with `encode`, each result is a frame,
    stamped with TIMESTAMP and encoded by the codec (hex)."""
    answer = node({"op": "page", "meeting": MEETING_URL, "encode": encode, "timestamp": TIMESTAMP,
                   "calls": [{"fn": fn, "args": args} for fn, args in calls]})
    for (fn, _), item in zip(calls, answer):
        assert not (isinstance(item, dict) and "error" in item), (fn, item)
    return answer


@pytest.fixture(scope="module")
def pb():
    out = tempfile.mkdtemp(prefix="carillon-join-page-pb-")
    subprocess.run(["protoc", f"--proto_path={PROTOS}", f"--python_out={out}", "SignalingProtocol.proto"],
                   check=True, cwd=PROTOS)
    sys.path.insert(0, out)
    try:
        return importlib.import_module("SignalingProtocol_pb2")
    finally:
        sys.path.remove(out)


@pytest.fixture(scope="module")
def descriptors():
    """The proto's messages and enums by name (nested ones as `Outer.Inner`), from protoc's descriptor set."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "signaling.desc")
        subprocess.run(["protoc", f"--proto_path={PROTOS}", f"--descriptor_set_out={path}", "SignalingProtocol.proto"],
                       check=True, cwd=PROTOS)
        file_set = descriptor_pb2.FileDescriptorSet()
        with open(path, "rb") as file:
            file_set.ParseFromString(file.read())
    messages, enums = {}, {}

    def visit(message, prefix):
        name = prefix + message.name
        messages[name] = message
        for enum in message.enum_type:
            enums[f"{name}.{enum.name}"] = enum
        for nested in message.nested_type:
            visit(nested, name + ".")

    for proto in file_set.file:
        for message in proto.message_type:
            visit(message, "")
        for enum in proto.enum_type:
            enums[enum.name] = enum
    return messages, enums


@pytest.fixture(scope="module")
def js_schema():
    return node({"op": "schema"})


SCALAR_TYPES = {
    descriptor_pb2.FieldDescriptorProto.TYPE_UINT32: "uint32",
    descriptor_pb2.FieldDescriptorProto.TYPE_UINT64: "uint64",
    descriptor_pb2.FieldDescriptorProto.TYPE_INT64: "int64",
    descriptor_pb2.FieldDescriptorProto.TYPE_BOOL: "bool",
    descriptor_pb2.FieldDescriptorProto.TYPE_STRING: "string",
    descriptor_pb2.FieldDescriptorProto.TYPE_BYTES: "bytes",
    descriptor_pb2.FieldDescriptorProto.TYPE_DOUBLE: "double",
}
LABELS = {
    descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL: "optional",
    descriptor_pb2.FieldDescriptorProto.LABEL_REQUIRED: "required",
    descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED: "repeated",
}


def proto_type(field):
    if field.type == descriptor_pb2.FieldDescriptorProto.TYPE_ENUM:
        return "enum:" + field.type_name.lstrip(".")
    if field.type == descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE:
        return "message:" + field.type_name.lstrip(".")
    return SCALAR_TYPES.get(field.type, f"unsupported type {field.type}")


# ---- (a) the schema table against the proto --------------------------------------------------------------------


def test_the_schema_covers_the_messages_the_page_needs(js_schema):
    assert sorted(set(REQUIRED_MESSAGES) - set(js_schema["schema"])) == []
    # Every message a field refers to is in the table too, so decoding never meets an unknown message type.
    for message, fields in js_schema["schema"].items():
        for field in fields:
            if field["type"].startswith("message:"):
                assert field["type"][len("message:"):] in js_schema["schema"], (message, field)
            if field["type"].startswith("enum:"):
                assert field["type"][len("enum:"):] in js_schema["enums"], (message, field)


def test_every_schema_field_matches_the_proto(js_schema, descriptors):
    messages, enums = descriptors
    for message, fields in js_schema["schema"].items():
        assert message in messages, f"{message} is not in the proto"
        proto_fields = {field.name: field for field in messages[message].field}
        assert [field["number"] for field in fields] == sorted(field["number"] for field in fields), message
        for field in fields:
            assert field["name"] in proto_fields, f"{message}.{field['name']} is not in the proto"
            proto = proto_fields[field["name"]]
            assert field["number"] == proto.number, (message, field)
            assert field["type"] == proto_type(proto), (message, field, proto_type(proto))
            assert field["label"] == LABELS[proto.label], (message, field)
            if proto.HasField("default_value") or "default" in field:
                expected = proto.default_value
                if proto.type == descriptor_pb2.FieldDescriptorProto.TYPE_ENUM:
                    enum = enums[proto.type_name.lstrip(".")]
                    expected = {value.name: value.number for value in enum.value}[expected]
                else:
                    expected = int(expected)
                assert field.get("default") == expected, (message, field)
        listed = {field["name"] for field in fields}
        if message != "SdkSignalFrame":
            # A listed message is complete: no field of it would be silently dropped on re-encoding.
            assert sorted(set(proto_fields) - listed) == [], message
        else:
            # The envelope leaves out only payloads whose message types the page never uses.
            for name, proto in proto_fields.items():
                if name not in listed:
                    assert proto_type(proto)[len("message:"):] not in js_schema["schema"], name


def test_every_enum_matches_the_proto(js_schema, descriptors):
    _, enums = descriptors
    for name, values in js_schema["enums"].items():
        assert name in enums, f"enum {name} is not in the proto"
        assert values == {value.name: value.number for value in enums[name].value}, name


# ---- (b) round trips ----------------------------------------------------------------------------------------------

# Values chosen to catch the usual mistakes: 32-bit extremes, 64-bit values past 2^53 and of the sign bit, text
# beyond ASCII (including a character outside the BMP), bytes with zeros and 0xff.
UINT32_VALUES = [4294967295, 0, 1, 300, 2147483648]
UINT64_VALUES = [18446744073709551615, 9007199254740993, 0, 1_700_000_000_000]
INT64_VALUES = [-9223372036854775808, 9223372036854775807, 9007199254740993, -1, 0]
TEXT = "héllo ✓ 𝄞 "
BYTES = [b"\x00\xff\x05\x80", b"", b"chat \xe2\x9c\x93"]


def fill(pb, message, schema, depth=0, seed=0):
    """Sets every field of `message` that the JS schema lists: scalars with the values above (booleans alternate
    between True and False, so presence-only False is covered), enums with each of their values in turn, repeated
    fields with two or three elements, nested messages recursively."""
    fields = {field["name"]: field for field in schema[message.DESCRIPTOR.full_name]}
    for index, descriptor in enumerate(message.DESCRIPTOR.fields):
        if descriptor.name not in fields:
            continue
        kind = fields[descriptor.name]["type"]
        # The label comes from the JS schema (checked against the proto above); protobuf 7 dropped `label`.
        repeated = fields[descriptor.name]["label"] == "repeated"
        count = 2 + (index + seed) % 2 if repeated else 1

        def value(position):
            n = index + seed + position
            if kind == "uint32":
                return UINT32_VALUES[n % len(UINT32_VALUES)]
            if kind == "uint64":
                return UINT64_VALUES[n % len(UINT64_VALUES)]
            if kind == "int64":
                return INT64_VALUES[n % len(INT64_VALUES)]
            if kind == "bool":
                return n % 2 == 1
            if kind == "string":
                return f"{TEXT}{descriptor.name} {n}"
            if kind == "bytes":
                return BYTES[n % len(BYTES)]
            if kind.startswith("enum:"):
                numbers = [v.number for v in descriptor.enum_type.values]
                return numbers[n % len(numbers)]
            raise AssertionError(f"unexpected type {kind}")

        if kind.startswith("message:"):
            for position in range(count):
                if repeated:
                    target = getattr(message, descriptor.name).add()
                else:
                    target = getattr(message, descriptor.name)
                    target.SetInParent()
                if depth < 4:
                    fill(pb, target, schema, depth + 1, seed + position + 1)
        elif repeated:
            getattr(message, descriptor.name).extend(value(p) for p in range(count))
        else:
            setattr(message, descriptor.name, value(0))
    return message


def roundtrip(frames):
    answer = node({"op": "roundtrip", "frames": [(b"\x05" + frame).hex() for frame in frames]})
    for item in answer:
        assert "error" not in item, item
    return answer


def test_python_frames_with_every_field_survive_decoding_and_re_encoding(pb, js_schema):
    schema = js_schema["schema"]
    frames = [fill(pb, pb.SdkSignalFrame(), schema, seed=seed) for seed in range(4)]
    for frame in frames:
        frame.type = pb.SdkSignalFrame.INDEX  # any value: the filler picked one; keep it valid and required
    answer = roundtrip([frame.SerializeToString() for frame in frames])
    for frame, item in zip(frames, answer):
        encoded = bytes.fromhex(item["encoded"])
        assert encoded[0] == 0x05
        back = pb.SdkSignalFrame.FromString(encoded[1:])
        assert back == frame
        # Same field order, unpacked repeated scalars: the very same bytes.
        assert encoded[1:] == frame.SerializeToString()


def test_presence_and_64_bit_values_are_kept_exactly(pb):
    frame = pb.SdkSignalFrame(timestamp_ms=18446744073709551615, type=pb.SdkSignalFrame.AUDIO_STREAM_ID_INFO)
    frame.audio_stream_id_info.streams.add(audio_stream_id=7, attendee_id="a", muted=False, external_user_id="0a1b2c3d#Ada")
    frame.audio_stream_id_info.streams.add(audio_stream_id=7)
    frame.audio_stream_id_info.streams.add(audio_stream_id=8, dropped=True)
    frame.data_message.messages.add(topic="chat", data="é ✓".encode(), ingest_time_ns=9007199254740993)
    frame.data_message.messages.add(topic="chat", data=b"", ingest_time_ns=-5)
    frame.data_message.messages.add(topic="chat")
    frame.join.audio_session_id = 4294967295
    [item] = roundtrip([frame.SerializeToString()])
    decoded = item["decoded"]
    assert decoded["timestamp_ms"] == {"$bigint": "18446744073709551615"}
    assert decoded["audio_stream_id_info"]["streams"] == [
        {"audio_stream_id": 7, "attendee_id": "a", "muted": False, "external_user_id": "0a1b2c3d#Ada"},
        {"audio_stream_id": 7},
        {"audio_stream_id": 8, "dropped": True},
    ]
    assert decoded["data_message"]["messages"] == [
        {"topic": "chat", "data": {"$bytes": "é ✓".encode().hex()}, "ingest_time_ns": {"$bigint": "9007199254740993"}},
        {"topic": "chat", "data": {"$bytes": ""}, "ingest_time_ns": {"$bigint": "-5"}},
        {"topic": "chat"},
    ]
    assert decoded["join"] == {"audio_session_id": {"$bigint": "4294967295"}, "supported_server_side_network_adaptions": []}
    assert "index" not in decoded and "error" not in decoded
    back = pb.SdkSignalFrame.FromString(bytes.fromhex(item["encoded"])[1:])
    assert back == frame
    assert back.audio_stream_id_info.streams[0].HasField("muted")
    assert not back.audio_stream_id_info.streams[1].HasField("muted")


def _varint(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _packed(field_number, values):
    body = b"".join(_varint(v) for v in values)
    return _varint(field_number << 3 | 2) + _varint(len(body)) + body


def test_packed_repeated_scalars_are_read_and_written_back_unpacked(pb):
    index = pb.SdkIndexFrame(num_participants=3)
    paused = [5, 4294967295, 0]
    codecs = [pb.VP8, pb.AV1_MAIN_PROFILE]
    # Packed runs of paused_at_source_ids (3) and supported_receive_codec_intersection (5), mixed with an unpacked one.
    index_bytes = index.SerializeToString() + _packed(3, paused[:2]) + _varint(3 << 3) + _varint(paused[2]) + _packed(5, codecs)
    frame = pb.SdkSignalFrame(timestamp_ms=1, type=pb.SdkSignalFrame.INDEX)
    envelope = frame.SerializeToString() + _varint(8 << 3 | 2) + _varint(len(index_bytes)) + index_bytes
    expected = pb.SdkSignalFrame(timestamp_ms=1, type=pb.SdkSignalFrame.INDEX)
    expected.index.num_participants = 3
    expected.index.paused_at_source_ids.extend(paused)
    expected.index.supported_receive_codec_intersection.extend(codecs)
    assert pb.SdkSignalFrame.FromString(envelope) == expected  # the hand-made bytes mean what the test says
    [item] = roundtrip([envelope])
    assert item["decoded"]["index"]["paused_at_source_ids"] == paused
    assert item["decoded"]["index"]["supported_receive_codec_intersection"] == codecs
    encoded = bytes.fromhex(item["encoded"])[1:]
    assert encoded == expected.SerializeToString()


def test_unknown_fields_are_skipped(pb):
    frame = pb.SdkSignalFrame(timestamp_ms=2, type=pb.SdkSignalFrame.CLIENT_METRIC)
    metric = frame.client_metric.global_metrics.add(type=pb.SdkMetric.STUN_RTT_MS, value=1.5)
    metric.value = 2.25
    frame.meeting_session_timing.signaling.add(start_ms=-3, timed_out=True)
    frame.audio_status.audio_status = 410
    [item] = roundtrip([frame.SerializeToString()])
    assert item["decoded"] == {"timestamp_ms": {"$bigint": "2"}, "type": pb.SdkSignalFrame.CLIENT_METRIC,
                               "audio_status": {"audio_status": 410}}
    expected = pb.SdkSignalFrame(timestamp_ms=2, type=pb.SdkSignalFrame.CLIENT_METRIC)
    expected.audio_status.audio_status = 410
    assert pb.SdkSignalFrame.FromString(bytes.fromhex(item["encoded"])[1:]) == expected


def test_missing_required_fields_and_malformed_frames_are_refused(pb):
    no_timestamp = pb.SdkSignalFrame(type=pb.SdkSignalFrame.JOIN).SerializePartialToString()
    pong = pb.SdkSignalFrame(timestamp_ms=1, type=pb.SdkSignalFrame.PING_PONG)
    pong.ping_pong.type = pb.PONG  # ping_id missing
    no_mid = pb.SdkSignalFrame(timestamp_ms=1, type=pb.SdkSignalFrame.SUBSCRIBE)
    no_mid.sub.video_subscription_configuration.add(attendee_id="x")
    good = pb.SdkSignalFrame(timestamp_ms=1, type=pb.SdkSignalFrame.LEAVE_ACK).SerializeToString()
    frames = [no_timestamp, pong.SerializePartialToString(), no_mid.SerializePartialToString(), good[:-1] + b"\x80"]
    answer = node({"op": "roundtrip", "frames": [(b"\x05" + frame).hex() for frame in frames]})
    assert "timestamp_ms" in answer[0]["error"]
    assert "ping_id" in answer[1]["error"]
    assert "mid" in answer[2]["error"]
    assert "error" in answer[3]
    # And the encoder refuses to write a frame without its required fields or with an unknown one.
    refused = node({"op": "encode", "frames": [{"type": 1}, {"timestamp_ms": {"$bigint": "1"}, "type": 1, "nope": 1},
                                               {"timestamp_ms": {"$bigint": "1"}, "type": 19, "ping_pong": {"type": 1}}]})
    assert all("error" in item for item in refused), refused


def test_the_legacy_frame_type_byte_is_accepted(pb):
    frame = pb.SdkSignalFrame(timestamp_ms=5, type=pb.SdkSignalFrame.LEAVE_ACK)
    frame.leave_ack.SetInParent()
    [item] = node({"op": "roundtrip", "frames": [(b"\x02" + frame.SerializeToString()).hex()]})
    assert item["decoded"] == {"timestamp_ms": {"$bigint": "5"}, "type": pb.SdkSignalFrame.LEAVE_ACK, "leave_ack": {}}
    assert bytes.fromhex(item["encoded"]) == b"\x05" + frame.SerializeToString()


# ---- the frames the page sends (meeting.js builders -> node encoder -> Python) -------------------------------------

OFFER = "\r\n".join([
    "v=0", "o=- 4611731400430051336 2 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=group:BUNDLE 0 1 2 3 4",
    "m=audio 9 UDP/TLS/RTP/SAVPF 111", "a=mid:0", "a=sendrecv",
    "m=video 9 UDP/TLS/RTP/SAVPF 96", "a=mid:1", "a=sendrecv", "a=rid:low send", "a=simulcast:send low;mid;hi",
    "m=video 9 UDP/TLS/RTP/SAVPF 96", "a=mid:2", "a=recvonly",
    "m=video 0 UDP/TLS/RTP/SAVPF 96", "a=mid:3", "a=inactive",
    "m=video 9 UDP/TLS/RTP/SAVPF 96", "a=mid:4", "a=recvonly",
    "m=video 9 UDP/TLS/RTP/SAVPF 96", "a=mid:5", "a=recvonly",
    # Firefox under max-bundle: port 0 with a=bundle-only is a live section.
    "m=video 0 UDP/TLS/RTP/SAVPF 96", "a=bundle-only", "a=mid:6", "a=recvonly", "",
])


def parse(pb, hex_frame):
    data = bytes.fromhex(hex_frame)
    assert data[0] == 0x05
    frame = pb.SdkSignalFrame.FromString(data[1:])
    assert frame.timestamp_ms == TIMESTAMP
    return frame


def test_join_frames(pb):
    details = {"platform_name": "chrome", "platform_version": "156.0.8078.108", "client_utc_offset": "+01:00",
               "os_name": "Linux"}
    camera, content = page_calls([
        ("joinFrame", [{"audioSessionId": 4000000000, "clientDetails": details}]),
        ("joinFrame", [{"audioSessionId": 17, "content": True, "clientDetails": details}]),
    ])
    frame = parse(pb, camera)
    assert frame.type == pb.SdkSignalFrame.JOIN
    join = frame.join
    assert (join.protocol_version, join.flags, join.audio_session_id) == (2, pb.HAS_STREAM_UPDATE, 4000000000)
    assert join.HasField("wants_compressed_sdp") and join.wants_compressed_sdp is False
    assert join.server_side_network_adaption == pb.BANDWIDTH_PROBING_AND_VIDEO_QUALITY_ADAPTION
    assert list(join.supported_server_side_network_adaptions) == [
        pb.NONE, pb.BANDWIDTH_PROBING, pb.BANDWIDTH_PROBING_AND_VIDEO_QUALITY_ADAPTION]
    assert join.wants_all_temporal_layers_in_index is True
    assert join.HasField("disable_periodic_keyframe_request_on_content_sender")
    assert join.client_details == pb.SdkClientDetails(client_source="carillon-join-page", **details)
    assert not join.HasField("max_num_of_videos")
    share = parse(pb, content).join
    assert share.audio_session_id == 17
    assert share.server_side_network_adaption == pb.DEFAULT
    assert list(share.supported_server_side_network_adaptions) == []
    assert share.HasField("wants_all_temporal_layers_in_index") and share.wants_all_temporal_layers_in_index is False


def test_subscribe_with_simulcast_camera_and_subscriptions(pb):
    [layers] = page_calls([("uplinkLayers", [5, 5])], encode=False)
    subscriptions = [
        {"mid": "2", "attendeeId": "bob", "groupId": 7, "priority": 1, "targetBitrateKbps": 1500, "quality": 3},
        {"mid": "4", "attendeeId": "carol", "groupId": 9, "priority": 3, "targetBitrateKbps": 600, "quality": 1},
    ]
    [hex_frame] = page_calls([("subscribeFrame", [{
        "attendeeId": "ada", "sdpOffer": OFFER, "audioHost": "127.0.0.1:40000", "audioMuted": True,
        "cameraLayers": layers, "allocations": [{"stream_id": 11, "group_id": 4}, {"stream_id": 12, "group_id": 4},
                                                {"stream_id": 13, "group_id": 4}],
        "receiveStreamIds": [0, 21, 0, 23, 0], "subscriptions": subscriptions,
    }])])
    sub = parse(pb, hex_frame).sub
    assert sub.duplex == pb.DUPLEX
    audio = sub.send_streams[0]
    assert audio == pb.SdkStreamDescriptor(stream_id=1, framerate=15, max_bitrate_kbps=600,
                                           track_label="AmazonChimeExpressAudio", group_id=1, avg_bitrate_bps=400000,
                                           attendee_id="ada", media_type=pb.AUDIO)
    video = sub.send_streams[1:]
    # 5 senders: low 200 kbps + mid 600 kbps, hi off (policies.md §3.1), in rid order with the allocated ids.
    assert [(s.stream_id, s.group_id, s.max_bitrate_kbps, s.framerate) for s in video] == [
        (11, 4, 200, 15), (12, 4, 600, 15), (13, 4, 0, 15)]
    assert all(s.HasField("track_label") and s.track_label == "" and s.media_type == pb.VIDEO and
               s.attendee_id == "ada" and not s.HasField("avg_bitrate_bps") for s in video)
    assert list(sub.receive_stream_ids) == [0, 21, 0, 23, 0]
    assert sub.sdp_offer == OFFER.replace("o=- ", "o=mozilla-chrome ", 1)
    assert (sub.audio_host, sub.audio_checkin, sub.audio_muted) == ("127.0.0.1:40000", False, True)
    assert sub.HasField("audio_checkin")
    assert not sub.HasField("compressed_sdp_offer")
    assert [(c.mid, c.attendee_id, c.group_id, c.priority, c.target_bitrate_kbps, c.quality_adaptation_preference,
             c.HasField("stream_id")) for c in sub.video_subscription_configuration] == [
        ("2", "bob", 7, 4294967294, 1500, pb.MAINTAIN_RESOLUTION, False),
        ("4", "carol", 9, 4294967292, 600, pb.BALANCED, False)]


def test_subscribe_without_camera_and_the_content_share_subscribe(pb):
    receive, content = page_calls([
        ("subscribeFrame", [{"attendeeId": "ada", "sdpOffer": "v=0\r\no=- 1 2 IN IP4 0.0.0.0\r\n", "audioHost": "h:1",
                             "audioMuted": False, "receiveStreamIds": [0]}]),
        ("subscribeFrame", [{"attendeeId": "ada#content", "sdpOffer": "v=0\r\n", "audioHost": "h:1", "audioMuted": True,
                             "contentVideo": True, "receiveStreamIds": [0]}]),
    ])
    sub = parse(pb, receive).sub
    assert sub.duplex == pb.RX and sub.HasField("duplex")
    assert [s.media_type for s in sub.send_streams] == [pb.AUDIO]
    assert list(sub.receive_stream_ids) == [0]
    assert sub.HasField("audio_muted") and sub.audio_muted is False
    assert len(sub.video_subscription_configuration) == 0
    share = parse(pb, content).sub
    assert share.duplex == pb.DUPLEX
    assert share.send_streams[1] == pb.SdkStreamDescriptor(
        stream_id=2, framerate=15, max_bitrate_kbps=1500, track_label="AmazonChimeExpressVideo", group_id=2,
        attendee_id="ada#content", media_type=pb.VIDEO)
    assert share.send_streams[0].attendee_id == "ada#content" and share.audio_muted is True


def test_receive_stream_ids_follow_the_video_m_lines_of_the_offer():
    # receiveStreamIdsFromSdp takes a Map, which JSON cannot carry: a small script of its own.
    completed = subprocess.run(["node", "--input-type=module", "-e", f"""
        const page = await import({json.dumps(MEETING_URL)});
        const ids = page.receiveStreamIdsFromSdp({json.dumps(OFFER)}, new Map([['2', 21], ['3', 22], ['5', 25], ['6', 26]]));
        process.stdout.write(JSON.stringify(ids));"""], capture_output=True, text=True, timeout=60)
    assert completed.returncode == 0, completed.stderr
    # camera (sendrecv) 0, mid 2 -> 21, mid 3 stopped (port 0) -> 0, mid 4 unknown -> 0, mid 5 -> 25, mid 6
    # (bundle-only) -> 26.
    assert json.loads(completed.stdout) == [0, 21, 0, 0, 25, 26]


def test_audio_control_chat_ping_pong_pause_update_and_leave_frames(pb):
    frames = page_calls([
        ("audioControlFrame", [True]),
        ("audioControlFrame", [False]),
        ("chatFrame", ["héllo ✓ 𝄞"]),
        ("pingFrame", [7]),
        ("pongFrame", [4294967295]),
        ("pauseFrame", [[5, 6]]),
        ("pauseFrame", [[5], True]),
        ("remoteVideoUpdateFrame", [[{"mid": "3", "attendeeId": "bob", "groupId": 7, "priority": 2,
                                      "targetBitrateKbps": 600, "quality": 1}], ["4", "5"]]),
        ("leaveFrame", []),
    ])
    muted, unmuted, chat, ping, pong, pause, resume, update, leave = [parse(pb, f) for f in frames]
    assert muted.type == pb.SdkSignalFrame.AUDIO_CONTROL and muted.audio_control.muted is True
    assert unmuted.audio_control.HasField("muted") and unmuted.audio_control.muted is False
    assert chat.type == pb.SdkSignalFrame.DATA_MESSAGE
    assert list(chat.data_message.messages) == [pb.SdkDataMessagePayload(
        topic="chat", data="héllo ✓ 𝄞".encode(), lifetime_ms=300000)]
    assert (ping.type, ping.ping_pong.type, ping.ping_pong.ping_id) == (pb.SdkSignalFrame.PING_PONG, pb.PING, 7)
    assert (pong.ping_pong.type, pong.ping_pong.ping_id) == (pb.PONG, 4294967295)
    assert (pause.type, list(pause.pause.stream_ids), list(pause.pause.group_ids)) == (pb.SdkSignalFrame.PAUSE, [5, 6], [])
    assert (resume.type, list(resume.pause.stream_ids)) == (pb.SdkSignalFrame.RESUME, [5])
    assert update.type == pb.SdkSignalFrame.REMOTE_VIDEO_UPDATE
    assert list(update.remote_video_update.added_or_updated_video_subscriptions) == [
        pb.SdkVideoSubscriptionConfiguration(mid="3", attendee_id="bob", group_id=7, priority=4294967293,
                                             target_bitrate_kbps=600, quality_adaptation_preference=pb.BALANCED)]
    assert list(update.remote_video_update.removed_video_subscription_mids) == ["4", "5"]
    assert leave.type == pb.SdkSignalFrame.LEAVE and leave.HasField("leave")


def test_the_uplink_layer_table_and_the_page_rules():
    answer = page_calls([
        ("uplinkLayers", [2, 2]), ("uplinkLayers", [3, 2]), ("uplinkLayers", [0, 4]), ("uplinkLayers", [6, 5]),
        ("uplinkLayers", [9, 7]),
        ("displayNameOf", ["0a1b2c3d#Ada Lovelace"]), ("displayNameOf", ["bot"]), ("displayNameOf", ["0A1B2C3D#x"]),
        ("displayNameOf", ["0a1b2c3d#Ada#content"]), ("displayNameOf", ["a#b"]),
        ("speakingLevel", [14]), ("speakingLevel", [28]), ("speakingLevel", [42]), ("speakingLevel", [0]),
        ("speakingLevel", [127]),
        ("closeOutcome", ["joining", 4410]), ("closeOutcome", ["joining", 4503]), ("closeOutcome", ["joining", 4403]),
        ("closeOutcome", ["joining", 1006]), ("closeOutcome", ["connected", 1006]),
        ("closeOutcome", ["connected", 4500]), ("closeOutcome", ["subscribing", 1000]),
        ("audioStatusOutcome", [200]), ("audioStatusOutcome", [301]), ("audioStatusOutcome", [410]),
        ("audioStatusOutcome", [503]), ("errorStatusOutcome", [206]), ("errorStatusOutcome", [410]),
        ("errorStatusOutcome", [0]), ("errorStatusOutcome", [502]), ("errorStatusOutcome", [403]),
    ], encode=False)
    layers = [[(l["rid"], l["active"], l["maxBitrateKbps"], l["scaleResolutionDownBy"]) for l in table]
              for table in answer[:5]]
    assert layers[0] == [("low", False, 0, 4), ("mid", True, 1200, 1), ("hi", False, 0, 1)]
    assert layers[1] == layers[2] == [("low", True, 300, 4), ("mid", False, 0, 2), ("hi", True, 1200, 1)]
    assert layers[3] == [("low", True, 200, 4), ("mid", True, 600, 2), ("hi", False, 0, 1)]
    assert layers[4] == [("low", True, 200, 4), ("mid", True, 360, 2), ("hi", False, 0, 1)]
    assert answer[5:10] == ["Ada Lovelace", "bot", "0A1B2C3D#x", "Ada", "a#b"]
    assert answer[10:15] == [1, 0.5, 0, 1, 0]
    kinds = [item["kind"] if item else None for item in answer[15:]]
    assert kinds == ["ended", "retry", "terminal", "terminal", "retry", "retry", "retry",
                     None, "terminal", "ended", "retry", "view-only", "ended", None, "retry", "terminal"]
