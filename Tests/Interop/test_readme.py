"""The README's commands run as written: every command of its shell blocks is taken from README.md itself and run, in
order, against the server its own `carillon serve` line starts (only the data directory and the port numbers are
swapped for free ones, and the metrics port is given one), so a README command that stops working fails the suite. A command this test does not know
fails it too: add it here with what it should do."""
import os
import re
import shlex
import signal
import socket
import subprocess
import tempfile
import threading
import time

import requests

from conftest import ACCESS_KEY_ID, SECRET_ACCESS_KEY

HERE = os.path.dirname(os.path.abspath(__file__))
README = os.path.join(HERE, "..", "..", "README.md")
BINARY = os.environ.get("CARILLON_BIN", ".build/debug/carillon")


def shell_lines():
    """The command lines of the README's ```sh blocks, comments stripped."""
    lines, inside = [], False
    for line in open(README, encoding="utf-8"):
        if line.startswith("```"):
            inside = line.strip() in ("```sh", "```bash") and not inside
            continue
        if inside and line.strip():
            lines.append(line.split("  #")[0].strip())
    return lines


def free_port(kind):
    with socket.socket(socket.AF_INET, kind) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_the_readme_commands_work_as_written():
    lines = shell_lines()
    # The set-up commands are what this suite itself runs (`make test`, and `swift build` inside it).
    assert "make demo" in lines and "make test" in lines and "swift build" in lines, lines
    commands = [line for line in lines if not line.startswith(("make ", "swift build"))]
    http_port, media_port, metrics_port = free_port(socket.SOCK_STREAM), free_port(socket.SOCK_DGRAM), \
        free_port(socket.SOCK_STREAM)
    env = dict(os.environ)
    env.pop("CARILLON_ACCESS_KEY_ID", None)
    env.pop("CARILLON_SECRET_ACCESS_KEY", None)
    ran, server, meeting_id = [], None, None
    with tempfile.TemporaryDirectory(prefix="carillon-readme-") as root:
        data_dir = os.path.join(root, "carillon-data")

        def adapt(command):
            command = command.replace(".build/debug/carillon", shlex.quote(BINARY), 1)
            command = command.replace("./carillon-data", data_dir)
            command = command.replace("--port 8080", f"--port {http_port}")
            command = command.replace("--media-port 3478", f"--media-port {media_port}")
            command = command.replace("http://127.0.0.1:8080", f"http://127.0.0.1:{http_port}")
            if meeting_id:
                command = command.replace("<MeetingId>", meeting_id)
            return command

        def run(command, timeout=60):
            result = subprocess.run(shlex.split(command), capture_output=True, text=True, env=env, timeout=timeout)
            assert result.returncode == 0, f"{command}\n{result.stdout}{result.stderr}"
            return result.stdout

        try:
            for line in commands:
                command = adapt(line)
                words = line.split()
                if words[:2] == [".build/debug/carillon", "serve"]:
                    server = subprocess.Popen(shlex.split(command) + ["--metrics-port", str(metrics_port)], text=True,
                                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                                              start_new_session=True)
                    for output in server.stdout:
                        if "carillon ready" in output:
                            break
                    else:
                        raise AssertionError("the README's serve command did not start")
                    # Keep draining its output (info logs), so it never blocks on a full pipe.
                    threading.Thread(target=lambda: [None for _ in server.stdout], daemon=True).start()
                elif words[0] == "export":
                    # The README leaves the keys to the reader (`...`): use the pair the server generated, as the
                    # comment beside it says (`--data-dir` works too).
                    assert "CARILLON_ACCESS_KEY_ID=" in line and "CARILLON_SECRET_ACCESS_KEY=" in line, line
                    import json
                    key = json.load(open(os.path.join(data_dir, "access-keys.json")))[0]
                    env["CARILLON_ACCESS_KEY_ID"] = key["AccessKeyId"]
                    env["CARILLON_SECRET_ACCESS_KEY"] = key["SecretAccessKey"]
                elif words[1:3] == ["meeting", "create"]:
                    meeting_id = re.search(r"MeetingId: (\S+)", run(command)).group(1)
                elif words[1:3] == ["meeting", "list"]:
                    assert meeting_id in run(command)
                elif words[1] == "join":
                    # A bot stays until SIGINT: it must get into the meeting, then leave cleanly.
                    bot = subprocess.Popen(shlex.split(command), text=True, stdout=subprocess.PIPE,
                                           stderr=subprocess.STDOUT, env=env, start_new_session=True)
                    seen = []
                    deadline = time.monotonic() + 30
                    for output in bot.stdout:
                        seen.append(output)
                        if output.startswith("in the meeting") or time.monotonic() > deadline:
                            break
                    assert any(o.startswith("in the meeting") for o in seen), "".join(seen)
                    bot.send_signal(signal.SIGINT)
                    rest, _ = bot.communicate(timeout=30)
                    assert bot.returncode == 0, "".join(seen) + rest
                elif words[1:3] == ["meeting", "get"]:
                    shown = run(command)
                    assert re.search(rf"Attendee: \S+ alice left since", shown), shown
                elif words[1:3] == ["meeting", "delete"]:
                    assert f"deleted {meeting_id}" in run(command)
                    meeting_id = None
                elif words[1:3] == ["meeting", "invite"]:
                    # "Join from a browser" comes after the delete: it invites to a meeting of its own.
                    if meeting_id is None:
                        created = run(adapt(".build/debug/carillon meeting create --endpoint http://127.0.0.1:8080"))
                        meeting_id = re.search(r"MeetingId: (\S+)", created).group(1)
                        command = adapt(line)
                    link = run(command).strip().splitlines()[-1]
                    assert link.startswith(f"http://127.0.0.1:{http_port}/join/") and link.endswith("?name=Ada"), link
                    assert requests.get(link, timeout=10).status_code == 200, link
                else:
                    raise AssertionError(f"the README has a command this test does not know: {line}")
                ran.append(words[1] if words[0] != "export" else "export")
        finally:
            if server:
                server.send_signal(signal.SIGTERM)
                server.wait(timeout=30)
    assert ran == ["serve", "export", "meeting", "meeting", "join", "meeting", "meeting", "meeting"], ran
    assert server.returncode == 0
