"""A newcomer's connection mistakes with the CLI, answered within two seconds in one line that says what to do, each
with its own exit status (sysexits.h: 69 unreachable, 76 TLS mismatch, 77 refused credentials). They used to hang
30 s and print a library's internals."""
import os
import subprocess
import tempfile
import time

from conftest import ACCESS_KEY_ID, SECRET_ACCESS_KEY, start_server, stop_server
from test_tls_serve import make_leaf


def meeting_list(endpoint, **env_overrides):
    binary = os.environ.get("CARILLON_BIN", ".build/debug/carillon")
    env = dict(os.environ, CARILLON_ACCESS_KEY_ID=ACCESS_KEY_ID, CARILLON_SECRET_ACCESS_KEY=SECRET_ACCESS_KEY)
    env.pop("CARILLON_CA_FILE", None)
    env.update(env_overrides)
    started = time.monotonic()
    result = subprocess.run([binary, "meeting", "list", "--endpoint", endpoint], capture_output=True, text=True,
                            env=env, timeout=60)
    return result, time.monotonic() - started


def expect(result_and_time, status, *words):
    result, seconds = result_and_time
    output = result.stdout + result.stderr
    assert result.returncode == status, output
    assert all(word in output for word in words), output
    assert "checkouts" not in output, output
    # Two seconds for the answer, and room for a debug binary's start on a busy machine.
    assert seconds < 5, f"{seconds:.1f} s: {output}"


def test_connection_mistakes_are_named_at_once(server):
    plain = server.endpoint
    port = plain.rsplit(":", 1)[1]
    expect(meeting_list("http://127.0.0.1:1"), 69, "ConnectionRefused", "http://127.0.0.1:1", "--endpoint")
    expect(meeting_list(f"https://127.0.0.1:{port}"), 76, "NotTLS", "use http://")
    expect(meeting_list("http://no-such-host.invalid:8080"), 69, "UnknownHost", "no-such-host.invalid")
    expect(meeting_list(plain, CARILLON_SECRET_ACCESS_KEY="not-the-secret"), 77, "HTTP 403", "CARILLON_SECRET_ACCESS_KEY")


def test_tls_mistakes_are_named_at_once():
    with tempfile.TemporaryDirectory(prefix="carillon-cli-tls-") as root:
        make_leaf(root, "ca")
        server = start_server(os.path.join(root, "data"), extra=[
            "--tls-cert", os.path.join(root, "ca-leaf.pem"), "--tls-key", os.path.join(root, "leaf.key")])
        try:
            port = server.endpoint.rsplit(":", 1)[1]
            expect(meeting_list(server.endpoint), 76, "UntrustedCertificate", "CARILLON_CA_FILE")
            expect(meeting_list(f"http://127.0.0.1:{port}"), 69, "ConnectionClosed", "use https://")
            result, _ = meeting_list(server.endpoint, CARILLON_CA_FILE=os.path.join(root, "ca.pem"))
            assert result.returncode == 0, result.stdout + result.stderr
        finally:
            stop_server(server)


def test_a_bot_whose_server_stays_away_gives_up_when_it_said():
    """`carillon join --reconnect-timeout 3`: the server is killed; the bot says how long it will try, gives up after
    that, and exits non-zero (it used to stay at `reconnecting...` with no further word for Chime's 180 s)."""
    binary = os.environ.get("CARILLON_BIN", ".build/debug/carillon")
    env = dict(os.environ, CARILLON_ACCESS_KEY_ID=ACCESS_KEY_ID, CARILLON_SECRET_ACCESS_KEY=SECRET_ACCESS_KEY)
    with tempfile.TemporaryDirectory(prefix="carillon-cli-away-") as root:
        server = start_server(os.path.join(root, "data"))
        bot = None
        try:
            meeting_id = subprocess.run([binary, "meeting", "create", "--endpoint", server.endpoint, "--json"],
                                        capture_output=True, text=True, env=env, timeout=60).stdout
            import json
            meeting_id = json.loads(meeting_id)["Meeting"]["MeetingId"]
            bot = subprocess.Popen([binary, "join", "--endpoint", server.endpoint, "--meeting", meeting_id, "--name",
                                    "alone", "--reconnect-timeout", "3"], stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True, env=env)
            lines = []
            while not any(line.startswith("in the meeting") for line in lines):
                line = bot.stdout.readline()
                assert line, "".join(lines)
                lines.append(line)
            server.process.kill()
            server.process.wait(timeout=10)
            killed = time.monotonic()
            output, _ = bot.communicate(timeout=60)
            took = time.monotonic() - killed
        finally:
            if bot is not None and bot.poll() is None:
                bot.kill()
            if server.process.poll() is None:
                server.process.kill()
    assert "reconnecting... (gives up after 3 s" in output and "gave up reconnecting" in output, output
    assert bot.returncode != 0, output
    # Three seconds of trying, the drop's detection before it, and a debug binary's exit on a busy machine.
    assert took < 20, f"exited {took:.1f} s after the server went"
