"""A small synchronous Chrome DevTools Protocol driver for the interop tests: headless Debian Chromium, one page.

It speaks CDP over `--remote-debugging-pipe` (file descriptors 3 and 4, NUL-separated JSON), so the browser opens
no debugging port. Every wait is bounded; every failure says what was waited for and carries the page's console.

    with Chromium(extra_args=["--auto-select-desktop-capture-source=Entire screen"]) as browser:
        page = browser.open("http://127.0.0.1:8000/join/dev-invite?name=Ada")
        page.fill("#name", "Ada")
        page.click("#join")
        page.wait_for("window.carillonMeeting?.state === 'connected'", timeout=30)
        snapshot = page.evaluate("window.carillonMeeting.snapshot()")
        page.screenshot("/tmp/meeting.png", 1280, 720)

API:
- `Chromium(extra_args=(), binary=None, timeout=30, fake_devices=True, drop_args=())`: launches
  `chromium --headless=new` with the flags the tests need (`DEFAULT_ARGS`: fake camera and microphone, auto-granted
  media prompts, loopback WebRTC without mDNS, autoplay, no background networking, every host name but 127.0.0.1
  unresolvable) minus `drop_args`, plus `extra_args` (a later switch overrides an earlier one, e.g.
  `--use-fake-ui-for-media-stream=deny` refuses every media prompt), in a fresh profile directory.
  `fake_devices=False` leaves out the fake camera and microphone (headless then has none: NotFoundError).
  Per-device permissions: drop `--use-fake-ui-for-media-stream` and call
  `command("Browser.setPermission", {"permission": {"name": "camera"}, "setting": "denied", "origin": ...})`.
  Note: Chromium gathers ICE candidates on every interface, loopback included, only once a page holds a camera or
  microphone permission; with both refused it uses the default route's interface alone, which a loopback-only
  network namespace does not have, so such a page cannot connect there.
  Screen sharing: with the fake devices on, headless getDisplayMedia returns the fake capture picture (a green test
  pattern); `click` (a real mouse event) gives it the user activation it needs.
  `open(url, timeout=30) -> Page`, `command(method, params, session_id=None, timeout=30)`, `close(timeout=10)`
  (Browser.close, then kill if it lingers; removes the profile). Usable as a context manager.
- `Page`: `navigate(url, timeout)`, `evaluate(expression, await_promise=True, timeout=30)` returning the JSON value
  (raises `JavaScriptError` with the exception text), `wait_for(expression, timeout=30, interval=0.25,
  description=None)` polling until the expression is truthy and returning its value, `wait_for_selector(selector,
  timeout)`, `click(selector, timeout)` (a real mouse click at the element's centre, so it counts as a user
  gesture), `fill(selector, text)` (typed with Input.insertText), `select(selector, value)` (sets the value and fires
  `change`), `screenshot(path, width=1280, height=720, mobile=False)` (PNG after Emulation.setDeviceMetricsOverride),
  and the collected `console` lines and `exceptions`; `diagnostics(last=80)` formats them for assertion messages.
"""
import base64
import fcntl
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time

DEFAULT_ARGS = [
    "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
    "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream", "--allow-loopback-in-peer-connection",
    "--disable-features=WebRtcHideLocalIpsWithMdns", "--autoplay-policy=no-user-gesture-required",
    "--disable-background-networking", "--disable-component-update", "--disable-sync", "--mute-audio",
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
]


def _high_descriptor(descriptor):
    """A duplicate of `descriptor` numbered 10 or above (the original is closed)."""
    high = fcntl.fcntl(descriptor, fcntl.F_DUPFD, 10)
    os.close(descriptor)
    return high


class CDPError(Exception):
    """A DevTools command failed or timed out."""


class JavaScriptError(CDPError):
    """An evaluated expression threw (or its promise rejected); the message is the JavaScript exception text."""


class Chromium:
    """One headless Chromium process driven over the DevTools pipe."""

    def __init__(self, extra_args=(), binary=None, timeout=30, fake_devices=True, drop_args=()):
        self.binary = binary or shutil.which("chromium") or shutil.which("chromium-browser")
        if not self.binary:
            raise CDPError("no chromium binary found")
        self.profile = tempfile.mkdtemp(prefix="carillon-cdp-profile-")
        self.log_path = os.path.join(tempfile.mkdtemp(prefix="carillon-cdp-log-"), "chromium.log")
        self._next_id = 0
        self._lock = threading.Lock()
        self._condition = threading.Condition(self._lock)
        self._responses = {}
        self._listeners = []
        self._closed = False
        self.pages = []
        # Pipes: the browser reads commands on its fd 3 and writes answers and events on its fd 4.
        to_browser_read, self._to_browser = os.pipe()
        self._from_browser, from_browser_write = os.pipe()
        # The child's ends move above 9 first, so bash's `3<&N 4>&M` cannot overwrite one with the other (dash would
        # refuse numbers above 9).
        to_browser_read, from_browser_write = (_high_descriptor(to_browser_read), _high_descriptor(from_browser_write))
        dropped = {*drop_args, *(() if fake_devices else ("--use-fake-device-for-media-stream",))}
        defaults = [flag for flag in DEFAULT_ARGS if flag not in dropped]
        arguments = [*defaults, f"--user-data-dir={self.profile}", "--remote-debugging-pipe", *extra_args, "about:blank"]
        self._log = open(self.log_path, "wb")
        self.process = subprocess.Popen(
            ["/bin/bash", "-c", f'exec "$0" "$@" 3<&{to_browser_read} 4>&{from_browser_write}', self.binary, *arguments],
            stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT,
            pass_fds=(to_browser_read, from_browser_write))
        os.close(to_browser_read)
        os.close(from_browser_write)
        self._reader = threading.Thread(target=self._read, name="cdp-reader", daemon=True)
        self._reader.start()
        try:
            self.version = self.command("Browser.getVersion", timeout=timeout)
        except CDPError as error:
            output = self.stderr_tail()
            self.close()
            raise CDPError(f"chromium did not start: {error}\n{output}") from error

    # ---- transport -----------------------------------------------------------------------------------------

    def _read(self):
        buffer = b""
        while True:
            try:
                chunk = os.read(self._from_browser, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                break
            buffer += chunk
            while b"\0" in buffer:
                raw, buffer = buffer.split(b"\0", 1)
                try:
                    message = json.loads(raw)
                except ValueError:
                    continue
                self._dispatch(message)
        with self._condition:
            self._closed = True
            self._condition.notify_all()

    def _dispatch(self, message):
        if "id" in message:
            with self._condition:
                self._responses[message["id"]] = message
                self._condition.notify_all()
            return
        for listener in list(self._listeners):
            try:
                listener(message)
            except Exception:  # a listener's bug must not stop the reader
                pass

    def command(self, method, params=None, session_id=None, timeout=30):
        """Sends one CDP command and returns its result; raises CDPError on an error answer or after `timeout` s."""
        with self._condition:
            if self._closed:
                raise CDPError(f"{method}: the browser is gone")
            self._next_id += 1
            message_id = self._next_id
        message = {"id": message_id, "method": method, "params": params or {}}
        if session_id:
            message["sessionId"] = session_id
        data = json.dumps(message).encode() + b"\0"
        try:
            os.write(self._to_browser, data)
        except OSError as error:
            raise CDPError(f"{method}: cannot write to the browser: {error}") from error
        deadline = time.monotonic() + timeout
        with self._condition:
            while message_id not in self._responses:
                remaining = deadline - time.monotonic()
                if self._closed:
                    raise CDPError(f"{method}: the browser exited")
                if remaining <= 0:
                    raise CDPError(f"{method}: no answer within {timeout} s")
                self._condition.wait(remaining)
            response = self._responses.pop(message_id)
        if "error" in response:
            raise CDPError(f"{method}: {response['error'].get('message')} {response['error'].get('data', '')}".strip())
        return response.get("result", {})

    def add_listener(self, listener):
        """`listener(message)` is called on the reader thread for every event."""
        self._listeners.append(listener)

    # ---- pages ---------------------------------------------------------------------------------------------

    def open(self, url, timeout=30):
        """A new page (tab) showing `url`, with console and exceptions collected; waits for the load event."""
        target = self.command("Target.createTarget", {"url": "about:blank"}, timeout=timeout)["targetId"]
        session = self.command("Target.attachToTarget", {"targetId": target, "flatten": True}, timeout=timeout)["sessionId"]
        page = Page(self, target, session)
        self.pages.append(page)
        page.navigate(url, timeout=timeout)
        return page

    def stderr_tail(self, characters=4000):
        try:
            with open(self.log_path, "rb") as log:
                return log.read().decode(errors="replace")[-characters:]
        except OSError:
            return ""

    def close(self, timeout=10):
        """Closes the browser (killing it if it does not exit within `timeout` s) and removes its profile."""
        if self.process.poll() is None:
            try:
                self.command("Browser.close", timeout=min(timeout, 5))
            except CDPError:
                pass
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        for descriptor in (self._to_browser, self._from_browser):
            try:
                os.close(descriptor)
            except OSError:
                pass
        self._reader.join(timeout=5)
        self._log.close()
        shutil.rmtree(self.profile, ignore_errors=True)
        shutil.rmtree(os.path.dirname(self.log_path), ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _remote_object_text(value):
    if "value" in value:
        item = value["value"]
        return item if isinstance(item, str) else json.dumps(item)
    return value.get("description") or value.get("unserializableValue") or value.get("type", "")


class Page:
    """One tab of a `Chromium`, attached through a flat session."""

    def __init__(self, browser, target_id, session_id):
        self.browser = browser
        self.target_id = target_id
        self.session_id = session_id
        self.console = []
        self.exceptions = []
        self.crashed = False
        self._loaded = threading.Event()
        browser.add_listener(self._on_event)
        for domain in ("Page.enable", "Runtime.enable", "Log.enable"):
            self.command(domain)

    def command(self, method, params=None, timeout=30):
        return self.browser.command(method, params, session_id=self.session_id, timeout=timeout)

    def _on_event(self, message):
        if message.get("sessionId") != self.session_id:
            return
        method, params = message.get("method"), message.get("params", {})
        if method == "Runtime.consoleAPICalled":
            text = " ".join(_remote_object_text(arg) for arg in params.get("args", []))
            self.console.append(f"[{params.get('type')}] {text}")
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            self.exceptions.append(details.get("exception", {}).get("description") or details.get("text", ""))
        elif method == "Log.entryAdded":
            entry = params.get("entry", {})
            self.console.append(f"[log {entry.get('level')}] {entry.get('text')} {entry.get('url', '')}".rstrip())
        elif method == "Page.loadEventFired":
            self._loaded.set()
        elif method == "Inspector.targetCrashed":
            self.crashed = True

    def navigate(self, url, timeout=30):
        self._loaded.clear()
        result = self.command("Page.navigate", {"url": url}, timeout=timeout)
        if result.get("errorText"):
            raise CDPError(f"navigating to {url}: {result['errorText']}")
        if not self._loaded.wait(timeout):
            raise CDPError(f"{url} did not finish loading within {timeout} s\n{self.diagnostics()}")

    def evaluate(self, expression, await_promise=True, timeout=30):
        """The JSON value of `expression` (awaited when it is a promise); JavaScriptError if it throws."""
        result = self.command("Runtime.evaluate", {
            "expression": expression, "awaitPromise": await_promise, "returnByValue": True, "userGesture": True,
        }, timeout=timeout)
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text", "exception")
            raise JavaScriptError(f"{expression[:120]}: {text}")
        return result.get("result", {}).get("value")

    def wait_for(self, expression, timeout=30, interval=0.25, description=None):
        """Polls `expression` until it is truthy and returns that value; CDPError with the console after `timeout` s."""
        deadline = time.monotonic() + timeout
        last_error = None
        while True:
            remaining = deadline - time.monotonic()
            try:
                value = self.evaluate(expression, timeout=max(1.0, min(10.0, remaining)))
                if value:
                    return value
            except JavaScriptError as error:
                last_error = error
            if self.crashed:
                raise CDPError(f"the page crashed while waiting for {description or expression}")
            if remaining <= 0:
                reason = f" (last error: {last_error})" if last_error else ""
                raise CDPError(f"timed out after {timeout} s waiting for {description or expression}{reason}\n"
                               f"{self.diagnostics()}")
            time.sleep(min(interval, max(0.0, remaining)))

    def wait_for_selector(self, selector, timeout=30):
        return self.wait_for(f"!!document.querySelector({json.dumps(selector)})", timeout=timeout,
                             description=f"element {selector}")

    def click(self, selector, timeout=10):
        """A real mouse click at the centre of the visible element `selector` (a user gesture for the page)."""
        box = self.wait_for(f"""(() => {{
            const element = document.querySelector({json.dumps(selector)});
            if (!element) return null;
            element.scrollIntoView({{block: 'nearest', inline: 'nearest'}});
            const rect = element.getBoundingClientRect();
            if (rect.width === 0 || rect.height === 0 || element.disabled) return null;
            return {{x: rect.left + rect.width / 2, y: rect.top + rect.height / 2}};
        }})()""", timeout=timeout, description=f"a visible, enabled {selector}")
        for kind in ("mousePressed", "mouseReleased"):
            self.command("Input.dispatchMouseEvent", {"type": kind, "x": box["x"], "y": box["y"], "button": "left",
                                                      "clickCount": 1})

    def fill(self, selector, text, timeout=10):
        """Replaces the text of the input `selector` by typing `text`."""
        self.wait_for(f"""(() => {{
            const element = document.querySelector({json.dumps(selector)});
            if (!element) return false;
            element.focus();
            element.select?.();
            element.value = '';
            element.dispatchEvent(new Event('input', {{bubbles: true}}));
            return true;
        }})()""", timeout=timeout, description=f"input {selector}")
        self.command("Input.insertText", {"text": text})

    def select(self, selector, value, timeout=10):
        """Chooses `value` in the <select> `selector` and fires `change`."""
        self.wait_for(f"""(() => {{
            const element = document.querySelector({json.dumps(selector)});
            if (!element || ![...element.options].some(option => option.value === {json.dumps(value)})) return false;
            element.value = {json.dumps(value)};
            element.dispatchEvent(new Event('change', {{bubbles: true}}));
            return true;
        }})()""", timeout=timeout, description=f"option {value!r} of {selector}")

    def screenshot(self, path, width=1280, height=720, mobile=False, device_scale_factor=1):
        """Saves a PNG of the page laid out at `width` x `height` CSS pixels."""
        self.command("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height, "deviceScaleFactor": device_scale_factor, "mobile": mobile})
        # Let the page re-lay itself out for the new size before the picture.
        time.sleep(0.5)
        data = self.command("Page.captureScreenshot", {"format": "png"}, timeout=30)["data"]
        with open(path, "wb") as file:
            file.write(base64.b64decode(data))
        return path

    def diagnostics(self, last=80):
        lines = ["--- console (last %d) ---" % last, *self.console[-last:]]
        if self.exceptions:
            lines += ["--- exceptions ---", *self.exceptions[-20:]]
        return "\n".join(lines)
