"""`carillon join --video-out` loses nothing when tiles come and go: three bots record (two, then a third) while a fourth joins and leaves
twice; each recorder writes the fourth's two tiles to `dave.y4m` and `dave-2.y4m` (nothing overwritten), for
every attendee the frames across its files add up to the frames its tiles got, as the bot prints at the end, and the
cameras that stay keep one tile each while the meeting goes 2 -> 3 (their senders change simulcast layers) and
3 -> 4 -> 3 twice."""
import os
import re
import subprocess
import tempfile
import threading
import time

from conftest import ACCESS_KEY_ID, SECRET_ACCESS_KEY
from test_video_bots import read_y4m, recording_order


def start_bot(binary, server, meeting, name, color, out, seconds, env):
    command = [binary, "join", "--endpoint", server.endpoint, "--meeting", meeting, "--name", name,
               "--video-in", f"pattern:{color}", "--video-size", "320x180", "--duration", str(seconds)]
    if out:
        command += ["--video-out", out]
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, env=env)
    lines = []
    threading.Thread(target=lambda: lines.extend(process.stdout), daemon=True).start()
    return process, lines


def test_a_fourth_attendee_joining_and_leaving_twice_loses_no_frames(chime, server):
    meeting = chime.create_meeting(ClientRequestToken="video-out-rejoin", MediaRegion="us-east-1",
                                   ExternalMeetingId="video-out-rejoin")["Meeting"]["MeetingId"]
    binary = os.environ.get("CARILLON_BIN", ".build/debug/carillon")
    env = dict(os.environ, CARILLON_ACCESS_KEY_ID=ACCESS_KEY_ID, CARILLON_SECRET_ACCESS_KEY=SECRET_ACCESS_KEY)
    with tempfile.TemporaryDirectory(prefix="carillon-video-out-") as root:
        recorders = []
        # Red and green alone first (two participants: one unscaled layer each), then blue (three: low + hi).
        for name, color, seconds in [("red", "red", 21), ("green", "green", 21), ("blue", "blue", 18)]:
            if name == "blue":
                time.sleep(3)
            out = os.path.join(root, name)
            os.mkdir(out)
            recorders.append((name, out) + start_bot(binary, server, meeting, name, color, out, seconds, env))
        for _ in range(2):
            time.sleep(3)
            dave, dave_lines = start_bot(binary, server, meeting, "dave", "yellow", None, 4, env)
            assert dave.wait(timeout=30) == 0, "".join(dave_lines)
        for name, out, process, lines in recorders:
            assert process.wait(timeout=60) == 0, "".join(lines)
        for name, out, process, lines in recorders:
            output = "".join(lines)
            # The end-of-run totals: "video from NAME: N frames, last WxH".
            totals = {m.group(1): int(m.group(2)) for m in re.finditer(r"^video from (\S+): (\d+) frames", output, re.M)}
            files = sorted(os.listdir(out), key=recording_order)
            written = {}
            for file in files:
                written.setdefault(recording_order(file)[0], []).append(len(read_y4m(os.path.join(out, file))[2]))
            assert set(totals) == {"dave"} | {other for other, _, _, _ in recorders if other != name}, output
            assert written.keys() == totals.keys(), (files, output)
            for attendee, frames in written.items():
                assert sum(frames) == totals[attendee], (name, attendee, frames, totals[attendee])
            # The other two recorders' cameras: added once, one tile id, never removed while the bots ran.
            for other, _, _, _ in recorders:
                if other == name:
                    continue
                events = re.findall(rf"^video (added|removed): {other} \d+x\d+ \(tile (\d+)\)", output, re.M)
                added = [tile for event, tile in events if event == "added"]
                assert len(added) == 1 and {tile for _, tile in events} == set(added), (name, other, events)
                assert [event for event, _ in events][:1] == ["added"] and events.count(("removed", added[0])) <= 1, \
                    (name, other, events)
            # Dave's two visits: two tiles, two files at least, each with frames.
            assert len(written["dave"]) >= 2 and all(count > 0 for count in written["dave"]), (name, files)
            assert totals["dave"] >= 60, (name, written["dave"])
