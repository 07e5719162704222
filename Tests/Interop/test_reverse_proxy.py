"""The README's reverse-proxy recipe, run for real: nginx from Debian terminates TLS in front of `carillon serve`
(plain HTTP on 127.0.0.1, `--public-endpoint https://...`). boto3 creates a meeting through the proxy, verifying
the certificate against the test's own CA; MediaPlacement points at wss:// on the proxy; and a `carillon join` bot,
trusting that CA through CARILLON_CA_FILE, joins over wss:// through nginx and leaves cleanly."""
import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time

import pytest
import requests

from conftest import ACCESS_KEY_ID, SECRET_ACCESS_KEY, make_client, start_server, stop_server

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"

# An unprivileged nginx in the test's folder: the part of a configuration every proxy test shares.
NGINX_PREAMBLE = """
daemon off;
worker_processes 1;
pid {root}/nginx.pid;
error_log {root}/error.log warn;
events {{ worker_connections 256; }}
http {{
    access_log {root}/access.log;
    client_body_temp_path {root}/body;
    proxy_temp_path {root}/proxy;
    fastcgi_temp_path {root}/fastcgi;
    uwsgi_temp_path {root}/uwsgi;
    scgi_temp_path {root}/scgi;
"""

# The recipe the README shows, with the test's paths and ports filled in.
NGINX_CONF = NGINX_PREAMBLE + """

    map $http_upgrade $connection_upgrade {{
        default upgrade;
        ''      close;
    }}

    server {{
        listen 127.0.0.1:{proxy_port} ssl;
        ssl_certificate     {root}/leaf.pem;
        ssl_certificate_key {root}/leaf.key;

        location / {{
            proxy_pass http://127.0.0.1:{carillon_port};
            proxy_http_version 1.1;
            # SigV4 signs the Host header: pass the client's, port included.
            proxy_set_header Host $http_host;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            # Signaling sockets live as long as meetings.
            proxy_read_timeout 1h;
            proxy_send_timeout 1h;
        }}
    }}
}}
"""


def openssl(root, *arguments):
    subprocess.run(["openssl", *arguments], cwd=root, check=True, capture_output=True)


def make_certificates(root):
    """A CA and a leaf for 127.0.0.1 it signs, with the openssl command."""
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    openssl(root, "req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=proxy test CA")
    openssl(root, "req", "-new", *ec, "-keyout", "leaf.key", "-out", "leaf.csr", "-subj", "/CN=127.0.0.1")
    with open(os.path.join(root, "san.ext"), "w") as handle:
        handle.write("subjectAltName=IP:127.0.0.1\n")
    openssl(root, "x509", "-req", "-in", "leaf.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
            "-days", "2", "-extfile", "san.ext", "-out", "leaf.pem")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_port(port, process, deadline):
    while time.monotonic() < deadline:
        assert process.poll() is None, "nginx exited"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"nothing listens on {port}")


@pytest.mark.skipif(not os.path.exists(NGINX), reason="nginx is not installed (make apt-deps installs nginx-light)")
def test_nginx_terminates_tls_in_front_of_carillon():
    with tempfile.TemporaryDirectory(prefix="carillon-proxy-") as root:
        make_certificates(root)
        proxy_port = free_port()
        data_dir = os.path.join(root, "data")
        server = start_server(data_dir, extra=["--public-endpoint", f"https://127.0.0.1:{proxy_port}"], media_port=0)
        nginx = None
        try:
            carillon_port = int(server.endpoint.rsplit(":", 1)[1])
            with open(os.path.join(root, "nginx.conf"), "w") as handle:
                handle.write(NGINX_CONF.format(root=root, proxy_port=proxy_port, carillon_port=carillon_port))
            nginx = subprocess.Popen([NGINX, "-p", root, "-c", os.path.join(root, "nginx.conf")],
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            wait_for_port(proxy_port, nginx, time.monotonic() + 15)

            endpoint = f"https://127.0.0.1:{proxy_port}"
            chime = make_client(endpoint, verify=os.path.join(root, "ca.pem"))
            meeting = chime.create_meeting(ClientRequestToken="proxy", MediaRegion="us-east-1",
                                           ExternalMeetingId="proxy")["Meeting"]
            placement = meeting["MediaPlacement"]
            assert placement["SignalingUrl"] == f"wss://127.0.0.1:{proxy_port}/control/{meeting['MeetingId']}"
            assert placement["AudioHostUrl"].startswith("127.0.0.1:")

            # Without the CA, the proxy's certificate is refused: the verification above is real.
            untrusting = make_client(endpoint)
            with pytest.raises(Exception, match="CERTIFICATE_VERIFY_FAILED|certificate verify failed"):
                untrusting.list_attendees(MeetingId=meeting["MeetingId"])

            binary = os.environ.get("CARILLON_BIN", ".build/debug/carillon")
            env = dict(os.environ, CARILLON_ACCESS_KEY_ID=ACCESS_KEY_ID, CARILLON_SECRET_ACCESS_KEY=SECRET_ACCESS_KEY,
                       CARILLON_CA_FILE=os.path.join(root, "ca.pem"))
            # A guest's invite link is under the public endpoint, and its page and POST work through nginx.
            made = subprocess.run([binary, "meeting", "invite", "--endpoint", endpoint, meeting["MeetingId"]],
                                  capture_output=True, text=True, env=env, timeout=60)
            assert made.returncode == 0, made.stdout + made.stderr
            invite = made.stdout.strip().splitlines()[-1]
            assert invite.startswith(f"{endpoint}/join/"), invite
            page = requests.get(invite, verify=os.path.join(root, "ca.pem"), timeout=10)
            assert page.status_code == 200 and f"wss://127.0.0.1:{proxy_port}" in page.headers["Content-Security-Policy"]
            script = requests.get(invite.rsplit("/", 1)[0] + "/assets/meeting.js", verify=os.path.join(root, "ca.pem"), timeout=10)
            assert script.status_code == 200 and script.headers["Content-Type"].startswith("text/javascript")
            guest = requests.post(invite, json={"Name": "proxied guest"}, verify=os.path.join(root, "ca.pem"), timeout=10)
            assert guest.json()["JoinInfo"]["Meeting"]["MediaPlacement"]["SignalingUrl"] == placement["SignalingUrl"], guest.text
            bot = subprocess.Popen(
                [binary, "join", "--endpoint", endpoint, "--meeting", meeting["MeetingId"], "--name", "proxied",
                 "--json", "--duration", "3"],
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
            lines = []
            reader = threading.Thread(target=lambda: lines.extend(bot.stdout), daemon=True)
            reader.start()
            assert bot.wait(timeout=60) == 0, "".join(lines)
            reader.join(timeout=5)
            events = [json.loads(line) for line in lines if line.startswith("{")]
            names = [event["event"] for event in events]
            assert "started" in names, "".join(lines)
            stopped = [event for event in events if event["event"] == "stopped"]
            assert stopped and stopped[-1]["status"] == "ok", "".join(lines)
            # The attendee's signaling went through nginx: its access log has the upgrade.
            with open(os.path.join(root, "access.log")) as handle:
                log = handle.read()
            assert f"GET /control/{meeting['MeetingId']}" in log and " 101 " in log, log
        finally:
            if nginx is not None:
                nginx.terminate()
                nginx.wait(timeout=15)
            stop_server(server)
