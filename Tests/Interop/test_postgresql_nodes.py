"""`carillon serve` nodes on one PostgreSQL (`--database`), the first steps of a cluster: each node answers the
control API from the shared database (what one node created, the other reads, repeats idempotently and deletes), a
join token one node issued opens a signaling session on the other (the join-token secret is shared), and every node
heartbeats, so `carillon nodes` shows each as serving, draining or dead. The PostgreSQL server is the tests' own
(scripts/test-postgresql.sh: Debian's, on a Unix socket in a private directory)."""
import asyncio
import glob
import json
import os
import subprocess
import tempfile

import pytest
import requests
from aiortc.mediastreams import AudioStreamTrack
from botocore.exceptions import ClientError

from chime_attendee import ChimeAttendee
from conftest import make_client, nodes, start_server, stop_server, wait_for


def test_two_nodes_share_meetings_attendees_and_join_tokens(postgresql):
    directory, database = postgresql
    url = f"postgresql://postgres@localhost/{database}?host={directory}&sslmode=disable"
    with tempfile.TemporaryDirectory(prefix="carillon-node-a-") as data_a, \
            tempfile.TemporaryDirectory(prefix="carillon-node-b-") as data_b:
        node_a = start_server(data_a, extra=["--database", url])
        node_b = start_server(data_b, extra=["--database", url])
        try:
            a, b = make_client(node_a.endpoint), make_client(node_b.endpoint)
            meeting = a.create_meeting(ClientRequestToken="shared-1", MediaRegion="us-east-1",
                                       ExternalMeetingId="shared")["Meeting"]
            meeting_id = meeting["MeetingId"]
            # The other node reads it, and a repeat of the request there is the same meeting.
            assert b.get_meeting(MeetingId=meeting_id)["Meeting"]["ExternalMeetingId"] == "shared"
            again = b.create_meeting(ClientRequestToken="shared-1", MediaRegion="us-east-1", ExternalMeetingId="shared")
            assert again["Meeting"]["MeetingId"] == meeting_id
            alice = b.create_attendee(MeetingId=meeting_id, ExternalUserId="alice")["Attendee"]
            assert a.create_attendee(MeetingId=meeting_id, ExternalUserId="alice")["Attendee"]["AttendeeId"] == \
                alice["AttendeeId"]
            listed = a.list_attendees(MeetingId=meeting_id)["Attendees"]
            assert [attendee["ExternalUserId"] for attendee in listed] == ["alice"]

            # A token node B issued opens a session on node A.
            signaling = f"ws://{node_a.endpoint.split('://', 1)[1]}/control/{meeting_id}"
            client = ChimeAttendee(signaling, alice["JoinToken"], alice["AttendeeId"], AudioStreamTrack())

            async def join_and_leave():
                await client.join()
                await client.leave()
            asyncio.run(join_and_leave())

            # Deleted through one node, gone on the other.
            b.delete_meeting(MeetingId=meeting_id)
            with pytest.raises(ClientError) as missing:
                a.get_meeting(MeetingId=meeting_id)
            assert missing.value.response["Error"]["Code"] == "NotFoundException"
        finally:
            stop_server(node_a)
            stop_server(node_b)
        assert node_a.process.returncode == 0 and node_b.process.returncode == 0
        assert any("database postgresql://postgres@/carillon" in line for line in node_a.output + node_b.output)


def test_an_unreachable_database_is_a_clear_error_at_start():
    with tempfile.TemporaryDirectory(prefix="carillon-node-") as data:
        binary = os.environ.get("CARILLON_BIN", ".build/debug/carillon")
        result = subprocess.run(
            [binary, "serve", "--data-dir", data, "--port", "0", "--media-port", "0", "--metrics-port", "-1",
             "--database", "postgresql://nobody@localhost/none?host=/nonexistent&sslmode=disable"],
            capture_output=True, text=True, timeout=90)
        assert result.returncode != 0
        assert "cannot be used" in result.stdout + result.stderr, result.stdout + result.stderr


def test_carillon_nodes_shows_serving_draining_and_dead_nodes(postgresql):
    directory, database = postgresql
    url = f"postgresql://postgres@localhost/{database}?host={directory}&sslmode=disable"
    with tempfile.TemporaryDirectory(prefix="carillon-nodes-") as root:
        started = {name: start_server(os.path.join(root, name), extra=["--database", url, "--node-id", name])
                   for name in ("node-a", "node-b", "node-c")}
        try:
            listed = wait_for("three serving nodes", lambda: (lambda n: n if len(n) == 3 and all(
                node["State"] == "serving" for node in n.values()) else None)(nodes(started["node-a"].endpoint)))
            assert listed["node-b"]["Url"] == started["node-b"].endpoint
            assert listed["node-b"]["MediaAddress"] == started["node-b"].media
            # A node asked to stop says it drains; a killed one is dead once its heartbeats have been missing 5 s.
            stop_server(started["node-c"])
            assert started["node-c"].process.returncode == 0
            assert nodes(started["node-a"].endpoint)["node-c"]["State"] == "draining"
            started["node-b"].process.kill()
            started["node-b"].process.wait(timeout=10)
            wait_for("node-b dead", lambda: nodes(started["node-a"].endpoint)["node-b"]["State"] == "dead")
            assert nodes(started["node-a"].endpoint)["node-a"]["State"] == "serving"
        finally:
            for server in started.values():
                if server.process.poll() is None:
                    stop_server(server)


def test_a_single_node_lists_itself(server):
    listed = nodes(server.endpoint)
    assert len(listed) == 1
    (node,) = listed.values()
    assert node["State"] == "serving" and node["Url"] == server.endpoint and node["MediaAddress"] == server.media


def pg_ctl(directory, *arguments):
    """Runs Debian's pg_ctl on the tests' PostgreSQL (as the postgres user: the server refuses root)."""
    binary = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))[-1]
    command = [binary, "-D", os.path.join(directory, "data"), *arguments]
    if os.geteuid() == 0:
        command = ["runuser", "-u", "postgres", "--", *command]
    subprocess.run(command, check=True, capture_output=True, timeout=60)


def test_a_node_is_not_ready_while_its_database_is_away_and_labels_its_metrics(postgresql):
    """/health/ready follows the database (503 while it is stopped, 200 once it is back), every metric sample names
    the node."""
    directory, database = postgresql
    url = f"postgresql://postgres@localhost/{database}?host={directory}&sslmode=disable"
    with tempfile.TemporaryDirectory(prefix="carillon-node-ready-") as data:
        node = start_server(data, extra=["--database", url, "--node-id", "node-r"])
        try:
            ready = node.metrics + "/health/ready"
            assert requests.get(ready, timeout=10).status_code == 200
            # Every sample of a cluster's node carries its id.
            metrics = requests.get(node.metrics + "/metrics", timeout=10).text
            samples = [line for line in metrics.splitlines() if line and not line.startswith("#")]
            assert samples and all('node="node-r"' in line for line in samples), samples[:5]
            # A clean stop: the tests' server does not wait for its commits to reach the disk (synchronous_commit
            # off), so an immediate one could lose the node's schema.
            pg_ctl(directory, "-m", "fast", "stop")
            wait_for("not ready without the database", lambda: requests.get(ready, timeout=10).status_code == 503)
            assert requests.get(node.metrics + "/health", timeout=10).status_code == 200
            pg_ctl(directory, "-l", os.path.join(directory, "server.log"), "-w", "-o",
                   f"-k {directory} -c listen_addresses= -c fsync=off -c synchronous_commit=off", "start")
            wait_for("ready again once the database is back", lambda: requests.get(ready, timeout=10).status_code == 200,
                     timeout=30)
        finally:
            stop_server(node)
        assert node.process.returncode == 0


def test_nodes_without_keys_in_the_environment_share_the_keys_the_first_one_stored(postgresql):
    """Without CARILLON_ACCESS_KEY_ID/SECRET, the first node keeps its generated key in the database and the others
    take it (writing it into their data directory for the CLI), so any node accepts what any other does."""
    directory, database = postgresql
    url = f"postgresql://postgres@localhost/{database}?host={directory}&sslmode=disable"
    with tempfile.TemporaryDirectory(prefix="carillon-node-keys-") as root:
        first = start_server(os.path.join(root, "a"), extra=["--database", url], keys_from_environment=False)
        second = start_server(os.path.join(root, "b"), extra=["--database", url], keys_from_environment=False)
        try:
            keys = [json.load(open(os.path.join(root, name, "access-keys.json"))) for name in ("a", "b")]
            assert keys[0] == keys[1] and len(keys[0]) == 1, keys
            assert any("the cluster's" in line and "kept in the database" in line for line in second.output)
            key = keys[0][0]
            for node in (first, second):
                client = make_client(node.endpoint, key_id=key["AccessKeyId"], secret=key["SecretAccessKey"])
                meeting = client.create_meeting(ClientRequestToken=f"keys-{node.endpoint[-5:]}", MediaRegion="us-east-1",
                                                ExternalMeetingId="keys")["Meeting"]
                assert meeting["MeetingId"]
        finally:
            stop_server(first)
            stop_server(second)

