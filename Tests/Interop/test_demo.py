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


def test_the_browser_demo_prints_a_link_to_its_meeting_and_ends_on_ctrl_c():
    """`carillon demo --browser`: alice and bob in a meeting, an invite link to it (its page answers, and a guest
    posted to it becomes an attendee), and a clean end on SIGINT."""
    import signal
    import requests
    binary = os.environ.get("CARILLON_BIN", ".build/debug/carillon")
    demo = subprocess.Popen([binary, "demo", "--browser"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = []
    try:
        for line in demo.stdout:
            lines.append(line)
            if "/join/" in line:
                break
        link = lines[-1].strip()
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/join/[0-9a-f.-]+\?name=guest", link), "".join(lines)
        assert any("alice speaks" in line for line in lines) and any("bob speaks" in line for line in lines), lines
        assert requests.get(link, timeout=10).status_code == 200
        joined = requests.post(link.split("?")[0], json={"Name": "guest"}, timeout=10)
        assert joined.json()["JoinInfo"]["Attendee"]["ExternalUserId"].endswith("#guest"), joined.text
        demo.send_signal(signal.SIGINT)
        rest, _ = demo.communicate(timeout=60)
    finally:
        if demo.poll() is None:
            demo.kill()
    assert demo.returncode == 0, "".join(lines) + rest
    assert "meeting over" in rest, rest
