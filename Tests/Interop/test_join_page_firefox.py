"""The join page in Firefox ESR (firefox_meeting.py, in a new network namespace of its own: loopback plus a veth pair
whose both ends stay inside, because Firefox gathers no ICE candidate without a default route and pairs none with a
loopback address). Headless Firefox, driven over WebDriver BiDi with its fake camera and microphone (a 1 kHz tone),
joins through the invite link and meets a `carillon join` bot: each decodes the other's camera, each hears the other,
and chat goes both ways."""
import json
import os
import subprocess
import sys


HERE = os.path.dirname(os.path.abspath(__file__))


# Part of `make test` again. Earlier sessions saw one join in ten to one in five where Firefox decoded none of the
# bot's video (its camera m-line, the only video m-line able to receive before the answer adding the bot's was applied,
# had learned the bot's SSRC by payload type), and kept the test opt-in. On 2026-11-30 it passed 16 of 16 runs on an
# idle machine before the server wrote the MID extension on forwarded packets, and 43 of 44 idle and 12 of 13 under a
# busy loop after (the one failure whose output was kept decoded no video on any m-line, camera m-line included). On
# failure it prints the page's snapshot, Firefox's video inbound-rtp statistics and the directions and SSRCs of both
# descriptions.
def test_firefox_joins_from_the_invite_link_and_meets_a_bot():
    env = dict(os.environ, PYTHONPATH=HERE)
    completed = subprocess.run(["unshare", "--net", "--", sys.executable, os.path.join(HERE, "firefox_meeting.py")],
                               capture_output=True, text=True, timeout=300, env=env)
    assert completed.returncode == 0, completed.stderr[-4000:]
    outcome = json.loads(completed.stdout.strip().splitlines()[-1])
    print(json.dumps({key: outcome.get(key) for key in ("devices", "botHeard", "botSeesFiona", "error", "lastSnapshot",
                                                         "inboundVideo")}))
    assert "error" not in outcome, json.dumps(outcome, indent=1)[-10000:]
    seen = outcome["fionaSees"]
    bot_tile = next(t for t in seen["tiles"] if t["name"] == "bot")
    assert bot_tile["framesDecoded"] > 30 and bot_tile["width"] > 0, bot_tile
    assert seen["audioIn"]["totalAudioEnergy"] > 0.01, seen["audioIn"]
    assert any(layer["framesEncoded"] > 30 for layer in seen["videoOut"]), seen["videoOut"]
    assert outcome["botSeesFiona"]["framesDecoded"] > 30 and outcome["botSeesFiona"]["width"] > 0, outcome["botSeesFiona"]
    # The bot hears the mix without itself: Firefox's fake microphone, a 1 kHz tone.
    assert 950 <= outcome["botHeard"][0] <= 1050, outcome["botHeard"]
    assert any(m["text"] == "hello from a bot" and m["from"] == "bot" for m in outcome["fionaChat"]), outcome["fionaChat"]
    assert outcome["botChat"][0]["from"].endswith("#Fiona"), outcome["botChat"]
