"""`carillon meeting ...` against a real `carillon serve`, with `--json` as scripts use it."""
import json
import os
import subprocess

from conftest import ACCESS_KEY_ID, SECRET_ACCESS_KEY


def cli(server, *args):
    binary = os.environ.get("CARILLON_BIN", ".build/debug/carillon")
    env = dict(os.environ, CARILLON_ACCESS_KEY_ID=ACCESS_KEY_ID, CARILLON_SECRET_ACCESS_KEY=SECRET_ACCESS_KEY)
    result = subprocess.run([binary, "meeting", *args, "--endpoint", server.endpoint, "--json"],
                            capture_output=True, text=True, env=env, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads(result.stdout)


def test_meeting_commands_with_json(chime, server):
    created = cli(server, "create")["Meeting"]
    meeting_id = created["MeetingId"]
    for name in ("ana", "ben"):
        chime.create_attendee(MeetingId=meeting_id, ExternalUserId=name)
    # get: the meeting with every attendee (GetMeeting alone has none).
    shown = cli(server, "get", meeting_id)
    assert shown["Meeting"]["MeetingId"] == meeting_id
    assert sorted(attendee["ExternalUserId"] for attendee in shown["Attendees"]) == ["ana", "ben"]
    # list: every page (the API pages by 100; make sure there are more than 100).
    extra = [chime.create_meeting(ClientRequestToken=f"cli-list-{index}", MediaRegion="us-east-1",
                                  ExternalMeetingId=f"cli-list-{index}")["Meeting"]["MeetingId"] for index in range(101)]
    listed = [meeting["MeetingId"] for meeting in cli(server, "list")["Meetings"]]
    assert meeting_id in listed and set(extra) <= set(listed) and len(listed) == len(set(listed))
    # delete: `{}` (DeleteMeeting has no body), and the meeting is gone.
    assert cli(server, "delete", meeting_id) == {}
    for other in extra:
        chime.delete_meeting(MeetingId=other)
    assert meeting_id not in [meeting["MeetingId"] for meeting in cli(server, "list")["Meetings"]]
