"""boto3's chime-sdk-meetings client against a real `carillon serve`: every route, its errors and idempotency."""
import json
import re
import tempfile
import uuid

import pytest
import requests
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from conftest import ACCESS_KEY_ID, SECRET_ACCESS_KEY, make_client, start_server, stop_server

GUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
MEETING_KEYS = {"MeetingId", "ExternalMeetingId", "MediaRegion", "MediaPlacement", "MeetingFeatures", "MeetingArn"}
PLACEMENT_KEYS = {"AudioHostUrl", "AudioFallbackUrl", "SignalingUrl", "TurnControlUrl", "ScreenDataUrl",
                  "ScreenViewingUrl", "ScreenSharingUrl", "EventIngestionUrl"}


def raw_bodies(client, operation):
    """Collects the raw JSON bodies of an operation's responses (boto3 silently drops unknown or mis-cased keys)."""
    bodies = []

    def keep(http_response, **_):
        bodies.append(http_response.content)

    client.meta.events.register(f"after-call.chime-sdk-meetings.{operation}", keep)
    return bodies


def new_meeting(chime, **extra):
    arguments = dict(ClientRequestToken=uuid.uuid4().hex, MediaRegion="us-east-1", ExternalMeetingId="ext-" + uuid.uuid4().hex[:8])
    arguments.update(extra)
    return chime.create_meeting(**arguments)["Meeting"]


def error_code(excinfo):
    return excinfo.value.response["Error"]["Code"]


# Meetings

def test_create_meeting_returns_the_modeled_shape_with_urls_of_this_server(chime, server):
    bodies = raw_bodies(chime, "CreateMeeting")
    response = chime.create_meeting(ClientRequestToken="shape-1", MediaRegion="eu-west-1", ExternalMeetingId="standup")
    meeting = response["Meeting"]
    assert GUID.match(meeting["MeetingId"])
    assert meeting["ExternalMeetingId"] == "standup"
    assert meeting["MediaRegion"] == "eu-west-1"
    assert meeting["MeetingArn"].endswith(":meeting/" + meeting["MeetingId"])
    assert meeting["MeetingArn"].startswith("arn:aws:chime:eu-west-1:")
    assert meeting["MeetingFeatures"]["Video"]["MaxResolution"] == "HD"
    assert meeting["MeetingFeatures"]["Content"]["MaxResolution"] == "FHD"
    assert meeting["MeetingFeatures"]["Attendee"]["MaxCount"] == 250
    placement = meeting["MediaPlacement"]
    port = server.endpoint.rsplit(":", 1)[1]
    assert placement["SignalingUrl"] == f"ws://127.0.0.1:{port}/control/{meeting['MeetingId']}"
    assert "?" not in placement["SignalingUrl"]
    assert server.media and server.media.startswith("127.0.0.1:"), server.output
    assert placement["AudioHostUrl"] == server.media
    raw = json.loads(bodies[-1])
    assert set(raw) == {"Meeting"}
    assert MEETING_KEYS <= set(raw["Meeting"])
    assert set(raw["Meeting"]["MediaPlacement"]) == PLACEMENT_KEYS
    assert response["ResponseMetadata"]["HTTPStatusCode"] == 200
    assert GUID.match(response["ResponseMetadata"]["RequestId"])


def test_client_request_token_makes_create_meeting_idempotent(chime):
    first = chime.create_meeting(ClientRequestToken="idem-1", MediaRegion="us-east-1", ExternalMeetingId="same")
    again = chime.create_meeting(ClientRequestToken="idem-1", MediaRegion="us-east-1", ExternalMeetingId="same")
    assert again["Meeting"]["MeetingId"] == first["Meeting"]["MeetingId"]
    with pytest.raises(chime.exceptions.BadRequestException):
        chime.create_meeting(ClientRequestToken="idem-1", MediaRegion="us-east-1", ExternalMeetingId="different")


def test_get_and_delete_meeting(chime):
    meeting = new_meeting(chime)
    assert chime.get_meeting(MeetingId=meeting["MeetingId"])["Meeting"]["MeetingId"] == meeting["MeetingId"]
    response = chime.delete_meeting(MeetingId=meeting["MeetingId"])
    assert response["ResponseMetadata"]["HTTPStatusCode"] == 204
    with pytest.raises(chime.exceptions.NotFoundException) as excinfo:
        chime.get_meeting(MeetingId=meeting["MeetingId"])
    assert excinfo.value.response["Code"] == "NotFound"
    with pytest.raises(chime.exceptions.NotFoundException):
        chime.delete_meeting(MeetingId=meeting["MeetingId"])


def test_unknown_and_malformed_meeting_ids(chime):
    with pytest.raises(chime.exceptions.NotFoundException):
        chime.get_meeting(MeetingId=str(uuid.uuid4()))
    with pytest.raises(chime.exceptions.BadRequestException):
        chime.get_meeting(MeetingId="not-a-guid/x y")


def test_create_meeting_with_attendees_reports_per_item_errors(chime):
    response = chime.create_meeting_with_attendees(
        ClientRequestToken=uuid.uuid4().hex, MediaRegion="us-east-1", ExternalMeetingId="with-attendees",
        Attendees=[{"ExternalUserId": "u-a"}, {"ExternalUserId": "u-b"}, {"ExternalUserId": "bad<name>"}],
    )
    assert GUID.match(response["Meeting"]["MeetingId"])
    assert sorted(a["ExternalUserId"] for a in response["Attendees"]) == ["u-a", "u-b"]
    assert [e["ExternalUserId"] for e in response["Errors"]] == ["bad<name>"]
    assert response["Errors"][0]["ErrorCode"] == "BadRequest"
    with pytest.raises(chime.exceptions.BadRequestException):
        chime.create_meeting_with_attendees(
            ClientRequestToken=uuid.uuid4().hex, MediaRegion="us-east-1", ExternalMeetingId="too-many",
            Attendees=[{"ExternalUserId": f"user-{i}"} for i in range(21)],
        )


@pytest.mark.parametrize("arguments", [
    dict(ExternalMeetingId="x" * 65),
    dict(ExternalMeetingId="aws:reserved"),
    dict(MediaRegion="r" * 65),
    dict(MediaRegion="mars-north-1"),
    dict(MeetingFeatures={"Audio": {"EchoReduction": "LOUD"}}),
    dict(MeetingFeatures={"Video": {"MaxResolution": "8K"}}),
    dict(MeetingFeatures={"Video": {"MaxResolution": "FHD"}}),
    dict(MeetingFeatures={"Video": {"MaxResolution": "FHD"}, "Attendee": {"MaxCount": 26}}),
    dict(MeetingFeatures={"Attendee": {"MaxCount": 251}}),
    dict(TenantIds=["aaaa"]),
    dict(TenantIds=["t1", "t2", "t3", "t4", "t5", "t6"]),
    dict(Tags=[{"Key": "k", "Value": "v"}] * 51),
])
def test_create_meeting_rejects_out_of_range_parameters(chime, arguments):
    with pytest.raises(chime.exceptions.BadRequestException):
        new_meeting(chime, **arguments)


# Attendees

def test_create_attendee_shape_token_and_external_user_id_idempotency(chime):
    meeting = new_meeting(chime)
    bodies = raw_bodies(chime, "CreateAttendee")
    attendee = chime.create_attendee(MeetingId=meeting["MeetingId"], ExternalUserId="Zoë Smith «x»")["Attendee"]
    assert GUID.match(attendee["AttendeeId"])
    assert attendee["ExternalUserId"] == "Zoë Smith «x»"
    assert re.fullmatch(r"[A-Za-z0-9]{2,2048}", attendee["JoinToken"])
    assert attendee["Capabilities"] == {"Audio": "SendReceive", "Video": "SendReceive", "Content": "SendReceive"}
    raw = json.loads(bodies[-1])
    assert set(raw["Attendee"]) == {"ExternalUserId", "AttendeeId", "JoinToken", "Capabilities"}
    again = chime.create_attendee(MeetingId=meeting["MeetingId"], ExternalUserId="Zoë Smith «x»")["Attendee"]
    assert again["AttendeeId"] == attendee["AttendeeId"]
    assert again["JoinToken"] == attendee["JoinToken"]


@pytest.mark.parametrize("external_user_id", ["x" * 65, "bad<name>", "aws:bot", "AWS:bot"])
def test_create_attendee_rejects_bad_external_user_ids(chime, external_user_id):
    meeting = new_meeting(chime)
    with pytest.raises(chime.exceptions.BadRequestException):
        chime.create_attendee(MeetingId=meeting["MeetingId"], ExternalUserId=external_user_id)


def test_attendee_capability_rules(chime):
    meeting = new_meeting(chime)
    with pytest.raises(chime.exceptions.BadRequestException):
        chime.create_attendee(MeetingId=meeting["MeetingId"], ExternalUserId="loud",
                              Capabilities={"Audio": "Loud", "Video": "None", "Content": "None"})
    with pytest.raises(chime.exceptions.BadRequestException):
        chime.create_attendee(MeetingId=meeting["MeetingId"], ExternalUserId="content-only",
                              Capabilities={"Audio": "SendReceive", "Video": "None", "Content": "SendReceive"})
    no_video = new_meeting(chime, MeetingFeatures={"Video": {"MaxResolution": "None"}})
    with pytest.raises(chime.exceptions.BadRequestException):
        chime.create_attendee(MeetingId=no_video["MeetingId"], ExternalUserId="camera",
                              Capabilities={"Audio": "SendReceive", "Video": "Send", "Content": "None"})


def test_attendee_cap_is_enforced_with_limit_exceeded(chime):
    meeting = new_meeting(chime, MeetingFeatures={"Attendee": {"MaxCount": 2}})
    for name in ["one", "two"]:
        chime.create_attendee(MeetingId=meeting["MeetingId"], ExternalUserId=name)
    with pytest.raises(chime.exceptions.LimitExceededException):
        chime.create_attendee(MeetingId=meeting["MeetingId"], ExternalUserId="three")
    # An existing attendee is still returned: idempotency does not count against the cap.
    chime.create_attendee(MeetingId=meeting["MeetingId"], ExternalUserId="two")


def test_batch_create_attendee(chime):
    meeting = new_meeting(chime)
    response = chime.batch_create_attendee(MeetingId=meeting["MeetingId"], Attendees=[
        {"ExternalUserId": "user-2"}, {"ExternalUserId": "user-3"}, {"ExternalUserId": "user-2"},
        {"ExternalUserId": "bad<name>"},
    ])
    ids = {}
    for attendee in response["Attendees"]:
        # A repeat inside one batch is the same attendee, never a second one.
        assert ids.setdefault(attendee["ExternalUserId"], attendee["AttendeeId"]) == attendee["AttendeeId"]
    assert set(ids) == {"user-2", "user-3"}
    assert [e["ExternalUserId"] for e in response["Errors"]] == ["bad<name>"]
    listed = chime.list_attendees(MeetingId=meeting["MeetingId"])["Attendees"]
    assert sorted(a["ExternalUserId"] for a in listed) == ["user-2", "user-3"]
    with pytest.raises(chime.exceptions.BadRequestException):
        chime.batch_create_attendee(MeetingId=meeting["MeetingId"],
                                    Attendees=[{"ExternalUserId": f"u-{i}"} for i in range(101)])
    with pytest.raises(chime.exceptions.NotFoundException):
        chime.batch_create_attendee(MeetingId=str(uuid.uuid4()), Attendees=[{"ExternalUserId": "u-1"}])


def test_list_attendees_paginates_with_an_opaque_token(chime):
    meeting = new_meeting(chime)
    created = {chime.create_attendee(MeetingId=meeting["MeetingId"], ExternalUserId=f"person-{i}")["Attendee"]["AttendeeId"]
               for i in range(7)}
    seen, token, pages = [], None, 0
    while True:
        arguments = dict(MeetingId=meeting["MeetingId"], MaxResults=3)
        if token:
            arguments["NextToken"] = token
        page = chime.list_attendees(**arguments)
        pages += 1
        assert len(page["Attendees"]) <= 3
        seen += [a["AttendeeId"] for a in page["Attendees"]]
        token = page.get("NextToken")
        if not token:
            break
        assert re.fullmatch(r"[A-Za-z0-9]+", token)
    assert pages == 3
    assert len(seen) == 7 and set(seen) == created
    with pytest.raises(chime.exceptions.BadRequestException):
        chime.list_attendees(MeetingId=meeting["MeetingId"], MaxResults=500)
    with pytest.raises(chime.exceptions.BadRequestException):
        chime.list_attendees(MeetingId=meeting["MeetingId"], NextToken="tok/+=1")


def test_get_and_delete_attendee(chime):
    meeting = new_meeting(chime)
    attendee = chime.create_attendee(MeetingId=meeting["MeetingId"], ExternalUserId="temp")["Attendee"]
    fetched = chime.get_attendee(MeetingId=meeting["MeetingId"], AttendeeId=attendee["AttendeeId"])["Attendee"]
    assert fetched["JoinToken"] == attendee["JoinToken"]
    assert chime.delete_attendee(MeetingId=meeting["MeetingId"], AttendeeId=attendee["AttendeeId"])["ResponseMetadata"]["HTTPStatusCode"] == 204
    with pytest.raises(chime.exceptions.NotFoundException):
        chime.get_attendee(MeetingId=meeting["MeetingId"], AttendeeId=attendee["AttendeeId"])
    # A new attendee with the same ExternalUserId is a new identity with a new token.
    fresh = chime.create_attendee(MeetingId=meeting["MeetingId"], ExternalUserId="temp")["Attendee"]
    assert fresh["AttendeeId"] != attendee["AttendeeId"]
    assert fresh["JoinToken"] != attendee["JoinToken"]


def test_capability_updates(chime):
    meeting = new_meeting(chime)
    a = chime.create_attendee(MeetingId=meeting["MeetingId"], ExternalUserId="user-a")["Attendee"]
    b = chime.create_attendee(MeetingId=meeting["MeetingId"], ExternalUserId="user-b")["Attendee"]
    caps = {"Audio": "Receive", "Video": "Receive", "Content": "None"}
    updated = chime.update_attendee_capabilities(MeetingId=meeting["MeetingId"], AttendeeId=a["AttendeeId"], Capabilities=caps)
    assert updated["Attendee"]["Capabilities"] == caps
    assert chime.get_attendee(MeetingId=meeting["MeetingId"], AttendeeId=a["AttendeeId"])["Attendee"]["Capabilities"] == caps
    chime.batch_update_attendee_capabilities_except(
        MeetingId=meeting["MeetingId"], ExcludedAttendeeIds=[{"AttendeeId": a["AttendeeId"]}],
        Capabilities={"Audio": "Send", "Video": "None", "Content": "None"},
    )
    assert chime.get_attendee(MeetingId=meeting["MeetingId"], AttendeeId=b["AttendeeId"])["Attendee"]["Capabilities"]["Audio"] == "Send"
    assert chime.get_attendee(MeetingId=meeting["MeetingId"], AttendeeId=a["AttendeeId"])["Attendee"]["Capabilities"] == caps
    with pytest.raises(chime.exceptions.BadRequestException):
        chime.update_attendee_capabilities(MeetingId=meeting["MeetingId"], AttendeeId=a["AttendeeId"],
                                           Capabilities={"Audio": "SendReceive", "Video": "None", "Content": "Receive"})
    with pytest.raises(chime.exceptions.NotFoundException):
        chime.update_attendee_capabilities(MeetingId=meeting["MeetingId"], AttendeeId=str(uuid.uuid4()), Capabilities=caps)


# Transcription and tags

def test_transcription_is_refused_as_unprocessable(chime):
    meeting = new_meeting(chime)
    with pytest.raises(chime.exceptions.UnprocessableEntityException):
        chime.start_meeting_transcription(MeetingId=meeting["MeetingId"], TranscriptionConfiguration={
            "EngineTranscribeSettings": {"LanguageCode": "en-US"}})
    with pytest.raises(chime.exceptions.BadRequestException):
        chime.start_meeting_transcription(MeetingId=meeting["MeetingId"], TranscriptionConfiguration={
            "EngineTranscribeSettings": {"LanguageCode": "xx-XX"}})
    with pytest.raises(chime.exceptions.UnprocessableEntityException):
        chime.stop_meeting_transcription(MeetingId=meeting["MeetingId"])
    with pytest.raises(chime.exceptions.NotFoundException):
        chime.stop_meeting_transcription(MeetingId=str(uuid.uuid4()))


def test_tags(chime):
    meeting = new_meeting(chime)
    arn = meeting["MeetingArn"]
    assert chime.tag_resource(ResourceARN=arn, Tags=[{"Key": "team", "Value": "blue"}, {"Key": "env", "Value": "dev"}])[
        "ResponseMetadata"]["HTTPStatusCode"] == 204
    tags = chime.list_tags_for_resource(ResourceARN=arn)["Tags"]
    assert sorted((t["Key"], t["Value"]) for t in tags) == [("env", "dev"), ("team", "blue")]
    chime.untag_resource(ResourceARN=arn, TagKeys=["team", "absent"])
    assert [t["Key"] for t in chime.list_tags_for_resource(ResourceARN=arn)["Tags"]] == ["env"]
    with pytest.raises(chime.exceptions.TooManyTagsException):
        chime.tag_resource(ResourceARN=arn, Tags=[{"Key": f"k{i}", "Value": "v"} for i in range(50)])
    with pytest.raises(chime.exceptions.ResourceNotFoundException):
        chime.list_tags_for_resource(ResourceARN=arn.replace(meeting["MeetingId"], str(uuid.uuid4())))


# Authentication and robustness

def test_requests_signed_with_a_wrong_or_unknown_key_are_forbidden(server):
    with pytest.raises(Exception) as excinfo:
        make_client(server.endpoint, secret="wrong-secret").create_meeting(
            ClientRequestToken="t-forbidden", MediaRegion="us-east-1", ExternalMeetingId="nope")
    assert error_code(excinfo) == "ForbiddenException"
    with pytest.raises(Exception) as excinfo:
        make_client(server.endpoint, key_id="AKIAUNKNOWN000000000").get_meeting(MeetingId=str(uuid.uuid4()))
    assert error_code(excinfo) == "ForbiddenException"


def forbidden_message(client_factory):
    with pytest.raises(Exception) as excinfo:
        client_factory().get_meeting(MeetingId=str(uuid.uuid4()))
    assert error_code(excinfo) == "ForbiddenException"
    return excinfo.value.response["Error"]["Message"]


def test_an_unknown_key_and_a_wrong_secret_get_the_same_answer(server):
    # Different words would tell a stranger which access key ids exist.
    wrong = forbidden_message(lambda: make_client(server.endpoint, secret="wrong-secret"))
    unknown = forbidden_message(lambda: make_client(server.endpoint, key_id="AKIAUNKNOWN000000000"))
    assert wrong == unknown
    assert "AKIA" not in wrong


def answer_to_head(server, head):
    """Sends only a request's head (no body) and returns the status line the server answers with within 5 s."""
    import socket
    from urllib.parse import urlparse
    url = urlparse(server.endpoint)
    with socket.create_connection((url.hostname, url.port), timeout=5) as connection:
        connection.sendall(head.encode())
        try:
            return connection.recv(4096).split(b"\r\n", 1)[0].decode()
        except socket.timeout:
            return "no answer within 5 s"


def test_no_body_is_read_for_a_request_that_is_too_large_or_cannot_be_authentic(server):
    host = server.endpoint.split("://", 1)[1]
    # 100 MB announced: refused from the head alone, nothing read.
    assert answer_to_head(server, f"POST /meetings HTTP/1.1\r\nHost: {host}\r\nContent-Length: 100000000\r\n\r\n") \
        == "HTTP/1.1 400 Bad Request"
    # Unsigned, with a body still to come: 403 at once (the body was read first, up to 1 MiB, before).
    assert answer_to_head(server, f"POST /meetings HTTP/1.1\r\nHost: {host}\r\nContent-Length: 1000000\r\n\r\n") \
        == "HTTP/1.1 403 Forbidden"


def test_unsigned_requests_get_a_typed_403(server):
    response = requests.post(server.endpoint + "/meetings", json={"ClientRequestToken": "abc",
                                                                   "MediaRegion": "us-east-1", "ExternalMeetingId": "x1"})
    assert response.status_code == 403
    assert response.headers["x-amzn-ErrorType"] == "ForbiddenException"
    assert set(response.json()) == {"Code", "Message", "RequestId"}


def test_any_region_in_the_signature_is_accepted(server):
    client = make_client(server.endpoint, region="eu-west-1")
    assert GUID.match(new_meeting(client)["MeetingId"])


def signed_post(server, path, body):
    """A POST signed by botocore with the server's key, carrying any body bytes."""
    request = AWSRequest(method="POST", url=server.endpoint + path, data=body,
                         headers={"Content-Type": "application/json"})
    SigV4Auth(Credentials(ACCESS_KEY_ID, SECRET_ACCESS_KEY), "chime", "us-east-1").add_auth(request)
    return requests.post(request.url, data=body, headers=dict(request.headers))


def test_server_keeps_serving_after_bad_requests(chime, server):
    for body in [b"not json", b"[]", b'{"ClientRequestToken": 5}', b"\xff\xfe", b"{" * 10000]:
        response = signed_post(server, "/meetings", body)
        assert response.status_code == 400, body
        assert response.headers["x-amzn-ErrorType"] == "BadRequestException"
    assert GUID.match(new_meeting(chime)["MeetingId"])


def test_nothing_is_lost_across_a_restart():
    with tempfile.TemporaryDirectory(prefix="carillon-restart-") as data_dir:
        first = start_server(data_dir)
        try:
            client = make_client(first.endpoint)
            meeting = new_meeting(client, ClientRequestToken="restart-token")
            attendee = client.create_attendee(MeetingId=meeting["MeetingId"], ExternalUserId="survivor")["Attendee"]
        finally:
            stop_server(first)
        second = start_server(data_dir)
        try:
            client = make_client(second.endpoint)
            assert client.get_meeting(MeetingId=meeting["MeetingId"])["Meeting"]["ExternalMeetingId"] == meeting["ExternalMeetingId"]
            kept = client.get_attendee(MeetingId=meeting["MeetingId"], AttendeeId=attendee["AttendeeId"])["Attendee"]
            assert kept["JoinToken"] == attendee["JoinToken"]
            again = new_meeting(client, ClientRequestToken="restart-token", ExternalMeetingId=meeting["ExternalMeetingId"])
            assert again["MeetingId"] == meeting["MeetingId"]
        finally:
            stop_server(second)
