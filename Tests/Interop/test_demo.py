"""`carillon demo` as `make demo` runs it: every step passes and the summary shows every camera at its full size.

The demo's attendees send 320x180 simulcast cameras; from three participants on their `low` layer is 80x44. A
receiver whose allocation or subscription stays on that layer (the late joiner's camera did, for every receiver)
shows a small size in the summary.
"""
import os
import re
import subprocess
import tempfile


def test_demo_shows_every_camera_at_full_size():
    binary = os.environ.get("CARILLON_BIN", ".build/debug/carillon")
    with tempfile.TemporaryDirectory() as recordings:
        result = subprocess.run([binary, "demo", "--pace", "0", "--recordings", recordings],
                                capture_output=True, text=True, timeout=180)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("video "))
    cells = {}
    for line in lines[start + 1:]:
        match = re.match(r"\s{4}(\w+)\s+(.*)$", line)
        if not match or match.group(1) not in ("alice", "bob", "carol", "dave"):
            break
        cells[match.group(1)] = [cell.strip() for cell in match.group(2).split(",")]
    assert sorted(cells) == ["alice", "bob", "carol", "dave"], output
    for receiver, received in cells.items():
        senders = [cell.split()[0] for cell in received]
        assert sorted(senders + [receiver]) == ["alice", "bob", "carol", "dave"], output
        for cell in received:
            assert cell.endswith("320x180"), f"{receiver} receives {cell}\n{output}"
