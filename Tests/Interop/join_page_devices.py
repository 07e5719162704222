"""The join page's pre-join form when the camera and microphone are refused, or missing; run inside a fresh network
namespace whose only interface is loopback (see test_join_page_browser.py).

Usage: join_page_devices.py. Starts `carillon serve`, makes a meeting and an invite, opens the page in headless
Chromium twice: once with every media prompt refused, once with no devices at all. Prints one JSON line with what the
form showed each time (its notices, whether Join can be pressed).
"""
import json
import os
import shutil
import subprocess
import tempfile

from cdp_browser import Chromium
from conftest import ACCESS_KEY_ID, SECRET_ACCESS_KEY, make_client, start_server, stop_server

FORM = """(() => {
    const join = document.getElementById('join');
    const notices = [...document.querySelectorAll('#device-notices li')].map(item => item.textContent);
    return notices.length >= 2 && !join.disabled && {notices, joinEnabled: !join.disabled,
        name: document.getElementById('name').value};
})()"""


def main():
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    binary = os.environ.get("CARILLON_BIN", ".build/debug/carillon")
    root = tempfile.mkdtemp(prefix="carillon-join-devices-")
    os.mkdir(os.path.join(root, "data"))
    server = start_server(os.path.join(root, "data"))
    result = {}
    try:
        meeting_id = make_client(server.endpoint).create_meeting(
            ClientRequestToken="devices", MediaRegion="us-east-1", ExternalMeetingId="devices")["Meeting"]["MeetingId"]
        env = dict(os.environ, CARILLON_ACCESS_KEY_ID=ACCESS_KEY_ID, CARILLON_SECRET_ACCESS_KEY=SECRET_ACCESS_KEY)
        invite = subprocess.run([binary, "meeting", "invite", "--endpoint", server.endpoint, meeting_id, "--name", "Ada"],
                                capture_output=True, text=True, env=env, timeout=60, check=True).stdout.split()[-1]
        for case, options in (("refused", {"extra_args": ["--use-fake-ui-for-media-stream=deny"]}),
                              ("missing", {"fake_devices": False})):
            with Chromium(**options) as browser:
                page = browser.open(invite)
                result[case] = page.wait_for(FORM, timeout=30, description=f"the form's notices ({case})")
    except Exception as error:
        result["error"] = f"{type(error).__name__}: {error}"[:4000]
    finally:
        stop_server(server)
        shutil.rmtree(root, ignore_errors=True)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
