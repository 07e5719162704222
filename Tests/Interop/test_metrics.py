"""`/metrics` of a real `carillon serve` while a `carillon join` bot is in a meeting, read with the Prometheus
project's own Python client: its text-format parser accepts the whole output, the expected families are there with
their types, and the media counters grow between two scrapes. `/health` and `/health/ready` answer 200."""
import os
import subprocess
import threading
import time

import requests
from prometheus_client.parser import text_string_to_metric_families

from conftest import ACCESS_KEY_ID, SECRET_ACCESS_KEY


def scrape(server):
    response = requests.get(server.metrics + "/metrics", timeout=10)
    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("text/plain; version=0.0.4")
    families = {family.name: family for family in text_string_to_metric_families(response.text)}
    samples = {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
               for family in families.values() for sample in family.samples}
    return families, samples


def test_metrics_parse_and_move_during_a_meeting(chime, server):
    assert server.metrics, "the server announced no operations endpoint"
    assert requests.get(server.metrics + "/health", timeout=10).status_code == 200
    assert requests.get(server.metrics + "/health/ready", timeout=10).status_code == 200

    meeting = chime.create_meeting(ClientRequestToken="metrics", MediaRegion="us-east-1",
                                   ExternalMeetingId="metrics")["Meeting"]
    binary = os.environ.get("CARILLON_BIN", ".build/debug/carillon")
    env = dict(os.environ, CARILLON_ACCESS_KEY_ID=ACCESS_KEY_ID, CARILLON_SECRET_ACCESS_KEY=SECRET_ACCESS_KEY)
    bot = subprocess.Popen(
        [binary, "join", "--endpoint", server.endpoint, "--meeting", meeting["MeetingId"], "--name", "metered",
         "--audio-in", "tone:440", "--json", "--duration", "6"],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    lines = []
    threading.Thread(target=lambda: lines.extend(bot.stdout), daemon=True).start()
    try:
        deadline = time.monotonic() + 30
        while not any('"event":"started"' in line for line in lines):
            assert time.monotonic() < deadline and bot.poll() is None, "".join(lines)
            time.sleep(0.05)
        families, first = scrape(server)
        # Types as declared: counters (the parser strips `_total` from the family name), gauges.
        assert families["carillon_media_datagrams"].type == "counter"
        assert families["carillon_control_api_requests"].type == "counter"
        assert families["carillon_signaling_sessions"].type == "gauge"
        assert first[("carillon_signaling_sessions", ())] >= 1
        assert first[("carillon_control_api_requests_total", (("operation", "CreateMeeting"), ("status", "200")))] >= 1
        for cause in ("kernel_receive_buffer", "unrouted", "connection"):
            assert ("carillon_media_datagrams_dropped_total", (("cause", cause),)) in first

        inbound = ("carillon_media_datagrams_total", (("direction", "in"),))
        ticks = ("carillon_mixer_ticks_total", ())
        second = first
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            _, second = scrape(server)
            if second[inbound] >= first[inbound] + 25 and second[ticks] >= first[ticks] + 10:
                break
            time.sleep(0.1)
        assert second[inbound] >= first[inbound] + 25, (first[inbound], second[inbound])
        assert second[ticks] >= first[ticks] + 10
        assert second[("carillon_media_bytes_total", (("direction", "out"),))] > 0
        assert bot.wait(timeout=30) == 0, "".join(lines)
    finally:
        if bot.poll() is None:
            bot.kill()
