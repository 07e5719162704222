"""`carillon serve --tls-cert --tls-key` serves HTTPS (boto3 verifies it against the test's CA) and re-reads its
certificate on SIGHUP: after the files are replaced and the signal sent, new connections get the new certificate."""
import os
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import time

import pytest
import requests

from conftest import ACCESS_KEY_ID, SECRET_ACCESS_KEY, make_client, start_server, stop_server
from test_reverse_proxy import openssl


def make_leaf(root, ca):
    """A CA named `ca` and a leaf for 127.0.0.1 it signs, as `<ca>-leaf.pem` with `leaf.key`."""
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    openssl(root, "req", "-x509", *ec, "-keyout", f"{ca}.key", "-out", f"{ca}.pem", "-days", "2", "-subj", f"/CN={ca}")
    if not os.path.exists(os.path.join(root, "leaf.key")):
        openssl(root, "req", "-new", *ec, "-keyout", "leaf.key", "-out", "leaf.csr", "-subj", "/CN=127.0.0.1")
        with open(os.path.join(root, "san.ext"), "w") as handle:
            handle.write("subjectAltName=IP:127.0.0.1\n")
    openssl(root, "x509", "-req", "-in", "leaf.csr", "-CA", f"{ca}.pem", "-CAkey", f"{ca}.key", "-CAcreateserial",
            "-days", "2", "-extfile", "san.ext", "-out", f"{ca}-leaf.pem")


def handshake(port, ca_file):
    """True when a TLS handshake with 127.0.0.1:port verifies against `ca_file`."""
    context = ssl.create_default_context(cafile=ca_file)
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
            with context.wrap_socket(raw, server_hostname="127.0.0.1"):
                return True
    except ssl.SSLCertVerificationError:
        return False


def cli_invite(endpoint, meeting_id, ca_file):
    """The invite link `carillon meeting invite` prints (its last line)."""
    binary = os.environ.get("CARILLON_BIN", ".build/debug/carillon")
    env = dict(os.environ, CARILLON_ACCESS_KEY_ID=ACCESS_KEY_ID, CARILLON_SECRET_ACCESS_KEY=SECRET_ACCESS_KEY,
               CARILLON_CA_FILE=ca_file)
    result = subprocess.run([binary, "meeting", "invite", "--endpoint", endpoint, meeting_id], capture_output=True,
                            text=True, env=env, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout.strip().splitlines()[-1]


def test_https_and_a_certificate_reloaded_on_sighup():
    with tempfile.TemporaryDirectory(prefix="carillon-tls-") as root:
        make_leaf(root, "first")
        make_leaf(root, "second")
        served = os.path.join(root, "served.pem")
        shutil.copy(os.path.join(root, "first-leaf.pem"), served)
        server = start_server(os.path.join(root, "data"), media_port=0,
                              extra=["--tls-cert", served, "--tls-key", os.path.join(root, "leaf.key")])
        try:
            assert server.endpoint.startswith("https://127.0.0.1:")
            port = int(server.endpoint.rsplit(":", 1)[1])
            chime = make_client(server.endpoint, verify=os.path.join(root, "first.pem"))
            meeting = chime.create_meeting(ClientRequestToken="tls", MediaRegion="us-east-1",
                                           ExternalMeetingId="tls")["Meeting"]
            assert meeting["MediaPlacement"]["SignalingUrl"].startswith(f"wss://127.0.0.1:{port}/control/")
            assert handshake(port, os.path.join(root, "first.pem"))
            assert not handshake(port, os.path.join(root, "second.pem"))
            # The join page over https: an https invite link, and signaling allowed on wss only.
            invite = cli_invite(server.endpoint, meeting["MeetingId"], os.path.join(root, "first.pem"))
            assert invite.startswith(f"https://127.0.0.1:{port}/join/"), invite
            page = requests.get(invite, verify=os.path.join(root, "first.pem"), timeout=10)
            assert page.status_code == 200 and f"connect-src 'self' wss://127.0.0.1:{port}" in page.headers["Content-Security-Policy"]
            joined = requests.post(invite, json={"Name": "tls guest"}, verify=os.path.join(root, "first.pem"), timeout=10)
            assert joined.json()["JoinInfo"]["Meeting"]["MediaPlacement"]["SignalingUrl"].startswith("wss://"), joined.text

            shutil.copy(os.path.join(root, "second-leaf.pem"), served)
            server.process.send_signal(signal.SIGHUP)
            deadline = time.monotonic() + 10
            while not any("tls certificate reloaded" in line for line in server.output):
                assert time.monotonic() < deadline, "".join(server.output)
                time.sleep(0.05)
            assert handshake(port, os.path.join(root, "second.pem"))
            assert not handshake(port, os.path.join(root, "first.pem"))
        finally:
            stop_server(server)
