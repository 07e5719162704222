"""`carillon serve` mistakes a newcomer makes, answered at once in one line that names the flag to change."""
import os
import subprocess
import tempfile
import time

from conftest import ACCESS_KEY_ID, SECRET_ACCESS_KEY


def serve(data_dir, *args):
    binary = os.environ.get("CARILLON_BIN", ".build/debug/carillon")
    env = dict(os.environ, CARILLON_ACCESS_KEY_ID=ACCESS_KEY_ID, CARILLON_SECRET_ACCESS_KEY=SECRET_ACCESS_KEY)
    started = time.monotonic()
    result = subprocess.run([binary, "serve", "--data-dir", data_dir, "--host", "127.0.0.1", *args],
                            capture_output=True, text=True, env=env, timeout=60)
    return result, time.monotonic() - started


def test_a_port_in_use_is_named_with_its_flag(server):
    """Each of the three listeners on a port the running server holds: exit 1 with one error line naming the
    listener, the address and the option, and no other error lines (the other listeners' cancellation is expected)."""
    api_port = server.endpoint.rsplit(":", 1)[1]
    media_port = server.media.rsplit(":", 1)[1]
    metrics_port = server.metrics.rsplit(":", 1)[1]
    cases = [
        (("--port", api_port, "--media-port", "0", "--metrics-port", "0"),
         f"the control API and signaling (TCP) address 127.0.0.1:{api_port} is in use", "--port"),
        (("--port", "0", "--media-port", media_port, "--metrics-port", "0"),
         f"the media (UDP) address 127.0.0.1:{media_port} is in use", "--media-port"),
        (("--port", "0", "--media-port", "0", "--metrics-port", metrics_port),
         f"the metrics and health (TCP) address 127.0.0.1:{metrics_port} is in use", "--metrics-port"),
    ]
    for args, message, option in cases:
        with tempfile.TemporaryDirectory(prefix="carillon-serve-error-") as data_dir:
            os.chmod(data_dir, 0o700)
            result, seconds = serve(data_dir, *args)
        output = result.stdout + result.stderr
        assert result.returncode == 1, output
        assert message in output and option in output, output
        errors = [line for line in output.splitlines() if " error " in line or line.startswith("Error:")]
        assert errors == [line for line in output.splitlines() if line.startswith("Error:")] and len(errors) == 1, output
        assert seconds < 10, f"took {seconds:.1f} s"
