"""Two browser guests and two `carillon join` bots in one meeting, through the product's own invite link and join page;
run inside a fresh network namespace whose only interface is loopback (see test_join_page_browser.py), so no packet
leaves 127.0.0.0/8.

Usage: join_page_meeting.py [SCREENSHOT_DIR]. Starts `carillon serve`, creates a meeting, makes an invite with
`carillon meeting invite`, starts two bots (alice-bot: a magenta pattern camera, silent, records what it hears and
prints chat; bob-bot: a cyan pattern camera and a 440 Hz tone), then drives headless Chromium (fake camera and
microphone: an 880 Hz tone) through the page as a person would: Ada opens the link, joins, chats, shares her screen; Ben joins from a
second page later. Prints one JSON line with what each side saw; the test asserts on it. With SCREENSHOT_DIR, the
pre-join form and the four-person meeting are saved there as PNG files (what docs/ shows).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import wave

import numpy
import requests

from cdp_browser import Chromium
from conftest import ACCESS_KEY_ID, SECRET_ACCESS_KEY, make_client, start_server, stop_server

BOT_SECONDS = 150
BROWSER_TONE = 880
BOB_TONE = 440
SNAPSHOT = "window.carillonMeeting.snapshot()"


def run_bot(binary, endpoint, meeting_id, name, root, extra):
    out = os.path.join(root, name)
    os.mkdir(out)
    arguments = [binary, "join", "--endpoint", endpoint, "--meeting", meeting_id, "--name", name, "--json",
                 "--duration", str(BOT_SECONDS), "--video-out", out, "--topic", "chat", *extra]
    env = dict(os.environ, CARILLON_ACCESS_KEY_ID=ACCESS_KEY_ID, CARILLON_SECRET_ACCESS_KEY=SECRET_ACCESS_KEY)
    process = subprocess.Popen(arguments, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, env=env)
    lines = []
    threading.Thread(target=lambda: lines.extend(process.stdout), daemon=True).start()
    return process, lines


def events(lines, kind=None):
    found = []
    for line in list(lines):
        if line.startswith("{"):
            event = json.loads(line)
            if kind is None or event.get("event") == kind:
                found.append(event)
    return found


def wait_until(what, check, timeout):
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.2)


def last_video(lines, attendee_suffix):
    """The newest videoStats a bot printed for a remote attendee whose name ends with `attendee_suffix`."""
    stats = [e for e in events(lines, "videoStats") if e.get("attendee", "").endswith(attendee_suffix)]
    return stats[-1] if stats else None


def write_tone(path, hertz, seconds=10, rate=48000):
    """A mono 16-bit WAV of a sine tone: the browsers' microphone (Chromium loops the file)."""
    samples = (numpy.sin(2 * numpy.pi * hertz * numpy.arange(seconds * rate) / rate) * 8000).astype("<i2")
    with wave.open(path, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(samples.tobytes())


def tone_shares(path, tones):
    """The share of a WAV recording's energy within 20 Hz of each tone, by tone."""
    with wave.open(path) as recording:
        rate, channels = recording.getframerate(), recording.getnchannels()
        samples = numpy.frombuffer(recording.readframes(recording.getnframes()), dtype="<i2").astype(float)
    mono = samples.reshape(-1, channels).mean(axis=1)
    power = numpy.abs(numpy.fft.rfft(mono)) ** 2
    frequencies = numpy.fft.rfftfreq(len(mono), 1 / rate)
    total = power.sum() or 1.0
    return {str(tone): float(power[numpy.abs(frequencies - tone) <= 20].sum() / total) for tone in tones}


def chat_both_ways(page, bot, page_text, bot_text):
    """The page sends `page_text` from its chat box and the bot `bot_text` from its stdin; returns the page's chat once
    it shows the bot's message, and the bot's dataMessage events carrying the page's."""
    page.click("#chat-toggle")
    page.fill("#chat-input", page_text)
    page.click("#chat-send")
    bot[0].stdin.write(bot_text + "\n")
    bot[0].stdin.flush()
    chat = page.wait_for(SNAPSHOT + f".then(s => s.chat.some(c => c.text === {json.dumps(bot_text)}) && s.chat)",
                         timeout=20, description="the bot's chat message")
    received = wait_until("the bot receiving the page's chat message", lambda: [
        e for e in events(bot[1], "dataMessage") if page_text in json.dumps(e)], 20)
    return chat, received


def stop_bot(bot):
    """Ends a bot started by `run_bot` (SIGTERM, as a person's Ctrl-C; killed if it lingers)."""
    bot[0].stdin.close()
    bot[0].terminate()
    try:
        bot[0].wait(timeout=20)
    except subprocess.TimeoutExpired:
        bot[0].kill()


def join(page, name):
    """Fills in the pre-join form and joins; returns the seconds from the click to the first remote picture."""
    page.wait_for("document.getElementById('microphone').options.length > 0 && !document.getElementById('join').disabled",
                  timeout=20, description="devices listed")
    page.fill("#name", name)
    clicked = time.monotonic()
    page.click("#join")
    page.wait_for(SNAPSHOT + ".then(s => s.tiles.some(t => !t.local && t.framesDecoded > 0))", timeout=60,
                  description=f"{name}'s first remote picture", interval=0.05)
    return time.monotonic() - clicked


def main():
    screenshots = sys.argv[1] if len(sys.argv) > 1 else None
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    binary = os.environ.get("CARILLON_BIN", ".build/debug/carillon")
    root = tempfile.mkdtemp(prefix="carillon-join-page-")
    data_dir = os.path.join(root, "data")
    os.mkdir(data_dir)
    server = start_server(data_dir)
    chime = make_client(server.endpoint)
    meeting = chime.create_meeting(ClientRequestToken="join-page", MediaRegion="us-east-1",
                                   ExternalMeetingId="Design review")["Meeting"]
    meeting_id = meeting["MeetingId"]
    env = dict(os.environ, CARILLON_ACCESS_KEY_ID=ACCESS_KEY_ID, CARILLON_SECRET_ACCESS_KEY=SECRET_ACCESS_KEY)
    made = subprocess.run([binary, "meeting", "invite", "--endpoint", server.endpoint, meeting_id, "--name", "Ada"],
                          capture_output=True, text=True, env=env, timeout=60, check=True)
    invite = made.stdout.strip().splitlines()[-1]
    result = {"invite": invite}
    # The page's weight: what a browser fetches to show it (uncompressed; the server sends no compression).
    page_url = urllib.parse.urlparse(invite)._replace(query="").geturl()
    weights = {"join.html": len(requests.get(page_url, timeout=10).content)}
    for name in ("meeting.js", "signaling-codec.js", "meeting.css"):
        weights[name] = len(requests.get(urllib.parse.urljoin(page_url, "assets/" + name), timeout=10).content)
    result["pageBytes"] = weights
    alice = run_bot(binary, server.endpoint, meeting_id, "alice-bot", root,
                    ["--video-in", "pattern:magenta", "--audio-out", os.path.join(root, "alice-bot.wav")])
    bob = run_bot(binary, server.endpoint, meeting_id, "bob-bot", root, ["--video-in", "pattern:cyan", "--audio-in", f"tone:{BOB_TONE}"])
    browser = None
    microphone = os.path.join(root, "browser-microphone.wav")
    write_tone(microphone, BROWSER_TONE)
    try:
        browser = Chromium(extra_args=["--auto-select-desktop-capture-source=Entire screen",
                                       f"--use-file-for-fake-audio-capture={microphone}"])
        ada = browser.open(invite)
        ada.wait_for("document.getElementById('name').value === 'Ada'", timeout=20, description="the name from ?name=")
        if screenshots:
            ada.wait_for("document.getElementById('microphone').options.length > 0", timeout=20)
            time.sleep(1)  # the preview's first pictures
            ada.screenshot(os.path.join(screenshots, "join-page-prejoin.png"), 1280, 720)
        result["adaJoinSeconds"] = join(ada, "Ada")
        # Ada sees and hears the bots; the bots see Ada, and alice-bot hears her.
        seen = ada.wait_for(SNAPSHOT + """.then(s => ['alice-bot', 'bob-bot'].every(name =>
            s.roster.some(r => r.name === name) && s.tiles.some(t => t.name === name && t.framesDecoded > 30)) &&
            s.audioIn.packetsReceived > 100 && s.audioIn.totalAudioEnergy > 0 && s)""", timeout=60,
                            description="both bots' cameras decoding and sound arriving")
        result["adaSees"] = seen
        result["adaTimings"] = seen["timings"]
        result["botsSeeAda"] = wait_until("both bots decoding Ada's camera", lambda: all(
            (last_video(bot[1], "#Ada") or {}).get("framesDecoded", 0) > 30 for bot in (alice, bob)) and
            {name: last_video(bot[1], "#Ada") for name, bot in (("alice-bot", alice), ("bob-bot", bob))}, 60)

        # Chat both ways.
        result["adaChat"], result["aliceChat"] = chat_both_ways(ada, alice, "hello from the browser", "hello from a bot")

        # Ben joins later from a second page that shows two people at a time: he gets the chat history, sees the
        # two on his first page (and receives nothing of the third), then the third on the next page.
        ben = browser.open(invite.split("?")[0] + "?name=Ben&pageSize=2")
        result["benJoinSeconds"] = join(ben, "Ben")
        on_page = "s.tiles.filter(t => !t.local && !t.content && t.onPage)"
        off_page = "s.tiles.filter(t => !t.local && !t.content && !t.onPage)"
        result["benSees"] = ben.wait_for(SNAPSHOT + f""".then(s => s.page.count === 2 && {on_page}.length === 2 &&
            {on_page}.every(t => t.framesDecoded > 15) && {off_page}.length === 1 &&
            s.chat.some(c => c.text === 'hello from the browser') && s)""", timeout=60,
                                         description="Ben seeing two people on his first page, with the chat replayed")
        result["benTimings"] = result["benSees"]["timings"]
        ben.click("#page-next")
        result["benSecondPage"] = ben.wait_for(SNAPSHOT + f""".then(s => s.page.index === 1 &&
            {on_page}.length === 1 && {on_page}.every(t => t.framesDecoded > 15) && s.tiles)""", timeout=60,
                                               description="Ben's second page decoding")
        ben.click("#page-prev")
        # Ben's connection drops (the socket closes with a 45xx code, as a server going away does): his page says
        # so, reconnects by itself, and shows the people again. (A loaded machine may already have made it reconnect
        # once, on a timeout: counted from here.)
        reconnects = result["benReconnectsBeforeDrop"] = ben.evaluate(SNAPSHOT + ".then(s => s.reconnects)")
        ben.evaluate("window.carillonMeeting.meeting.conn.channel.socket.close(4500, 'test drop')")
        ben.wait_for("window.carillonMeeting.state === 'reconnecting'", timeout=10, interval=0.05,
                     description="Ben's page showing that it reconnects")
        result["benReconnected"] = ben.wait_for(SNAPSHOT + f""".then(s => s.state === 'connected' &&
            s.reconnects === {reconnects + 1} && s.page.index === 0 && {on_page}.length === 2 &&
            {on_page}.every(t => t.framesDecoded > 15) && s)""", timeout=60, description="Ben reconnected")
        result["adaSeesBen"] = ada.wait_for(SNAPSHOT + """.then(s => s.roster.length === 4 &&
            s.tiles.some(t => t.name === 'Ben' && t.framesDecoded > 15) && s)""", timeout=60,
                                            description="Ada seeing Ben")
        if screenshots:
            ada.screenshot(os.path.join(screenshots, "join-page-meeting.png"), 1280, 720)

        # Ada shares her screen: a content tile for Ben and the bots. The share's first socket drops as soon as it
        # opens (as a lost connection would): the page tries again by itself.
        ada.evaluate("""(() => {
            const Real = window.WebSocket;
            let armed = true;
            window.WebSocket = class extends Real {
                constructor(url, protocols) {
                    super(url, protocols);
                    if (armed && [].concat(protocols ?? []).some(p => String(p).endsWith('#content'))) {
                        armed = false;
                        this.addEventListener('open', () => this.close(4500, 'test drop'), {once: true});
                    }
                }
            };
        })()""")
        ada.click("#share")
        result["benSeesShare"] = ben.wait_for(SNAPSHOT + """.then(s => s.tiles.some(t => t.content && t.name === 'Ada' &&
            t.framesDecoded > 5) && s.tiles.filter(t => t.content))""", timeout=60, description="Ben seeing Ada's share")
        result["adaShareRetried"] = [line for line in ada.console if "share attempt 1 failed" in line]
        result["aliceSeesShare"] = wait_until("alice-bot decoding Ada's share", lambda:
            (last_video(alice[1], "#Ada#content") or {}).get("framesDecoded", 0) > 5 and last_video(alice[1], "#Ada#content"), 60)

        # The live share's socket closes (as a server going away closes it): Ada's page connects the share again by
        # itself, and alice-bot decodes it again (a new tile, or the same one with its frame count growing).
        ada.evaluate("window.carillonMeeting.meeting.share.channel.socket.close(4500, 'test drop')")
        wait_until("Ada's page noticing the share's lost connection",
                   lambda: any("share connection lost" in line for line in ada.console), 10)
        result["adaShareReconnected"] = ada.wait_for(
            SNAPSHOT + ".then(s => s.sharing && s.shareOut.framesEncoded > 5 && s.shareOut)", timeout=60,
            description="Ada's share live again")
        before = last_video(alice[1], "#Ada#content")

        def decoding_again():
            now = last_video(alice[1], "#Ada#content")
            grown = now and (now["framesDecoded"] > 5 if now["tileId"] != before["tileId"]
                             else now["framesDecoded"] > before["framesDecoded"] + 5)
            return grown and now
        result["aliceSeesShareAgain"] = wait_until("alice-bot decoding Ada's share again", decoding_again, 60)
        result["adaShareLost"] = [line for line in ada.console if "share connection lost" in line]

        # A second share of Ada's (as from another tab) replaces the live one's socket: the replaced share stops for
        # good, with its message, instead of connecting again (which would take the share back, in a loop).
        ada.evaluate("""(() => {
            const meeting = window.carillonMeeting.meeting;
            window.carillonFirstShare = meeting.share;
            const second = new meeting.share.constructor(meeting, new MediaStream([meeting.share.track.clone()]));
            window.carillonSecondShare = second;
            second.start().catch(error => console.log('carillon: second share failed: ' + error.message));
        })()""")
        ada.wait_for("window.carillonSecondShare.live && window.carillonFirstShare.stopped", timeout=60,
                     description="the second share live and the replaced one stopped")
        result["adaShareReplaced"] = [line for line in ada.console if "screen share stopped" in line]
        result["adaShareLostAfterReplace"] = [line for line in ada.console if "share connection lost" in line]
        ada.evaluate("window.carillonSecondShare.stop('test over')")

        # Ada mutes: the bots are told.
        ada.click("#mute")
        result["aliceSeesMute"] = wait_until("alice-bot seeing Ada muted", lambda: [
            e for e in events(alice[1], "muted") if any(name.endswith("#Ada") for name in e.get("attendees", []))], 20)

        # Ada leaves: everyone is told, and her page says so.
        ada.click("#leave")
        ada.wait_for("window.carillonMeeting.state === 'left'", timeout=20, description="Ada's page in the left state")
        result["benAfterAdaLeft"] = ben.wait_for(SNAPSHOT + """.then(s => !s.roster.some(r => r.name === 'Ada') &&
            !s.tiles.some(t => t.name === 'Ada') && s.roster.map(r => r.name).sort())""", timeout=30,
                                                 description="Ada gone from Ben's page")
        ben.click("#leave")
        ben.wait_for("window.carillonMeeting.state === 'left'", timeout=20)
    except Exception as error:
        result["error"] = f"{type(error).__name__}: {error}"
        result["diagnostics"] = [page.diagnostics(60) for page in (browser.pages if browser else [])]
        result["server"] = "".join(server.output[-40:])
    finally:
        if browser is not None:
            browser.close()
        for bot in (alice, bob):
            stop_bot(bot)
        stop_server(server)
    # What alice-bot heard: the browsers' tone and bob-bot's.
    result["aliceHeard"] = tone_shares(os.path.join(root, "alice-bot.wav"), (BROWSER_TONE, BOB_TONE))
    result["botExits"] = [alice[0].returncode, bob[0].returncode]
    if "error" in result:
        result["botOutput"] = {"alice-bot": "".join(alice[1])[-3000:], "bob-bot": "".join(bob[1])[-3000:]}
    shutil.rmtree(root, ignore_errors=True)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
