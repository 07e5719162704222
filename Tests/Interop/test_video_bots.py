"""Three `carillon join` bots send video in three colours through `carillon serve` on 127.0.0.1: each bot's
`--video-out` holds the other two bots' video and not its own, in their colours, with changing content, and the
bots' `--json` videoStats show at least 12 fps for the 15 fps patterns."""
import json
import os
import statistics
import subprocess
import tempfile
import threading

from conftest import ACCESS_KEY_ID, SECRET_ACCESS_KEY

# The pattern colours as VideoTestPattern.Color.yuv computes them (BT.601, studio range).
COLORS = {"red": (220, 40, 40), "green": (40, 200, 60), "blue": (40, 80, 220)}


def yuv(rgb):
    r, g, b = rgb
    return (16 + (65.481 * r + 128.553 * g + 24.966 * b) / 255,
            128 + (-37.797 * r - 74.203 * g + 112.0 * b) / 255,
            128 + (112.0 * r - 93.786 * g - 18.214 * b) / 255)


def read_y4m(path):
    """The frames of a 4:2:0 Y4M file as (width, height, [bytes of each frame])."""
    with open(path, "rb") as handle:
        data = handle.read()
    header, _, rest = data.partition(b"\n")
    fields = header.split()
    assert fields[0] == b"YUV4MPEG2", header
    width = int(next(f for f in fields if f.startswith(b"W"))[1:])
    height = int(next(f for f in fields if f.startswith(b"H"))[1:])
    size = width * height + 2 * ((width + 1) // 2) * ((height + 1) // 2)
    frames = []
    while rest:
        line, _, rest = rest.partition(b"\n")
        assert line.startswith(b"FRAME"), line[:20]
        frames.append(rest[:size])
        rest = rest[size:]
    return width, height, frames


def recording_order(name):
    """(bot, n) for `bot.y4m` (n = 1) and `bot-n.y4m`, the files `--video-out` writes for one tile, in order."""
    stem = name.rsplit(".", 1)[0]
    bot, _, piece = stem.partition("-")
    return bot, int(piece) if piece else 1


def nearest_color(frame, width, height):
    """The colour whose chroma is nearest the mean chroma of the pattern's colour area (the top band's right part,
    right of the counter cells)."""
    luma = width * height
    chroma_width, chroma_height = (width + 1) // 2, (height + 1) // 2
    chroma = chroma_width * chroma_height
    rows = range(int(0.03 * chroma_height), int(0.15 * chroma_height))
    columns = range(int(0.8 * chroma_width), int(0.95 * chroma_width))
    count = len(rows) * len(columns)
    u = sum(frame[luma + r * chroma_width + c] for r in rows for c in columns) / count
    v = sum(frame[luma + chroma + r * chroma_width + c] for r in rows for c in columns) / count
    return min(COLORS, key=lambda name: (yuv(COLORS[name])[1] - u) ** 2 + (yuv(COLORS[name])[2] - v) ** 2)


def test_three_bots_see_each_others_colours_and_not_their_own(chime, server):
    meeting = chime.create_meeting(ClientRequestToken="video-bots", MediaRegion="us-east-1",
                                   ExternalMeetingId="video-bots")["Meeting"]
    binary = os.environ.get("CARILLON_BIN", ".build/debug/carillon")
    env = dict(os.environ, CARILLON_ACCESS_KEY_ID=ACCESS_KEY_ID, CARILLON_SECRET_ACCESS_KEY=SECRET_ACCESS_KEY)
    with tempfile.TemporaryDirectory(prefix="carillon-video-") as root:
        bots = []
        for color in COLORS:
            out = os.path.join(root, color)
            os.mkdir(out)
            process = subprocess.Popen(
                [binary, "join", "--endpoint", server.endpoint, "--meeting", meeting["MeetingId"], "--name", color,
                 "--video-in", f"pattern:{color}", "--video-size", "320x180", "--video-out", out, "--json",
                 "--duration", "12"],
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
            lines = []
            threading.Thread(target=lambda p=process, l=lines: l.extend(p.stdout), daemon=True).start()
            bots.append((color, out, process, lines))
        for color, out, process, lines in bots:
            assert process.wait(timeout=60) == 0, "".join(lines)
        for color, out, process, lines in bots:
            output = "".join(lines)
            others = sorted(c for c in COLORS if c != color)
            # One file per other bot, and one more (`-2`, `-3`, ...) after each size change: simulcast may lower a
            # tile on a busy machine (the 80x44 low layer) and raise it again.
            files = sorted(os.listdir(out), key=recording_order)
            assert {recording_order(name)[0] for name in files} == set(others), (files, output)
            for other in others:
                pieces = [read_y4m(os.path.join(out, name)) for name in files if recording_order(name)[0] == other]
                assert pieces[0][:2] == (320, 180), (other, [piece[:2] for piece in pieces])
                full = [frame for width, height, frames in pieces if (width, height) == (320, 180) for frame in frames]
                assert len(full) >= 90, (other, [(piece[0], piece[1], len(piece[2])) for piece in pieces])
                # Every sampled frame, at every size, is in the sender's colour, and the picture moves.
                for width, height, frames in pieces:
                    samples = frames[10::20] if width >= 160 else []
                    assert all(nearest_color(frame, width, height) == other for frame in samples), (color, other, width)
                assert full[10] != full[20]
            events = [json.loads(line) for line in lines if line.startswith("{")]
            stats = [event for event in events if event["event"] == "videoStats"]
            for other in others:
                # The steady part: after the first two seconds, before the last one.
                rates = [s["fps"] for s in stats if s["attendee"] == other][2:-1]
                assert rates and statistics.median(rates) >= 12, (color, other, rates)
                sizes = [(s["width"], s["height"]) for s in stats if s["attendee"] == other and s["framesDecoded"] > 0]
                assert sizes and sizes.count((320, 180)) >= len(sizes) / 2, (color, other, sizes)
