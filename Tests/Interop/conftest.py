"""Starts a real `carillon serve` on 127.0.0.1 for the interop tests and hands out boto3 clients."""
import json
import os
import re
import subprocess
import tempfile
import threading
import time

import boto3
import pytest
from botocore.config import Config

ACCESS_KEY_ID = "AKIAINTEROPTEST00001"
SECRET_ACCESS_KEY = "interop-secret-key-0123456789abcdefghijkl"


class RunningServer:
    def __init__(self, process, endpoint, data_dir, metrics=None, media=None):
        self.process = process
        self.endpoint = endpoint
        self.data_dir = data_dir
        self.metrics = metrics
        # The media host:port the server advertises (AudioHostUrl).
        self.media = media
        self.output = []


# Media port 0 by default: the kernel picks a free one. A fixed port inside the ephemeral range (32768-60999 on
# Debian) can be held by any client socket of the moment, and the server then refuses to start.
def start_server(data_dir, port=0, extra=(), media_port=0, preexec_fn=None, keys_from_environment=True):
    binary = os.environ.get("CARILLON_BIN", ".build/debug/carillon")
    env = dict(os.environ, CARILLON_ACCESS_KEY_ID=ACCESS_KEY_ID, CARILLON_SECRET_ACCESS_KEY=SECRET_ACCESS_KEY)
    if not keys_from_environment:
        del env["CARILLON_ACCESS_KEY_ID"], env["CARILLON_SECRET_ACCESS_KEY"]
    process = subprocess.Popen(
        [binary, "serve", "--data-dir", data_dir, "--host", "127.0.0.1", "--port", str(port), "--media-port", str(media_port),
         "--metrics-port", "0",
         *extra],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, preexec_fn=preexec_fn,
    )
    deadline = time.monotonic() + 30
    lines = []
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        lines.append(line)
        match = re.search(r"carillon ready endpoint=(\S+)", line)
        if match:
            metrics = re.search(r"operations=(\S+)", line)
            media = re.search(r"media=(\S+)", line)
            server = RunningServer(process, match.group(1), data_dir, metrics.group(1) if metrics else None,
                                   media.group(1) if media else None)
            server.output = lines
            # Keep draining the pipe so the server never blocks on a full stdout.
            threading.Thread(target=lambda: [server.output.append(l) for l in process.stdout], daemon=True).start()
            return server
    process.kill()
    raise RuntimeError("carillon serve did not become ready:\n" + "".join(lines))


def stop_server(server):
    server.process.terminate()
    try:
        server.process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        server.process.kill()
        raise


@pytest.fixture(scope="session")
def server():
    with tempfile.TemporaryDirectory(prefix="carillon-interop-") as data_dir:
        running = start_server(data_dir)
        yield running
        stop_server(running)
        assert running.process.returncode == 0, "server did not shut down cleanly:\n" + "".join(running.output)


def make_client(endpoint, key_id=ACCESS_KEY_ID, secret=SECRET_ACCESS_KEY, region="us-east-1", retries=0, verify=None):
    return boto3.client(
        "chime-sdk-meetings",
        verify=verify,
        endpoint_url=endpoint,
        region_name=region,
        aws_access_key_id=key_id,
        aws_secret_access_key=secret,
        config=Config(retries={"max_attempts": retries, "mode": "standard"}),
    )


@pytest.fixture()
def chime(server):
    return make_client(server.endpoint)


@pytest.fixture()
def postgresql():
    """(socket directory, database name) of a fresh database on a private PostgreSQL, stopped afterwards."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "test-postgresql.sh")
    process = subprocess.Popen(["bash", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    line = process.stdout.readline().split()
    assert line[:1] == ["ready"], line
    directory = line[1]
    subprocess.run(["createdb", "-h", directory, "-U", "postgres", "carillon"], check=True)
    yield directory, "carillon"
    process.stdin.close()
    process.wait(timeout=30)


def nodes(endpoint):
    """The nodes `carillon nodes --json` lists, by id."""
    binary = os.environ.get("CARILLON_BIN", ".build/debug/carillon")
    env = dict(os.environ, CARILLON_ACCESS_KEY_ID=ACCESS_KEY_ID, CARILLON_SECRET_ACCESS_KEY=SECRET_ACCESS_KEY)
    result = subprocess.run([binary, "nodes", "--endpoint", endpoint, "--json"], capture_output=True, text=True,
                            env=env, timeout=30)
    assert result.returncode == 0, result.stdout + result.stderr
    return {node["NodeId"]: node for node in json.loads(result.stdout)["Nodes"]}


def wait_for(what, check, timeout=15):
    """The first true value of `check()`, polled every 0.2 s; fails after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)
