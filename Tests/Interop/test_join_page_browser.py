"""The join page in a real browser (join_page_meeting.py, in a new network namespace with only loopback): headless
Chromium with a fake camera and an 880 Hz microphone opens the invite link `carillon meeting invite` printed, joins
as Ada, and meets two `carillon join` bots and, later, Ben on a second page. Asserted: each side decodes the others'
cameras and hears the other side's sound, chat goes both ways and is replayed to Ben, Ada's screen share (its first
socket dropped, so the page starts it again) reaches Ben and a bot as a content tile and comes back by itself when its
live socket drops (and stops for good when a second share of hers replaces it), her mute reaches the bots, and her
leaving reaches Ben. With CARILLON_SCREENSHOTS set to a directory, the pre-join form and the four-person meeting
are saved there (docs/ has them)."""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def test_guests_join_from_the_invite_link_and_meet_the_bots_and_each_other():
    env = dict(os.environ, PYTHONPATH=HERE)
    arguments = [sys.executable, os.path.join(HERE, "join_page_meeting.py")]
    if os.environ.get("CARILLON_SCREENSHOTS"):
        arguments.append(os.path.abspath(os.environ["CARILLON_SCREENSHOTS"]))
    completed = subprocess.run(["unshare", "--net", "--", *arguments], capture_output=True, text=True, timeout=420,
                               env=env)
    assert completed.returncode == 0, completed.stderr[-4000:]
    outcome = json.loads(completed.stdout.strip().splitlines()[-1])
    summary = {key: outcome.get(key) for key in ("pageBytes", "adaJoinSeconds", "benJoinSeconds", "adaTimings",
                                                 "benTimings", "aliceHeard", "botExits", "error")}
    print(json.dumps(summary, sort_keys=True))
    assert "error" not in outcome, json.dumps(outcome, indent=1)[-12000:]

    # Ada hears the bots' mix (bob-bot's tone) and decodes both bots' cameras at their size.
    seen = outcome["adaSees"]
    assert seen["state"] == "connected" and seen["audioIn"]["totalAudioEnergy"] > 0.01, seen
    for name in ("alice-bot", "bob-bot"):
        tile = next(t for t in seen["tiles"] if t["name"] == name)
        assert tile["framesDecoded"] > 30 and tile["width"] > 0 and not tile["content"], tile
    # Her camera went out in simulcast layers, and both bots decode it.
    assert any(layer["framesEncoded"] > 30 for layer in seen["videoOut"]), seen["videoOut"]
    for name, stats in outcome["botsSeeAda"].items():
        assert stats["framesDecoded"] > 30 and stats["width"] > 0, (name, stats)
    # alice-bot heard the browsers' 880 Hz and bob-bot's 440 Hz: sound went both ways through the server's mix.
    heard = outcome["aliceHeard"]
    # (The bots are in the meeting from the start and the browsers only for part of it; silence measures under 0.001.)
    assert heard["880"] > 0.005 and heard["440"] > 0.05, heard

    # Chat both ways, with names, and the earlier message replayed to Ben when he joined.
    chat = outcome["adaChat"]
    assert any(m["text"] == "hello from a bot" and m["from"] == "alice-bot" and not m["self"] for m in chat), chat
    assert any(m["text"] == "hello from the browser" and m["self"] and m["delivered"] for m in chat), chat
    received = outcome["aliceChat"][0]
    assert received["topic"] == "chat" and received["from"].endswith("#Ada"), received
    ben = outcome["benSees"]
    assert any(m["text"] == "hello from the browser" and m["from"] == "Ada" for m in ben["chat"]), ben["chat"]

    # Four people: Ada sees Ben's camera; Ben, two to a page, decodes the two on his page and nothing of the third
    # (not subscribed), then the third on his second page.
    assert {r["name"] for r in outcome["adaSeesBen"]["roster"]} == {"Ada", "Ben", "alice-bot", "bob-bot"}
    remote = [t for t in ben["tiles"] if not t["local"] and not t["content"]]
    assert {t["name"] for t in remote} == {"Ada", "alice-bot", "bob-bot"}, remote
    off_page = [t for t in remote if not t["onPage"]]
    assert len(off_page) == 1 and off_page[0]["framesDecoded"] == 0, remote
    second = [t for t in outcome["benSecondPage"] if not t["local"] and not t["content"] and t["onPage"]]
    assert [t["name"] for t in second] == [off_page[0]["name"]] and second[0]["framesDecoded"] > 15, second
    # A dropped connection comes back by itself, once for the one drop (a loaded machine may have caused one before).
    back = outcome["benReconnected"]
    assert back["reconnects"] == outcome["benReconnectsBeforeDrop"] + 1 and back["state"] == "connected", back
    # The join's steps, in ms from pressing Join, in order.
    steps = ["attendeeCreated", "signalingOpen", "joinAck", "index", "subscribeAck", "mediaConnected", "videoSubscribeAck",
             "firstRemoteFrame"]
    timings = outcome["adaTimings"]
    assert [timings[step] for step in steps] == sorted(timings[step] for step in steps), timings

    # Ada's screen share, started again by the page after its first socket dropped: a content tile for Ben, a
    # `#content` tile for the bot.
    assert len(outcome["adaShareRetried"]) == 1, outcome["adaShareRetried"]
    share = outcome["benSeesShare"]
    assert len(share) == 1 and share[0]["framesDecoded"] > 5 and share[0]["width"] > 0, share
    assert outcome["aliceSeesShare"]["attendee"].endswith("#Ada#content"), outcome["aliceSeesShare"]
    # Its live connection dropped: the page connected it again once, and alice-bot decodes it again.
    assert len(outcome["adaShareLost"]) == 1, outcome["adaShareLost"]
    assert outcome["aliceSeesShareAgain"]["attendee"].endswith("#Ada#content"), outcome["aliceSeesShareAgain"]
    # Replaced by a second share of hers, it stopped with the server's reason and did not connect again.
    assert len(outcome["adaShareReplaced"]) == 1 and "another device" in outcome["adaShareReplaced"][0], outcome
    assert len(outcome["adaShareLostAfterReplace"]) == 1, outcome["adaShareLostAfterReplace"]

    # Mute and leave reach the others.
    assert outcome["aliceSeesMute"], "alice-bot never saw Ada muted"
    assert outcome["benAfterAdaLeft"] == ["Ben", "alice-bot", "bob-bot"], outcome["benAfterAdaLeft"]
    assert outcome["botExits"] == [0, 0] or all(code in (0, -15) for code in outcome["botExits"]), outcome["botExits"]


def test_the_page_says_when_the_camera_and_microphone_are_refused_or_missing():
    """join_page_devices.py: every media prompt refused, then a browser without devices; the form says which and
    why, and Join can still be pressed."""
    env = dict(os.environ, PYTHONPATH=HERE)
    completed = subprocess.run(["unshare", "--net", "--", sys.executable, os.path.join(HERE, "join_page_devices.py")],
                               capture_output=True, text=True, timeout=180, env=env)
    assert completed.returncode == 0, completed.stderr[-4000:]
    outcome = json.loads(completed.stdout.strip().splitlines()[-1])
    assert "error" not in outcome, outcome
    for case, reason in (("refused", "Access to the {} was refused. You can still join"),
                         ("missing", "No {} was found. You can still join without one.")):
        shown = outcome[case]
        assert shown["joinEnabled"] and shown["name"] == "Ada", shown
        for device in ("microphone", "camera"):
            assert any(notice.startswith(reason.format(device)) for notice in shown["notices"]), (case, shown)
