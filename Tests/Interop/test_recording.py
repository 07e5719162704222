"""Recording with Chime's media capture pipelines, driven by boto3's `chime-sdk-media-pipelines` client against a
real `carillon serve --recordings-dir`, with CLI bots in the meeting; every file written is read back with Debian's
ffprobe/ffmpeg (and PyAV for the pictures), the test oracle only."""
import json
import math
import os
import signal
import subprocess
import tempfile
import threading
import time

import av
import boto3
import pytest
from botocore.config import Config

import video_pattern
from conftest import ACCESS_KEY_ID, SECRET_ACCESS_KEY, make_client, start_server, stop_server

BINARY = os.environ.get("CARILLON_BIN", ".build/debug/carillon")
ARTIFACTS = {"Audio": {"MuxType": "AudioOnly"}, "Video": {"State": "Enabled", "MuxType": "VideoOnly"},
             "Content": {"State": "Enabled", "MuxType": "ContentOnly"}}
# The pattern's colours (VideoTestPattern.Color) in BT.601 studio range, as a receiver reads them.
COLOURS = {"red": video_pattern.studio_yuv((220, 40, 40)), "blue": video_pattern.studio_yuv((40, 80, 220))}


def pipelines_client(endpoint):
    return boto3.client("chime-sdk-media-pipelines", endpoint_url=endpoint, region_name="us-east-1",
                        aws_access_key_id=ACCESS_KEY_ID, aws_secret_access_key=SECRET_ACCESS_KEY,
                        config=Config(retries={"max_attempts": 0}))


def bot(endpoint, meeting_id, name, *extra, stdin=subprocess.DEVNULL):
    env = dict(os.environ, CARILLON_ACCESS_KEY_ID=ACCESS_KEY_ID, CARILLON_SECRET_ACCESS_KEY=SECRET_ACCESS_KEY)
    process = subprocess.Popen([BINARY, "join", "--endpoint", endpoint, "--meeting", meeting_id, "--name", name, *extra],
                               stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    process.lines = []
    threading.Thread(target=lambda: process.lines.extend(process.stdout), daemon=True).start()
    return process


def wait_for_status(pipelines, pipeline_id, wanted, timeout=15):
    deadline = time.monotonic() + timeout
    status = None
    while time.monotonic() < deadline:
        status = pipelines.get_media_capture_pipeline(MediaPipelineId=pipeline_id)["MediaCapturePipeline"]["Status"]
        if status == wanted:
            return
        time.sleep(0.1)
    raise AssertionError(f"pipeline {pipeline_id} is {status}, not {wanted}")


def probe(path):
    """(duration in seconds or None, codec, width, height, frames) by ffprobe."""
    output = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-show_entries",
                             "format=duration:stream=codec_name,width,height,nb_read_frames", "-of", "json", path],
                            check=True, capture_output=True, text=True).stdout
    data = json.loads(output)
    stream = data["streams"][0]
    duration = data["format"].get("duration")
    return (float(duration) if duration else None, stream["codec_name"], stream.get("width"), stream.get("height"),
            int(stream.get("nb_read_frames") or 0))


def decode_errors(path):
    return subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-f", "null", "-"], capture_output=True, text=True).stderr


def audio_samples(paths, rate=8000):
    """The files' audio, one after the other, as mono 16-bit samples at `rate`."""
    samples = []
    for path in paths:
        raw = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-f", "s16le", "-ac", "1", "-ar", str(rate), "-"],
                             check=True, capture_output=True).stdout
        samples.extend(int.from_bytes(raw[i:i + 2], "little", signed=True) for i in range(0, len(raw) - 1, 2))
    return samples


def power(samples, frequency, rate=8000):
    """Goertzel: the power of one frequency in a window."""
    coefficient = 2 * math.cos(2 * math.pi * frequency / rate)
    previous, before = 0.0, 0.0
    for sample in samples:
        previous, before = sample + coefficient * previous - before, previous
    return previous * previous + before * before - coefficient * previous * before


def nearest_colour(yuv):
    return min(COLOURS, key=lambda name: (COLOURS[name][1] - yuv[1]) ** 2 + (COLOURS[name][2] - yuv[2]) ** 2)


def pictures(path):
    """(counter, colour name) of every picture of a WebM file, decoded by PyAV."""
    with av.open(path) as container:
        return [(counter, nearest_colour(colour))
                for counter, colour in (video_pattern.read(frame) for frame in container.decode(video=0))]


def files(directory, folder):
    path = os.path.join(directory, folder)
    return sorted(os.path.join(path, name) for name in os.listdir(path)) if os.path.isdir(path) else []


def test_a_capture_pipeline_records_the_mix_each_camera_events_and_messages():
    with tempfile.TemporaryDirectory(prefix="carillon-recording-") as root:
        recordings = os.path.join(root, "recordings")
        server = start_server(os.path.join(root, "data"), extra=["--recordings-dir", recordings])
        try:
            chime = make_client(server.endpoint)
            pipelines = pipelines_client(server.endpoint)
            meeting = chime.create_meeting(ClientRequestToken="recorded", MediaRegion="us-east-1",
                                           ExternalMeetingId="recorded")["Meeting"]
            meeting_id = meeting["MeetingId"]
            alice = bot(server.endpoint, meeting_id, "alice", "--audio-in", "tone:440", "--video-in", "pattern:red",
                        "--video-size", "320x180", "--topic", "chat", "--duration", "30", stdin=subprocess.PIPE)
            bob = bot(server.endpoint, meeting_id, "bob", "--audio-in", "tone:1000", "--video-in", "pattern:blue",
                      "--video-size", "320x180", "--share", "slides:green", "--duration", "30")
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and not all(any("joined" in line for line in b.lines) for b in (alice, bob)):
                time.sleep(0.1)
            time.sleep(2)

            created = pipelines.create_media_capture_pipeline(
                SourceType="ChimeSdkMeeting", SourceArn=f"arn:aws:chime::000000000000:meeting:{meeting_id}",
                SinkType="S3Bucket", SinkArn="arn:aws:s3:::meetings/standups",
                ChimeSdkMeetingConfiguration={"ArtifactsConfiguration": ARTIFACTS})["MediaCapturePipeline"]
            started = time.monotonic()
            pipeline_id = created["MediaPipelineId"]
            assert created["Status"] == "Initializing"
            assert created["MediaPipelineArn"] == f"arn:aws:chime:us-east-1:000000000000:media-pipeline/{pipeline_id}"
            wait_for_status(pipelines, pipeline_id, "InProgress")
            with pytest.raises(pipelines.exceptions.ResourceLimitExceededException):
                pipelines.create_media_capture_pipeline(
                    SourceType="ChimeSdkMeeting", SourceArn=f"arn:aws:chime::000000000000:meeting:{meeting_id}",
                    SinkType="S3Bucket", SinkArn="arn:aws:s3:::meetings")

            time.sleep(2)
            alice.stdin.write("hello from alice\n")
            alice.stdin.flush()
            carol = bot(server.endpoint, meeting_id, "carol", "--duration", "2")
            assert carol.wait(timeout=30) == 0, "".join(carol.lines)
            time.sleep(max(0.0, 12 - (time.monotonic() - started)))
            pipelines.delete_media_capture_pipeline(MediaPipelineId=pipeline_id)
            recorded = time.monotonic() - started
            wait_for_status(pipelines, pipeline_id, "Stopped")
            listed = pipelines.list_media_capture_pipelines()["MediaCapturePipelines"]
            assert [p["MediaPipelineId"] for p in listed] == [pipeline_id]
            for process in (alice, bob):
                process.send_signal(signal.SIGINT)
                assert process.wait(timeout=30) == 0, "".join(process.lines)
        finally:
            stop_server(server)

        directory = os.path.join(recordings, "meetings", "standups", pipeline_id)
        assert sorted(os.listdir(directory)) == ["audio", "content", "data-channel", "meeting-events", "video"], \
            os.listdir(directory)

        # The mix: 5 s chunks adding up to the recorded time, both tones all through.
        audio = files(directory, "audio")
        probes = [probe(path) for path in audio]
        assert all(codec == "opus" for _, codec, _, _, _ in probes), probes
        assert all(abs(duration - 5) < 0.05 for duration, *_ in probes[:-1]), probes
        assert abs(sum(duration for duration, *_ in probes) - recorded) < 1, (probes, recorded)
        assert all(decode_errors(path) == "" for path in audio)
        samples = audio_samples(audio)
        windows = [samples[i:i + 4000] for i in range(0, len(samples) - 4000, 4000)]
        heard = [power(w, 440) > 20 * power(w, 700) and power(w, 1000) > 20 * power(w, 700) for w in windows]
        assert sum(heard) >= len(heard) - 1, heard

        # Each camera: its own files, its colour, 15 fps with no picture missing, as long as the recording.
        video = files(directory, "video")
        ids = {line.split("attendee=")[1].split()[0]: name for name in ("alice", "bob")
               for line in server.output if f"externalUserId={name}" in line and "attendee created" in line}
        for attendee_id, name in ids.items():
            mine = [path for path in video if os.path.basename(path).endswith(f"-{attendee_id}-{name}.webm")]
            assert len(mine) >= 2, (name, video)
            probes = [probe(path) for path in mine]
            assert all(p[1:4] == ("vp8", 320, 180) for p in probes), probes
            total = sum(duration for duration, *_ in probes)
            frames = sum(p[4] for p in probes)
            assert abs(total - recorded) < 1, (name, probes, recorded)
            seen = [picture for path in mine for picture in pictures(path)]
            assert all(colour == {"alice": "red", "bob": "blue"}[name] for _, colour in seen)
            counters = [counter for counter, _ in seen if counter is not None]
            gaps = [(a, b) for a, b in zip(counters, counters[1:]) if b != a + 1]
            assert len(counters) >= len(seen) - 2 and not gaps, (name, gaps, len(counters), len(seen))
            assert frames / total >= 14.8, (name, frames, total)

        # Bob's content share: its own folder, named by bob, 1280x720 slides at 5 fps, as long as the recording.
        content = files(directory, "content")
        bob_id = next(attendee_id for attendee_id, name in ids.items() if name == "bob")
        assert content and all(os.path.basename(path).endswith(f"-{bob_id}-bob.webm") for path in content), content
        probes = [probe(path) for path in content]
        assert all(p[1:4] == ("vp8", 1280, 720) for p in probes), probes
        total = sum(duration for duration, *_ in probes)
        assert abs(total - recorded) < 1 and sum(p[4] for p in probes) / total >= 4.5, (probes, recorded)
        assert all(decode_errors(path) == "" for path in content)

        # Carol came and went; alice's message went to the data channel.
        events = [json.loads(line) for path in files(directory, "meeting-events") for line in open(path)]
        carol_events = [e["EventType"] for e in events if e["EventParameters"].get("ExternalUserId") == "carol"]
        assert carol_events == ["AttendeeJoined", "AttendeeLeft"], events
        messages = [json.loads(line) for path in files(directory, "data-channel") for line in open(path)]
        assert [(m["Topic"], m["SenderExternalUserId"]) for m in messages] == [("chat", "alice")], messages
        assert [m["Data"] for m in messages] == ["aGVsbG8gZnJvbSBhbGljZQ=="]


def test_a_killed_server_leaves_playable_files_and_the_pipeline_resumes_across_restarts():
    with tempfile.TemporaryDirectory(prefix="carillon-recording-kill-") as root:
        data, recordings = os.path.join(root, "data"), os.path.join(root, "recordings")
        server = start_server(data, extra=["--recordings-dir", recordings])
        endpoint = server.endpoint
        chime = make_client(endpoint)
        meeting_id = chime.create_meeting(ClientRequestToken="killed", MediaRegion="us-east-1", ExternalMeetingId="killed")["Meeting"]["MeetingId"]
        speaker = bot(endpoint, meeting_id, "dave", "--audio-in", "tone:440", "--video-in", "pattern:red",
                      "--video-size", "320x180", "--duration", "60", "--reconnect-timeout", "60")
        try:
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and not any("joined" in line for line in speaker.lines):
                time.sleep(0.1)
            pipelines = pipelines_client(endpoint)
            pipeline_id = pipelines.create_media_capture_pipeline(
                SourceType="ChimeSdkMeeting", SourceArn=f"arn:aws:chime::000000000000:meeting:{meeting_id}",
                SinkType="S3Bucket", SinkArn="arn:aws:s3:::killed",
                ChimeSdkMeetingConfiguration={"ArtifactsConfiguration": ARTIFACTS})["MediaCapturePipeline"]["MediaPipelineId"]
            time.sleep(8)
            server.process.kill()
            server.process.wait(timeout=10)
            directory = os.path.join(recordings, "killed", pipeline_id)
            before = {folder: files(directory, folder) for folder in ("audio", "video")}
            # The first 5 s chunk was finished before the kill: it plays whole, with its duration. The chunk being
            # written had closed no cluster yet (they close with the chunk), so it left no file at all.
            for folder, paths in before.items():
                assert len(paths) == 1, (folder, paths)
                duration, _, _, _, frames = probe(paths[0])
                assert duration and abs(duration - 5) < 0.2 and frames > 0, (paths[0], duration, frames)
                assert decode_errors(paths[0]) == "", paths[0]

            # The same data and recordings directories and ports: the pipeline resumes into new files.
            port = endpoint.rsplit(":", 1)[1]
            media_port = server.media.rsplit(":", 1)[1]
            server = start_server(data, port=int(port), media_port=int(media_port),
                                  extra=["--recordings-dir", recordings])
            wait_for_status(pipelines, pipeline_id, "InProgress")
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and len(files(directory, "video")) <= len(before["video"]):
                time.sleep(0.2)
            time.sleep(6)
            # A graceful stop finishes every open file (each has its duration) and keeps the pipeline InProgress.
            stop_server(server)
            assert server.process.returncode == 0, "".join(server.output)
            after = {folder: files(directory, folder) for folder in ("audio", "video")}
            for folder in ("audio", "video"):
                resumed = [path for path in after[folder] if path not in before[folder]]
                assert len(resumed) >= 2, (folder, after[folder])
                for path in resumed:
                    duration, _, _, _, frames = probe(path)
                    assert duration and frames > 0 and decode_errors(path) == "", (path, duration, frames)
            server = start_server(data, port=int(port), media_port=int(media_port),
                                  extra=["--recordings-dir", recordings])
            wait_for_status(pipelines, pipeline_id, "InProgress")
            pipelines.delete_media_capture_pipeline(MediaPipelineId=pipeline_id)
            wait_for_status(pipelines, pipeline_id, "Stopped")
        finally:
            speaker.send_signal(signal.SIGINT)
            speaker.wait(timeout=30)
            stop_server(server)
