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


def test_a_bot_whose_reader_goes_away_ends_quietly(chime, server):
    """`carillon join ... | head -1`: when the pipe closes the bot ends by SIGPIPE, as Unix tools do (it trapped on
    the failed write with a backtrace)."""
    import signal
    meeting_id = chime.create_meeting(ClientRequestToken="cli-pipe", MediaRegion="us-east-1",
                                      ExternalMeetingId="cli-pipe")["Meeting"]["MeetingId"]
    binary = os.environ.get("CARILLON_BIN", ".build/debug/carillon")
    env = dict(os.environ, CARILLON_ACCESS_KEY_ID=ACCESS_KEY_ID, CARILLON_SECRET_ACCESS_KEY=SECRET_ACCESS_KEY)
    bot = subprocess.Popen([binary, "join", "--endpoint", server.endpoint, "--meeting", meeting_id, "--name", "piped",
                            "--duration", "20"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        assert bot.stdout.readline().startswith(b"joining meeting")
        bot.stdout.close()
        _, errors = bot.communicate(timeout=30)
    finally:
        if bot.poll() is None:
            bot.kill()
    assert bot.returncode == -signal.SIGPIPE, (bot.returncode, errors.decode()[-2000:])
    assert b"Fatal error" not in errors
    chime.delete_meeting(MeetingId=meeting_id)


def test_version_names_the_commit_it_was_built_from():
    """`carillon --version`: the version and the commit of the checkout the binary was built from (the BuildCommit
    plugin writes it at every build)."""
    import re
    binary = os.environ.get("CARILLON_BIN", ".build/debug/carillon")
    head = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True)
    printed = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
    assert re.fullmatch(r"\d+\.\d+\.\d+ \(commit ([0-9a-f]{12}|unknown)(, with uncommitted changes)?\)", printed), printed
    if head.returncode == 0:
        assert f"commit {head.stdout.strip()}" in printed, (printed, head.stdout)
