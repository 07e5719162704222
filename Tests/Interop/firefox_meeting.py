"""Firefox ESR as a guest of a Carillon meeting through the join page, run inside a fresh network namespace whose only
interface is loopback (see test_join_page_firefox.py).

Usage: firefox_meeting.py. Starts `carillon serve`, creates a meeting and an invite, starts a `carillon join` bot
(a magenta pattern camera, a 440 Hz tone, recording what it hears, chat on), then drives headless Firefox (its fake
camera and microphone) through the page: Fiona joins, and both sides are checked for the other's picture and sound,
and chat both ways. Prints one JSON line with what each side saw.
"""
import json
import os
import shutil
import subprocess
import tempfile

import numpy

from bidi_firefox import Firefox
from conftest import ACCESS_KEY_ID, SECRET_ACCESS_KEY, make_client, start_server, stop_server
from join_page_meeting import chat_both_ways, last_video, run_bot, stop_bot, wait_until

SNAPSHOT = "window.carillonMeeting.snapshot()"


def dominant_frequencies(path, count=3):
    """The strongest frequencies (Hz, rounded to 10) of a WAV recording, strongest first."""
    import wave
    with wave.open(path) as recording:
        rate, channels = recording.getframerate(), recording.getnchannels()
        samples = numpy.frombuffer(recording.readframes(recording.getnframes()), dtype="<i2").astype(float)
    mono = samples.reshape(-1, channels).mean(axis=1)
    power = numpy.abs(numpy.fft.rfft(mono)) ** 2
    frequencies = numpy.fft.rfftfreq(len(mono), 1 / rate)
    found = []
    for index in numpy.argsort(power)[::-1]:
        frequency = int(round(frequencies[index] / 10) * 10)
        if frequency > 50 and all(abs(frequency - other) > 30 for other in found):
            found.append(frequency)
        if len(found) == count:
            break
    return found


def main():
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    # Firefox gathers no ICE candidate without a default route, none on loopback, and pairs none of its own with a
    # loopback one: give the namespace a veth pair (both ends here, so nothing leaves it) with a default route, and
    # have the server announce 10.200.0.1 (listening on every address of the namespace). The page itself is opened
    # on 127.0.0.1, a secure context, where the camera and microphone may be used.
    for command in (["ip", "link", "add", "veth0", "type", "veth", "peer", "name", "veth1"],
                    ["ip", "addr", "add", "10.200.0.1/24", "dev", "veth0"], ["ip", "link", "set", "veth0", "up"],
                    ["ip", "link", "set", "veth1", "up"], ["ip", "route", "add", "default", "via", "10.200.0.254"]):
        subprocess.run(command, check=True)
    binary = os.environ.get("CARILLON_BIN", ".build/debug/carillon")
    root = tempfile.mkdtemp(prefix="carillon-firefox-meeting-")
    data_dir = os.path.join(root, "data")
    os.mkdir(data_dir)
    server = start_server(data_dir, extra=["--host", "0.0.0.0", "--public-host", "10.200.0.1"])
    chime = make_client(server.endpoint)
    meeting_id = chime.create_meeting(ClientRequestToken="firefox", MediaRegion="us-east-1",
                                      ExternalMeetingId="firefox")["Meeting"]["MeetingId"]
    env = dict(os.environ, CARILLON_ACCESS_KEY_ID=ACCESS_KEY_ID, CARILLON_SECRET_ACCESS_KEY=SECRET_ACCESS_KEY)
    made = subprocess.run([binary, "meeting", "invite", "--endpoint", server.endpoint, meeting_id, "--name", "Fiona"],
                          capture_output=True, text=True, env=env, timeout=60, check=True)
    invite = made.stdout.strip().splitlines()[-1].replace("//10.200.0.1:", "//127.0.0.1:")
    bot = run_bot(binary, server.endpoint, meeting_id, "bot", root,
                  ["--video-in", "pattern:magenta", "--audio-in", "tone:440",
                   "--audio-out", os.path.join(root, "bot.wav")])
    result = {}
    browser = None
    try:
        browser = Firefox()
        fiona = browser.open(invite)
        fiona.wait_for("document.getElementById('name').value === 'Fiona' && !document.getElementById('join').disabled",
                       timeout=30, description="the pre-join form ready")
        result["devices"] = fiona.evaluate("[...document.querySelectorAll('#microphone option, #camera option')]"
                                           ".map(o => o.textContent)")
        fiona.click("#join")
        fiona.wait_for("window.carillonMeeting.state === 'connected'", timeout=60, description="Firefox connected")
        for what, condition in (("the bot's camera decoding in Firefox",
                                 "s.tiles.some(t => t.name === 'bot' && t.framesDecoded > 30)"),
                                ("the bot's sound arriving in Firefox",
                                 "s.audioIn.packetsReceived > 100 && s.audioIn.totalAudioEnergy > 0")):
            try:
                result["fionaSees"] = fiona.wait_for(f"{SNAPSHOT}.then(s => {condition} && s)", timeout=60,
                                                     description=what)
            except Exception:
                result["lastSnapshot"] = fiona.evaluate(SNAPSHOT)
                result["inboundVideo"] = fiona.evaluate("""window.carillonMeeting.meeting.conn.pc.getStats().then(r => {
                    const found = []; r.forEach(s => { if (s.type === 'inbound-rtp' && s.kind === 'video') found.push(s); });
                    return found; })""")
                raise
        result["botSeesFiona"] = wait_until("the bot decoding Fiona's camera", lambda:
            (last_video(bot[1], "#Fiona") or {}).get("framesDecoded", 0) > 30 and last_video(bot[1], "#Fiona"), 60)
        result["fionaChat"], result["botChat"] = chat_both_ways(fiona, bot, "hello from firefox", "hello from a bot")
        fiona.click("#leave")
        fiona.wait_for("window.carillonMeeting.state === 'left'", timeout=20)
    except Exception as error:
        result["error"] = f"{type(error).__name__}: {error}"[:6000]
        result["server"] = "".join(server.output[-30:])
        try:
            result["remoteSdp"] = [l for l in fiona.evaluate("window.carillonMeeting.meeting.conn.pc.remoteDescription.sdp").splitlines()
                                   if l.startswith(("m=", "a=mid", "a=ssrc", "a=send", "a=recv", "a=inactive"))]
            result["localSdp"] = [l for l in fiona.evaluate("window.carillonMeeting.meeting.conn.pc.localDescription.sdp").splitlines()
                                   if l.startswith(("m=", "a=mid", "a=send", "a=recv", "a=inactive"))]
        except Exception as e:
            result["sdpError"] = str(e)
    finally:
        if browser is not None:
            browser.close()
        stop_bot(bot)
        stop_server(server)
    # What the bot heard: only Firefox's fake microphone (the mix leaves the bot's own tone out).
    result["botHeard"] = dominant_frequencies(os.path.join(root, "bot.wav"))
    if "error" in result:
        result["botOutput"] = "".join(bot[1])[-3000:]
    shutil.rmtree(root, ignore_errors=True)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
