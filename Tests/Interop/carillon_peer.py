"""Drives `carillon peer`, the standalone WebRTC endpoint of the CLI, over its JSON-lines stdin/stdout."""
import json
import os
import queue
import subprocess
import threading


class CarillonPeer:
    """One `carillon peer` process in the offerer or answerer role."""

    def __init__(self, role, packets=150, duration=6.0, timeout=20.0, extra_args=(), wrapper=()):
        binary = os.environ.get("CARILLON_BIN", ".build/debug/carillon")
        args = [*wrapper, binary, "peer", f"--{role}", "--host", "127.0.0.1", "--packets", str(packets),
                "--duration", str(duration), "--timeout", str(timeout), *extra_args]
        self.process = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True)
        self.lines = queue.Queue()
        self.stderr = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=lambda: self.stderr.extend(self.process.stderr), daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            line = line.strip()
            if line:
                self.lines.put(json.loads(line))
        self.lines.put(None)

    def next(self, kind, timeout=30.0):
        """Returns the next message of `kind`, skipping others; fails with the process's stderr if it never comes."""
        while True:
            try:
                message = self.lines.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(f"no {kind} from carillon peer within {timeout} s:\n" + "".join(self.stderr))
            if message is None:
                self.process.wait(timeout=5)
                raise AssertionError(f"carillon peer exited ({self.process.returncode}) before {kind}:\n"
                                     + "".join(self.stderr))
            if message.get("type") == kind:
                return message

    def send(self, message):
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()

    def close(self):
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=5)
