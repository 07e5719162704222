#!/usr/bin/env python3
"""Prints SigV4 test vectors computed by the installed botocore, as Swift literals.

Usage: python3 scripts/sigv4-vectors.py

The output is pasted into Tests/CarillonProtocolTests/SigV4VectorTests.swift. Each request lists Host plus the
headers botocore has at signing time (Content-Type when there is a body, plus User-Agent, which botocore never
signs); Content-Length and the amz-sdk-* headers are added by boto3 after signing, so the Swift tests add them
to the received request to check that unsigned headers do not matter.
"""
import datetime
import json
from unittest import mock

import botocore
import botocore.auth
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

ACCESS_KEY_ID = "AKIDEXAMPLE000000000"
SECRET_ACCESS_KEY = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
SESSION_TOKEN = "FwoGZXIvYXdzEXAMPLETOKEN/with+slash=="
REGION = "eu-west-1"
SERVICE = "chime"
FIXED_TIME = datetime.datetime(2026, 11, 22, 10, 42, 11)
ENDPOINT = "http://127.0.0.1:8080"
MEETING = "11111111-2222-3333-4444-555555555555"
ATTENDEE = "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"
USER_AGENT = "Boto3/1.43.11 md/Botocore#1.43.11 ua/2.1 os/linux lang/python#3.11.7 Botocore/1.43.11"

REQUESTS = [
    # name, method, path (raw, percent-encoded), query (raw), body, session token?
    ("get-meeting", "GET", f"/meetings/{MEETING}", "", b"", False),
    ("list-attendees-query", "GET", f"/meetings/{MEETING}/attendees",
     "max-results=10&next-token=tok%2F%2B%3D1", b"", False),
    ("create-attendee-json", "POST", f"/meetings/{MEETING}/attendees", "",
     b'{"ExternalUserId": "user-1", "Capabilities": {"Audio": "SendReceive", "Video": "Receive", "Content": "None"}}',
     False),
    ("create-meeting-with-attendees", "POST", "/meetings", "operation=create-attendees",
     b'{"ClientRequestToken": "my-token-1", "MediaRegion": "us-east-1", "ExternalMeetingId": "ext-2", '
     b'"Attendees": [{"ExternalUserId": "u-a"}]}', False),
    ("delete-attendee", "DELETE", f"/meetings/{MEETING}/attendees/{ATTENDEE}", "", b"", False),
    ("percent-encoded-segment", "GET", "/meetings/not-a-guid%2Fx%20y", "", b"", False),
    ("session-token", "POST", f"/meetings/{MEETING}/attendees", "",
     b'{"ExternalUserId": "user-2"}', True),
    ("path-prefix-tags", "GET", "/chime-api/tags",
     "arn=arn%3Aaws%3Achime%3Aus-east-1%3A123456789012%3Ameeting%2F" + MEETING, b"", False),
]


def swift_string(value):
    # JSON string escaping is valid Swift string-literal escaping for this ASCII content.
    return json.dumps(value)


def main():
    print(f"// botocore {botocore.__version__}, region {REGION}, service {SERVICE}, time {FIXED_TIME.isoformat()}Z")
    for name, method, path, query, body, with_token in REQUESTS:
        credentials = Credentials(ACCESS_KEY_ID, SECRET_ACCESS_KEY, SESSION_TOKEN if with_token else None)
        url = ENDPOINT + path + ("?" + query if query else "")
        headers = {"User-Agent": USER_AGENT}
        if body:
            headers["Content-Type"] = "application/json"
        request = AWSRequest(method=method, url=url, data=body, headers=headers)
        with mock.patch.object(botocore.auth, "get_current_datetime", return_value=FIXED_TIME):
            SigV4Auth(credentials, SERVICE, REGION).add_auth(request)
        # botocore signs the Host the HTTP client will send (taken from the URL); list it like the wire does.
        signed_header_pairs = [("Host", ENDPOINT.split("://", 1)[1])]
        signed_header_pairs += [(k, v) for k, v in request.headers.items()
                                if k.lower() not in ("authorization", "x-amz-date", "x-amz-security-token")]
        header_literal = ", ".join(f"({swift_string(k)}, {swift_string(v)})" for k, v in signed_header_pairs)
        print("SigV4Vector(")
        print(f"    name: {swift_string(name)},")
        print(f"    method: {swift_string(method)}, path: {swift_string(path)}, query: {swift_string(query)},")
        print(f"    headers: [{header_literal}],")
        print(f"    body: {swift_string(body.decode())},")
        print(f"    sessionToken: {swift_string(SESSION_TOKEN) if with_token else 'nil'},")
        print(f"    amzDate: {swift_string(request.headers['X-Amz-Date'])},")
        print(f"    authorization: {swift_string(request.headers['Authorization'])}")
        print("),")


if __name__ == "__main__":
    main()
