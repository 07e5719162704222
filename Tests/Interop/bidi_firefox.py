"""A small synchronous WebDriver BiDi driver for the interop tests: headless Debian Firefox ESR, with a fake camera and
microphone, one page at a time.

Firefox listens for BiDi on `--remote-debugging-port` (127.0.0.1 only); the driver opens a session over WebSocket
(`websockets.sync`), and pages are browsing contexts. The profile makes WebRTC usable in a loopback-only network
namespace: fake media devices without a permission prompt, loopback ICE candidates, no mDNS host names, autoplay.
Every wait is bounded; failures carry the page's console.

    with Firefox() as browser:
        page = browser.open("http://127.0.0.1:8000/join/<invite>?name=Fiona")
        page.click("#join")
        page.wait_for("window.carillonMeeting?.state === 'connected'", timeout=30)

API (the shape of cdp_browser's, where BiDi allows): `Firefox(prefs=None, binary=None, timeout=30)`,
`open(url, timeout=30) -> Page`, `command(method, params, timeout=30)`, `close(timeout=10)`; `Page`:
`evaluate(expression, timeout=30)` (awaited, returned as JSON through `JSON.stringify`, with user activation),
`wait_for(expression, timeout=30, interval=0.25, description=None)`, `click(selector)` (the element's `click()` with
user activation), `fill(selector, text)`, `console`, `diagnostics(last=80)`.
"""
import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time

from websockets.sync.client import connect

PREFS = {
    "media.navigator.streams.fake": True,
    "media.navigator.permission.disabled": True,
    "media.autoplay.default": 0,
    "media.autoplay.blocking_policy": 0,
    "media.peerconnection.ice.loopback": True,
    "media.peerconnection.ice.obfuscate_host_addresses": False,
    "media.peerconnection.ice.default_address_only": False,
    "media.peerconnection.ice.no_host": False,
    "network.proxy.type": 0,
    # A page that is not in front must still decode and play what it receives, and keep its timers.
    "media.suspend-bkgnd-video.enabled": False,
    "media.block-autoplay-until-in-foreground": False,
    "dom.min_background_timeout_value": 4,
    # A namespace with only loopback looks offline to Firefox, and an offline Firefox gathers no ICE candidates.
    "network.manage-offline-status": False,
    "network.offline-mirrors-connectivity": False,
    "network.connectivity-service.enabled": False,
    "network.captive-portal-service.enabled": False,
    "browser.shell.checkDefaultBrowser": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "toolkit.telemetry.enabled": False,
    "app.update.enabled": False,
    "browser.startup.homepage_override.mstone": "ignore",
}


class BiDiError(Exception):
    """A BiDi command failed, or a wait timed out."""


def _free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Firefox:
    """One headless Firefox ESR with a BiDi session."""

    def __init__(self, prefs=None, binary=None, timeout=30):
        self.profile = tempfile.mkdtemp(prefix="carillon-firefox-")
        with open(os.path.join(self.profile, "user.js"), "w") as handle:
            for name, value in {**PREFS, **(prefs or {})}.items():
                handle.write(f"user_pref({json.dumps(name)}, {json.dumps(value)});\n")
        port = _free_port()
        self.log_path = os.path.join(self.profile, "firefox.log")
        self._log = open(self.log_path, "w")
        self.process = subprocess.Popen(
            [binary or shutil.which("firefox-esr") or "firefox-esr", "--headless", "--no-remote", "--profile",
             self.profile, f"--remote-debugging-port={port}", "--remote-allow-hosts=127.0.0.1", "about:blank"],
            stdout=self._log, stderr=subprocess.STDOUT, env=dict(os.environ, MOZ_HEADLESS="1"))
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.socket = connect(f"ws://127.0.0.1:{port}/session", open_timeout=2, max_size=None)
                break
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.close()
                    raise BiDiError(f"firefox did not open its BiDi port: {self.stderr_tail()}")
                time.sleep(0.2)
        self._next_id = 0
        self._lock = threading.Lock()
        self._replies = {}
        self._events = []
        self.pages = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.command("session.new", {"capabilities": {}})
        self.command("session.subscribe", {"events": ["log.entryAdded"]})

    def _read(self):
        try:
            for text in self.socket:
                message = json.loads(text)
                if "id" in message:
                    with self._lock:
                        self._replies[message["id"]] = message
                elif message.get("method") == "log.entryAdded":
                    params = message["params"]
                    context = params.get("source", {}).get("context")
                    for page in self.pages:
                        if page.context == context:
                            page.console.append(f"[{params.get('level')}] {params.get('text')}")
        except Exception:  # the socket closed: close() is under way
            pass

    def command(self, method, params=None, timeout=30):
        with self._lock:
            self._next_id += 1
            identifier = self._next_id
        self.socket.send(json.dumps({"id": identifier, "method": method, "params": params or {}}))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                reply = self._replies.pop(identifier, None)
            if reply is not None:
                if reply.get("type") == "error":
                    raise BiDiError(f"{method}: {reply.get('error')}: {reply.get('message')}")
                return reply.get("result", {})
            time.sleep(0.01)
        raise BiDiError(f"{method} got no reply within {timeout} s")

    def open(self, url, timeout=30):
        """The page at `url`: in the window Firefox started with, then in new tabs (brought to the front)."""
        if not self.pages:
            context = self.command("browsingContext.getTree", {"maxDepth": 0})["contexts"][0]["context"]
        else:
            context = self.command("browsingContext.create", {"type": "tab", "background": False})["context"]
        page = Page(self, context)
        self.pages.append(page)
        self.command("browsingContext.navigate", {"context": context, "url": url, "wait": "complete"}, timeout=timeout)
        return page

    def stderr_tail(self, characters=4000):
        try:
            with open(self.log_path) as handle:
                return handle.read()[-characters:]
        except OSError:
            return ""

    def close(self, timeout=10):
        try:
            if getattr(self, "socket", None) is not None:
                try:
                    self.command("browser.close", timeout=5)
                except Exception:
                    pass
                self.socket.close()
        finally:
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
            self._log.close()
            shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Page:
    """One browsing context of a `Firefox`."""

    def __init__(self, browser, context):
        self.browser = browser
        self.context = context
        self.console = []

    def evaluate(self, expression, timeout=30):
        """The JSON value of `expression`, awaited; BiDiError carrying the exception text if it throws."""
        wrapped = f"Promise.resolve(({expression})).then(value => JSON.stringify(value === undefined ? null : value))"
        result = self.browser.command("script.evaluate", {
            "expression": wrapped, "target": {"context": self.context}, "awaitPromise": True, "userActivation": True,
            "resultOwnership": "none"}, timeout=timeout)
        if result.get("type") == "exception":
            details = result.get("exceptionDetails", {})
            raise BiDiError(f"{expression[:120]}: {details.get('text')}")
        return json.loads(result["result"]["value"])

    def wait_for(self, expression, timeout=30, interval=0.25, description=None):
        deadline = time.monotonic() + timeout
        last_error = None
        while True:
            try:
                value = self.evaluate(expression, timeout=max(1.0, min(10.0, deadline - time.monotonic())))
                if value:
                    return value
            except BiDiError as error:
                last_error = error
            if time.monotonic() > deadline:
                reason = f" (last error: {last_error})" if last_error else ""
                raise BiDiError(f"timed out after {timeout} s waiting for {description or expression}{reason}\n"
                                f"{self.diagnostics()}")
            time.sleep(interval)

    def click(self, selector, timeout=10):
        self.wait_for(f"""(() => {{
            const element = document.querySelector({json.dumps(selector)});
            if (!element || element.disabled || element.getBoundingClientRect().width === 0) return false;
            element.click();
            return true;
        }})()""", timeout=timeout, description=f"a visible, enabled {selector}")

    def fill(self, selector, text, timeout=10):
        self.wait_for(f"""(() => {{
            const element = document.querySelector({json.dumps(selector)});
            if (!element) return false;
            element.value = {json.dumps(text)};
            element.dispatchEvent(new Event('input', {{bubbles: true}}));
            element.dispatchEvent(new Event('change', {{bubbles: true}}));
            return true;
        }})()""", timeout=timeout, description=f"input {selector}")

    def diagnostics(self, last=80):
        return "--- console (last %d) ---\n%s\n--- firefox ---\n%s" % (
            last, "\n".join(self.console[-last:]), self.browser.stderr_tail(2000))
