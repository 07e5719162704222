"""Three `carillon serve` nodes on one PostgreSQL as a cluster (issue 28), each a separate process on 127.0.0.1, with
CLI bots (`carillon join`) in a meeting:

- nine meetings created through one node are placed 3/3/3 over the nodes (each meeting's AudioHostUrl names its
  hosting node's media address);
- two bots that join through a node that does not host their meeting are bridged to the hosting node and hear each
  other's tones (the hosting node counts them, the bridging node does not);
- `kill -9` of the hosting node: the bots' reconnects re-place the meeting on a live node and they hear each other
  again within 30 s (the failover time measured on the bots' recordings is printed);
- the killed node restarted with the same id does not take its old meeting back;
- every meeting and attendee acknowledged before the kill is still there;
- a DeleteMeeting sent to a node that neither hosts the meeting nor carries the bots' sockets ends it for them at once;
- a recording (media capture pipeline) created through a third node runs on the hosting node, goes on on the node
  the meeting moved to after the kill, and is stopped by the meeting's end. The nodes share one recordings folder,
  as they would share a bucket;
- the meeting's webhook events, seen by three different nodes (created on one, joined on another, deleted on a
  third), reach the receiver once each, MeetingStarted first and MeetingEnded last.
"""
import array
import contextlib
import datetime
import http.server
import json
import math
import os
import subprocess
import tempfile
import threading
import time
import wave
from collections import Counter

import boto3
import pytest
from botocore.config import Config

from conftest import ACCESS_KEY_ID, SECRET_ACCESS_KEY, make_client, nodes, start_server, stop_server, wait_for
from test_reverse_proxy import NGINX, NGINX_PREAMBLE, free_port, make_certificates, wait_for_port

BINARY = os.environ.get("CARILLON_BIN", ".build/debug/carillon")
NODES = ("node-a", "node-b", "node-c")
TONES = {"alice": 440, "bob": 1000}
# A tone counts as heard in a 0.5 s window when it is this loud and this far above the listener's own tone.
FLOOR_DBFS = -35
MARGIN_DB = 10


def bot(endpoint, meeting_id, name, recording, ca_file=None):
    env = dict(os.environ, CARILLON_ACCESS_KEY_ID=ACCESS_KEY_ID, CARILLON_SECRET_ACCESS_KEY=SECRET_ACCESS_KEY)
    if ca_file:
        env["CARILLON_CA_FILE"] = ca_file
    process = subprocess.Popen([BINARY, "join", "--endpoint", endpoint, "--meeting", meeting_id, "--name", name,
                                "--audio-in", f"tone:{TONES[name]}", "--audio-out", recording, "--json",
                                "--duration", "120"],
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               env=env)
    process.lines = []
    threading.Thread(target=lambda: process.lines.extend(process.stdout), daemon=True).start()
    return process


def recorded(path):
    """(mono samples, rate) of a bot's recording so far, read while the bot still writes it."""
    with wave.open(path, "rb") as header:
        channels, rate = header.getnchannels(), header.getframerate()
    with open(path, "rb") as file:
        data = file.read()
    start = data.index(b"data") + 8
    body = data[start:]
    body = body[:len(body) - len(body) % (2 * channels)]
    return array.array("h", body)[::channels], rate


def tone_dbfs(samples, rate, frequency):
    """dBFS of one frequency in a window (Goertzel)."""
    coefficient = 2 * math.cos(2 * math.pi * frequency / rate)
    previous = before = 0.0
    for sample in samples:
        previous, before = sample + coefficient * previous - before, previous
    power = previous * previous + before * before - coefficient * previous * before
    amplitude = 2 * math.sqrt(max(power, 0.0)) / max(len(samples), 1) / 32767
    return 20 * math.log10(max(amplitude, 1e-9))


def heard_windows(path, listener, since=0):
    """For each 0.5 s window of the listener's recording from sample `since`: whether the other bot's tone is heard."""
    samples, rate = recorded(path)
    own = TONES[listener]
    other = next(tone for name, tone in TONES.items() if name != listener)
    window = rate // 2
    result = []
    for start in range(since, len(samples) - window + 1, window):
        chunk = samples[start:start + window]
        level = tone_dbfs(chunk, rate, other)
        result.append(level >= FLOOR_DBFS and level >= tone_dbfs(chunk, rate, own) + MARGIN_DB)
    return result


def hears_steadily(path, listener, since=0):
    """The index of the first of four windows in a row with the other tone, or None."""
    windows = heard_windows(path, listener, since)
    for index in range(len(windows) - 3):
        if all(windows[index:index + 4]):
            return index
    return None


def length(path):
    return len(recorded(path)[0])


def pipelines_client(endpoint):
    return boto3.client("chime-sdk-media-pipelines", endpoint_url=endpoint, region_name="us-east-1",
                        aws_access_key_id=ACCESS_KEY_ID, aws_secret_access_key=SECRET_ACCESS_KEY,
                        config=Config(retries={"max_attempts": 0}))


def audio_chunks(folder):
    """The recording's audio files, by their UTC start as named."""
    audio = os.path.join(folder, "audio")
    names = sorted(os.listdir(audio)) if os.path.isdir(audio) else []
    return [datetime.datetime.strptime(name[:-len(".webm")], "%Y-%m-%d-%H-%M-%S-%f") for name in names]


@contextlib.contextmanager
def webhook_receiver():
    """A receiver of the nodes' webhooks on 127.0.0.1: yields (its URL, the events received so far)."""
    received = []

    class Receiver(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            received.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *arguments):
            pass
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/events", received
    finally:
        server.shutdown()


@contextlib.contextmanager
def cluster(postgresql, prefix, recordings=False, webhook=None, public_endpoint=None):
    """Three nodes on the test database, all serving: yields (root folder, servers by node id, a list for the bots,
    the options of a node by id); kills the bots and stops the nodes afterwards."""
    directory, database = postgresql
    url = f"postgresql://postgres@localhost/{database}?host={directory}&sslmode=disable"
    with tempfile.TemporaryDirectory(prefix=prefix) as root:
        def options(name):
            extra = ["--database", url, "--node-id", name]
            if webhook:
                extra += ["--webhook-url", webhook, "--webhook-secret", "cluster-secret"]
            if public_endpoint:
                extra += ["--public-endpoint", public_endpoint]
            return extra + (["--recordings-dir", os.path.join(root, "recordings")] if recordings else [])
        servers, bots = {}, []
        try:
            for name in NODES:
                servers[name] = start_server(os.path.join(root, name), extra=options(name))
            wait_for("three serving nodes", lambda: (lambda listed: len(listed) == 3 and all(
                node["State"] == "serving" for node in listed.values()))(nodes(servers["node-a"].endpoint)))
            yield root, servers, bots, options
        finally:
            for process in bots:
                if process.poll() is None:
                    process.kill()
            for server in servers.values():
                if server.process.poll() is None:
                    stop_server(server)


def wait_until_both_hear(recordings, since=None, timeout=30):
    """Waits until each bot hears the other steadily in its recording, from sample `since[name]` when given."""
    started = time.monotonic()
    for name in TONES:
        wait_for(f"{name} hearing the other bot", lambda: os.path.exists(recordings[name]) and hears_steadily(
            recordings[name], name, since=(since or {}).get(name, 0)) is not None,
            timeout=max(1, timeout - (time.monotonic() - started)))


def test_three_nodes_place_bridge_fail_over_fence_and_end_meetings(postgresql):
    with webhook_receiver() as (webhook, events), \
            cluster(postgresql, "carillon-cluster-", recordings=True, webhook=webhook) as (root, servers, bots, options):
        recordings_dir = os.path.join(root, "recordings")
        front = make_client(servers["node-a"].endpoint)
        meetings = [front.create_meeting(ClientRequestToken=f"cluster-{index}", MediaRegion="us-east-1",
                                         ExternalMeetingId=f"cluster-{index}", NotificationsConfiguration={
                                             "SnsTopicArn": "arn:aws:sns:us-east-1:000000000000:meetings"})["Meeting"]
                    for index in range(9)]
        node_of_media = {server.media: name for name, server in servers.items()}
        placed = Counter(node_of_media[meeting["MediaPlacement"]["AudioHostUrl"]] for meeting in meetings)
        assert placed == {"node-a": 3, "node-b": 3, "node-c": 3}, placed
        attendees = {meeting["MeetingId"]: sorted(
            front.create_attendee(MeetingId=meeting["MeetingId"], ExternalUserId=f"guest-{index}")["Attendee"]
            ["AttendeeId"] for index in range(2)) for meeting in meetings}

        # Bots join a meeting node-b hosts through node-a: their signaling is bridged to node-b.
        meeting = next(m for m in meetings if node_of_media[m["MediaPlacement"]["AudioHostUrl"]] == "node-b")
        meeting_id = meeting["MeetingId"]
        assert meeting["MediaPlacement"]["SignalingUrl"].startswith(
            servers["node-a"].endpoint.replace("http://", "ws://"))
        recordings = {name: os.path.join(root, f"{name}.wav") for name in TONES}
        bots.extend(bot(servers["node-a"].endpoint, meeting_id, name, recordings[name]) for name in TONES)
        wait_until_both_hear(recordings)
        counted = wait_for("node-b counting the bots", lambda: (lambda listed: listed if listed["node-b"][
            "Attendees"] == 2 else None)(nodes(servers["node-c"].endpoint)))
        assert counted["node-a"]["Attendees"] == 0, counted

        # A recording asked of node-c runs on node-b, where the meeting's media is.
        pipeline = pipelines_client(servers["node-c"].endpoint).create_media_capture_pipeline(
            SourceType="ChimeSdkMeeting", SourceArn=f"arn:aws:chime::000000000000:meeting:{meeting_id}",
            SinkType="S3Bucket", SinkArn="arn:aws:s3:::cluster-bucket/meetings")["MediaCapturePipeline"]
        folder = os.path.join(recordings_dir, "cluster-bucket", "meetings", pipeline["MediaPipelineId"])
        wait_for("the recording in progress", lambda: pipelines_client(servers["node-a"].endpoint)
                 .get_media_capture_pipeline(MediaPipelineId=pipeline["MediaPipelineId"])
                 ["MediaCapturePipeline"]["Status"] == "InProgress")
        wait_for("a recorded audio file", lambda: audio_chunks(folder), timeout=15)

        # kill -9 the hosting node: the bots reconnect and their meeting comes back on a live node.
        killed_at = {name: length(recordings[name]) for name in TONES}
        killed = time.monotonic()
        killed_utc = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
        servers["node-b"].process.kill()
        servers["node-b"].process.wait(timeout=10)
        back = {}
        for name in TONES:
            rate = recorded(recordings[name])[1]

            def recovered(name=name, rate=rate):
                # Silence first (the host is gone), then the tone again.
                index = hears_steadily(recordings[name], name, since=killed_at[name] + rate)
                return index is not None and index
            index = wait_for(f"{name} hearing the other bot again", recovered,
                             timeout=max(1, 30 - (time.monotonic() - killed)))
            back[name] = 1 + index * 0.5
        print(f"failover (kill -9 to both tones back, on the recordings): {max(back.values()):.1f} s")
        new_host = node_of_media[make_client(servers["node-c"].endpoint).get_meeting(MeetingId=meeting_id)
                                 ["Meeting"]["MediaPlacement"]["AudioHostUrl"]]
        assert new_host in ("node-a", "node-c"), new_host
        # The recording goes on where the meeting went, into new files.
        wait_for("audio recorded after the kill", lambda: any(start > killed_utc for start in audio_chunks(folder)),
                 timeout=15)

        # Node-b comes back with the same id: it serves again, and the meeting stays where it moved.
        servers["node-b"] = start_server(os.path.join(root, "node-b"), extra=options("node-b"))
        node_of_media[servers["node-b"].media] = "node-b"
        wait_for("node-b serving again", lambda: nodes(servers["node-a"].endpoint)["node-b"]["State"] == "serving")
        steady_from = {name: length(recordings[name]) for name in TONES}
        time.sleep(3)
        assert node_of_media[front.get_meeting(MeetingId=meeting_id)["Meeting"]["MediaPlacement"]
                             ["AudioHostUrl"]] == new_host
        for name in TONES:
            assert all(heard_windows(recordings[name], name, since=steady_from[name])), name
        assert nodes(servers["node-a"].endpoint)["node-b"]["Attendees"] == 0

        # Nothing acknowledged before the kill is lost.
        third = make_client(servers[next(n for n in NODES if n not in ("node-a", new_host))].endpoint)
        for created in meetings:
            assert third.get_meeting(MeetingId=created["MeetingId"])["Meeting"]["MeetingId"] == created["MeetingId"]
            stored = sorted(a["AttendeeId"] for a in third.list_attendees(MeetingId=created["MeetingId"])["Attendees"])
            expected = attendees[created["MeetingId"]]
            assert set(expected) <= set(stored), (expected, stored)

        # DeleteMeeting through a third node ends the meeting for the bots at once.
        deleted = time.monotonic()
        third.delete_meeting(MeetingId=meeting_id)
        for process in bots:
            process.wait(timeout=10)
        print(f"bots gone {time.monotonic() - deleted:.1f} s after DeleteMeeting on a third node")
        assert time.monotonic() - deleted < 5
        wait_for("the recording stopped with its meeting", lambda: pipelines_client(servers["node-a"].endpoint)
                 .get_media_capture_pipeline(MediaPipelineId=pipeline["MediaPipelineId"])
                 ["MediaCapturePipeline"]["Status"] == "Stopped")
        for process in bots:
            # A meeting deleted under a joined attendee stops it with Chime's status for that.
            stops = [json.loads(line) for line in process.lines if '"event":"stopped"' in line]
            assert [stop["status"] for stop in stops] == ["audioServerHungup"], "".join(process.lines[-20:])

        # Its webhook events: once each, whichever node saw them, from MeetingStarted to MeetingEnded.
        def of_meeting():
            return [event for event in list(events) if event.get("meetingId") == meeting_id]
        wait_for("MeetingEnded delivered", lambda: any(e["eventType"] == "chime:MeetingEnded" for e in of_meeting()))
        seen = of_meeting()
        types = [event["eventType"] for event in seen]
        assert types[0] == "chime:MeetingStarted" and types[-1] == "chime:MeetingEnded", types
        assert len({json.dumps(event, sort_keys=True) for event in seen}) == len(seen), types
        assert types.count("chime:AttendeeAdded") == 4, types
        joined = {event["externalUserId"] for event in seen if event["eventType"] == "chime:AttendeeJoined"}
        assert joined == set(TONES), types


def test_a_draining_node_sends_its_attendees_to_another_node(postgresql):
    """SIGTERM drains a node: it takes no new meetings, tells its attendees to reconnect once the others can see it
    drains, and their reconnects (through another node) move the meeting to a serving node."""
    with cluster(postgresql, "carillon-cluster-drain-") as (root, servers, bots, _):
        front = make_client(servers["node-a"].endpoint)
        node_of_media = {server.media: name for name, server in servers.items()}
        meetings = [front.create_meeting(ClientRequestToken=f"drain-{index}", MediaRegion="us-east-1",
                                         ExternalMeetingId=f"drain-{index}")["Meeting"]
                    for index in range(3)]
        meeting = next(m for m in meetings if node_of_media[m["MediaPlacement"]["AudioHostUrl"]] != "node-a")
        host = node_of_media[meeting["MediaPlacement"]["AudioHostUrl"]]
        recordings = {name: os.path.join(root, f"{name}.wav") for name in TONES}
        bots.extend(bot(servers["node-a"].endpoint, meeting["MeetingId"], name, recordings[name]) for name in TONES)
        wait_until_both_hear(recordings)
        drained_at = {name: length(recordings[name]) for name in TONES}
        drained = time.monotonic()
        stop_server(servers[host])
        assert servers[host].process.returncode == 0
        wait_until_both_hear(recordings, since=drained_at, timeout=20)
        print(f"attendees back on another node {time.monotonic() - drained:.1f} s after SIGTERM")
        moved = node_of_media[front.get_meeting(MeetingId=meeting["MeetingId"])["Meeting"]["MediaPlacement"]
                              ["AudioHostUrl"]]
        assert moved not in (host,), moved
        assert nodes(servers["node-a"].endpoint)[host]["State"] == "draining"


# The README's three-node recipe, with the test's paths and ports filled in.
NGINX_CLUSTER_CONF = NGINX_PREAMBLE + """
    upstream carillon {{ {servers} }}
    map $http_upgrade $connection_upgrade {{ default upgrade; '' close; }}
    server {{
        listen 127.0.0.1:{proxy_port} ssl;
        ssl_certificate     {root}/leaf.pem;
        ssl_certificate_key {root}/leaf.key;
        location / {{
            proxy_pass http://carillon;
            proxy_http_version 1.1;
            proxy_set_header Host $http_host;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_read_timeout 1h;
            proxy_send_timeout 1h;
            proxy_next_upstream error timeout;
        }}
    }}
}}
"""


@pytest.mark.skipif(not os.path.exists(NGINX), reason="nginx is not installed (make apt-deps installs nginx-light)")
def test_three_nodes_behind_nginx_as_the_readme_runs_them(postgresql):
    """The README's recipe: nginx terminates TLS and spreads API calls and sockets over three nodes
    (`--public-endpoint` its URL); bots that join through it hear each other, and again after `kill -9` of the node
    that hosts their meeting, nginx passing their reconnects to a live node."""
    proxy_port = free_port()
    endpoint = f"https://127.0.0.1:{proxy_port}"
    with cluster(postgresql, "carillon-cluster-nginx-", public_endpoint=endpoint) as (root, servers, bots, _):
        make_certificates(root)
        ca_file = os.path.join(root, "ca.pem")
        upstreams = " ".join(f"server {server.endpoint.split('://', 1)[1]};" for server in servers.values())
        with open(os.path.join(root, "nginx.conf"), "w") as handle:
            handle.write(NGINX_CLUSTER_CONF.format(root=root, proxy_port=proxy_port, servers=upstreams))
        nginx = subprocess.Popen([NGINX, "-p", root, "-c", os.path.join(root, "nginx.conf")],
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            wait_for_port(proxy_port, nginx, time.monotonic() + 15)
            chime = make_client(endpoint, verify=ca_file)
            node_of_media = {server.media: name for name, server in servers.items()}
            meeting = chime.create_meeting(ClientRequestToken="nginx-cluster", MediaRegion="us-east-1",
                                           ExternalMeetingId="nginx-cluster")["Meeting"]
            assert meeting["MediaPlacement"]["SignalingUrl"] == f"wss://127.0.0.1:{proxy_port}/control/{meeting['MeetingId']}"
            host = node_of_media[meeting["MediaPlacement"]["AudioHostUrl"]]
            recordings = {name: os.path.join(root, f"{name}.wav") for name in TONES}
            bots.extend(bot(endpoint, meeting["MeetingId"], name, recordings[name], ca_file=ca_file) for name in TONES)
            wait_until_both_hear(recordings)
            killed_at = {name: length(recordings[name]) for name in TONES}
            servers[host].process.kill()
            servers[host].process.wait(timeout=10)
            wait_until_both_hear(recordings, since=killed_at, timeout=30)
            moved = node_of_media[chime.get_meeting(MeetingId=meeting["MeetingId"])["Meeting"]["MediaPlacement"]
                                  ["AudioHostUrl"]]
            assert moved != host
        finally:
            nginx.terminate()
            nginx.wait(timeout=15)

