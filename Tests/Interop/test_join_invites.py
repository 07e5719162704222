"""Guest invites over HTTP against a real `carillon serve`: `carillon meeting invite` makes the link, `GET` serves the
page and its files with a strict Content-Security-Policy, `POST` makes the guest an attendee (the Chime JS demo's
JoinInfo shape, usable with the join token), and an invite opens nothing but its own meeting's page."""
import datetime
import json
import os
import subprocess
import time
import urllib.parse

import requests

from conftest import ACCESS_KEY_ID, SECRET_ACCESS_KEY


def invite(server, meeting_id, *extra):
    binary = os.environ.get("CARILLON_BIN", ".build/debug/carillon")
    env = dict(os.environ, CARILLON_ACCESS_KEY_ID=ACCESS_KEY_ID, CARILLON_SECRET_ACCESS_KEY=SECRET_ACCESS_KEY)
    result = subprocess.run([binary, "meeting", "invite", "--endpoint", server.endpoint, meeting_id, *extra],
                            capture_output=True, text=True, env=env, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout.strip().splitlines()


def new_meeting(chime, name):
    return chime.create_meeting(ClientRequestToken=name, MediaRegion="us-east-1", ExternalMeetingId=name)["Meeting"]


def test_an_invite_link_serves_the_page_and_makes_guests_attendees(chime, server):
    meeting = new_meeting(chime, "invite-page")
    lines = invite(server, meeting["MeetingId"], "--name", "Ada & Co")
    url = lines[-1]
    parsed = urllib.parse.urlparse(url)
    assert f"{parsed.scheme}://{parsed.netloc}" == server.endpoint and parsed.path.startswith("/join/"), lines
    assert urllib.parse.parse_qs(parsed.query) == {"name": ["Ada & Co"]}, url
    assert lines[0] == f"MeetingId: {meeting['MeetingId']}"
    expires = datetime.datetime.fromisoformat(lines[1].removeprefix("Expires: ").replace("Z", "+00:00"))
    remaining = expires - datetime.datetime.now(datetime.timezone.utc)
    assert datetime.timedelta(hours=23, minutes=59) < remaining <= datetime.timedelta(hours=24), lines

    page = requests.get(url, timeout=10)
    assert page.status_code == 200 and page.headers["Content-Type"] == "text/html; charset=utf-8"
    policy = page.headers["Content-Security-Policy"]
    host = urllib.parse.urlparse(server.endpoint).netloc
    for directive in ("default-src 'none'", "script-src 'self'", "style-src 'self'", f"connect-src 'self' ws://{host}",
                      "frame-ancestors 'none'", "base-uri 'none'"):
        assert directive in policy, policy
    assert page.headers["Referrer-Policy"] == "no-referrer" and page.headers["Cache-Control"] == "no-store"
    assert page.headers["X-Content-Type-Options"] == "nosniff"
    assert '<script type="module" src="assets/meeting.js">' in page.text
    for name, kind in (("meeting.js", "text/javascript"), ("signaling-codec.js", "text/javascript"),
                       ("meeting.css", "text/css")):
        asset = requests.get(urllib.parse.urljoin(url, f"assets/{name}"), timeout=10)
        assert asset.status_code == 200 and asset.headers["Content-Type"].startswith(kind), name
        assert len(asset.content) > 500, name
    assert requests.get(urllib.parse.urljoin(url, "assets/secrets.json"), timeout=10).status_code == 404

    joined = requests.post(parsed._replace(query="").geturl(), json={"Name": "Ada & Co"}, timeout=10)
    assert joined.status_code == 200, joined.text
    info = joined.json()["JoinInfo"]
    assert info["Meeting"]["MeetingId"] == meeting["MeetingId"]
    assert info["Meeting"]["MediaPlacement"]["SignalingUrl"] == meeting["MediaPlacement"]["SignalingUrl"]
    attendee = info["Attendee"]
    assert attendee["ExternalUserId"].endswith("#Ada & Co") and len(attendee["ExternalUserId"]) == 9 + len("Ada & Co")
    # The guest is an attendee of the meeting like any other, with a working join token.
    stored = chime.get_attendee(MeetingId=meeting["MeetingId"], AttendeeId=attendee["AttendeeId"])["Attendee"]
    assert stored["ExternalUserId"] == attendee["ExternalUserId"] and stored["JoinToken"] == attendee["JoinToken"]
    chime.delete_meeting(MeetingId=meeting["MeetingId"])


def test_an_invite_admits_nobody_when_expired_forged_or_its_meeting_ended(chime, server):
    meeting = new_meeting(chime, "invite-refusals")
    url = invite(server, meeting["MeetingId"])[-1]
    forged = url[:-1] + ("0" if url[-1] != "0" else "1")
    page = requests.get(forged, timeout=10)
    assert page.status_code == 403 and "not a valid invite link" in page.text
    assert "default-src 'none'" in page.headers["Content-Security-Policy"]
    assert requests.post(forged, json={"Name": "Mallory"}, timeout=10).status_code == 403
    assert requests.get(server.endpoint + "/join/", timeout=10).status_code == 404
    bad = requests.post(url, json={"Name": ""}, timeout=10)
    assert bad.status_code == 400 and bad.json()["Message"] == "Please enter your name."
    assert requests.post(url, data="x" * 5000, timeout=10).status_code == 400

    # A one-second invite: wait for the server's clock to pass its expiry (printed in whole seconds), then it is gone.
    short = invite(server, meeting["MeetingId"], "--expires-in", "1")
    expires = datetime.datetime.fromisoformat(short[1].removeprefix("Expires: ").replace("Z", "+00:00"))
    time.sleep(max(0.0, (expires - datetime.datetime.now(datetime.timezone.utc)).total_seconds()) + 1.1)
    gone = requests.get(short[-1], timeout=10)
    assert gone.status_code == 410 and "expired" in gone.text
    assert requests.post(short[-1], json={"Name": "Late"}, timeout=10).json()["Code"] == "Gone"

    chime.delete_meeting(MeetingId=meeting["MeetingId"])
    ended = requests.post(url, json={"Name": "After"}, timeout=10)
    assert ended.status_code == 404 and ended.json()["Message"] == "This meeting has ended."
    assert requests.get(url, timeout=10).status_code == 404


def test_an_invite_opens_nothing_of_the_control_api(chime, server):
    meeting = new_meeting(chime, "invite-scope")
    url = invite(server, meeting["MeetingId"])[-1]
    token = url.rsplit("/", 1)[1]
    # Unsigned requests, with or without the invite anywhere in them, are refused as before.
    for method, path in (("GET", f"/meetings/{meeting['MeetingId']}"), ("GET", f"/meetings/{meeting['MeetingId']}/attendees"),
                         ("POST", f"/meetings/{meeting['MeetingId']}/attendees"),
                         ("POST", f"/carillon/meetings/{meeting['MeetingId']}/invites"),
                         ("GET", f"/join/..%2Fmeetings%2F{meeting['MeetingId']}")):
        for headers in ({}, {"Authorization": f"Bearer {token}"}):
            response = requests.request(method, server.endpoint + path, headers=headers, json={}, timeout=10)
            assert response.status_code in (403, 404), (method, path, response.status_code, response.text)
    assert requests.put(url, json={"Name": "x"}, timeout=10).status_code == 405
    chime.delete_meeting(MeetingId=meeting["MeetingId"])


def test_the_invite_command_reports_a_meeting_that_does_not_exist(server):
    binary = os.environ.get("CARILLON_BIN", ".build/debug/carillon")
    env = dict(os.environ, CARILLON_ACCESS_KEY_ID=ACCESS_KEY_ID, CARILLON_SECRET_ACCESS_KEY=SECRET_ACCESS_KEY)
    result = subprocess.run([binary, "meeting", "invite", "--endpoint", server.endpoint,
                             "00000000-0000-0000-0000-000000000000"], capture_output=True, text=True, env=env, timeout=60)
    assert result.returncode != 0 and "not found" in (result.stdout + result.stderr), result.stdout + result.stderr
    result = subprocess.run([binary, "meeting", "invite", "--endpoint", server.endpoint, "--expires-in", "0", "x"],
                            capture_output=True, text=True, env=env, timeout=60)
    assert result.returncode != 0 and "--expires-in" in result.stderr, result.stderr
