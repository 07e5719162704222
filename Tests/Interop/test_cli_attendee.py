"""`carillon attendee ...`, the live attendee state behind `meeting get` (Carillon's signed extension
`GET /carillon/meetings/{id}/attendees`), `meeting create --notifications` and `serve --log-format json`, against a
real `carillon serve` with real bots."""
import http.server
import json
import os
import signal
import subprocess
import tempfile
import threading
import time

from conftest import ACCESS_KEY_ID, SECRET_ACCESS_KEY, start_server, stop_server

BINARY = os.environ.get("CARILLON_BIN", ".build/debug/carillon")
ENV = dict(os.environ, CARILLON_ACCESS_KEY_ID=ACCESS_KEY_ID, CARILLON_SECRET_ACCESS_KEY=SECRET_ACCESS_KEY)


def cli(server, *args, json_output=True):
    result = subprocess.run([BINARY, *args, "--endpoint", server.endpoint, *(["--json"] if json_output else [])],
                            capture_output=True, text=True, env=ENV, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads(result.stdout) if json_output else result.stdout


def attendees(server, meeting_id):
    return {a["ExternalUserId"]: a for a in cli(server, "attendee", "list", "--meeting", meeting_id)["Attendees"]}


def wait_for(what, predicate, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.25)
    raise AssertionError(f"timed out waiting for {what}")


def test_attendee_commands_and_live_state(server):
    meeting_id = cli(server, "meeting", "create")["Meeting"]["MeetingId"]
    # create --json: what an SDK app joins with.
    created = cli(server, "attendee", "create", "--meeting", meeting_id, "--external-user-id", "sdk-app")["Attendee"]
    assert created["ExternalUserId"] == "sdk-app" and len(created["AttendeeId"]) == 36 and created["JoinToken"]
    assert attendees(server, meeting_id)["sdk-app"]["State"] == "not-joined"

    bot = subprocess.Popen([BINARY, "join", "--endpoint", server.endpoint, "--meeting", meeting_id, "--name", "ana",
                            "--mute", "--video-in", "pattern", "--video-size", "320x180", "--share", "slides",
                            "--duration", "60"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV)
    try:
        ana = wait_for("ana joined, muted, with camera and content share", lambda: (
            lambda a: a if a and a["State"] == "joined" and a["Muted"] and a["Video"] and a["Content"] else None
        )(attendees(server, meeting_id).get("ana")))
        assert ana["Since"].endswith("Z") and ana["JoinToken"], ana
        # The content share is folded into its owner, not listed as an attendee of its own.
        listed = attendees(server, meeting_id)
        assert sorted(listed) == ["ana", "sdk-app"] and listed["sdk-app"]["State"] == "not-joined", listed
        shown = cli(server, "meeting", "get", meeting_id, json_output=False)
        assert "Attendees: 2 (1 in the meeting now)" in shown, shown
        assert f"Attendee: {ana['AttendeeId']} ana joined since {ana['Since']}, muted, video, content" in shown, shown
        assert {a["ExternalUserId"]: a["State"] for a in cli(server, "meeting", "get", meeting_id)["Attendees"]} == \
            {"ana": "joined", "sdk-app": "not-joined"}
        # The bot leaves on SIGINT: `left`.
        bot.send_signal(signal.SIGINT)
        bot.wait(timeout=30)
    finally:
        if bot.poll() is None:
            bot.kill()
    left = wait_for("ana left", lambda: (lambda a: a if a["State"] == "left" else None)(attendees(server, meeting_id)["ana"]))
    assert not left["Muted"] and not left["Video"] and not left["Content"], left

    # delete --json: `{}`, and the attendee is gone from both lists.
    assert cli(server, "attendee", "delete", "--meeting", meeting_id, "--attendee-id", created["AttendeeId"]) == {}
    assert sorted(attendees(server, meeting_id)) == ["ana"]
    cli(server, "meeting", "delete", meeting_id)


def test_the_live_extension_is_signed_like_the_rest_of_the_api(server):
    import urllib.error
    import urllib.request
    meeting_id = cli(server, "meeting", "create")["Meeting"]["MeetingId"]
    try:
        urllib.request.urlopen(f"{server.endpoint}/carillon/meetings/{meeting_id}/attendees", timeout=10)
        raise AssertionError("an unsigned request was answered")
    except urllib.error.HTTPError as error:
        assert error.code == 403, error.code
    cli(server, "meeting", "delete", meeting_id)


class Receiver(http.server.BaseHTTPRequestHandler):
    events = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        Receiver.events.append(json.loads(body))
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass


def test_notifications_from_the_cli_and_json_logs():
    receiver = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{receiver.server_address[1]}/hook"
    with tempfile.TemporaryDirectory(prefix="carillon-notify-") as data_dir:
        server = start_server(data_dir, extra=["--webhook-url", url, "--webhook-secret", "s3cret",
                                               "--log-format", "json"])
        try:
            quiet = cli(server, "meeting", "create")["Meeting"]["MeetingId"]
            notified = cli(server, "meeting", "create", "--notifications")["Meeting"]["MeetingId"]
            started = wait_for("MeetingStarted", lambda: [e for e in Receiver.events
                                                          if e["eventType"] == "chime:MeetingStarted"])
            time.sleep(1)
            # Only the meeting created with --notifications has its events delivered.
            assert [e["meetingId"] for e in started] == [notified], Receiver.events
            assert all(e["meetingId"] != quiet for e in Receiver.events), Receiver.events
            cli(server, "meeting", "delete", quiet)
        finally:
            stop_server(server)
            receiver.shutdown()
    # Every log line is one JSON object with the stable keys; the control API's changes are among them.
    logs = [json.loads(line) for line in server.output if line.startswith("{")]
    assert logs, server.output
    for entry in logs:
        assert list(entry)[:4] == ["time", "level", "logger", "message"], entry
        assert entry["time"].endswith("Z") and entry["level"] in ("info", "notice", "warning", "error"), entry
    creates = [e for e in logs if e["message"].startswith("control API CreateMeeting")]
    assert len(creates) == 2 and creates[0]["metadata"]["accessKeyId"] == ACCESS_KEY_ID, logs
    # What happened to meetings, with their ids: created, and ended with the reason.
    assert [e["metadata"]["meeting"] for e in logs if e["message"] == "meeting created"] == [quiet, notified], logs
    assert [(e["metadata"]["meeting"], e["metadata"]["reason"]) for e in logs if e["message"] == "meeting ended"] == \
        [(quiet, "DeleteMeeting")], logs
    # Nothing but JSON objects and the server's plain stdout lines (keys, ready, stopped).
    plain = [line for line in server.output if not line.startswith("{")]
    assert all(line.startswith(("access keys", "carillon ready", "carillon stopped")) for line in plain), plain
