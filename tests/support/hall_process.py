"""A real hall server in a subprocess (``python -m dpdeck.hall``), for kill -9 and HTTPS tests."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from dpdeck.hall.admission import Tickets, exercise_scope, secret_from_token
from tests.support.paths import ROOT


class HallProcess:
    """Start with ``start()``; ``audience`` and ``presenter`` are the URLs it printed."""

    def __init__(self, dist: Path, db: Path, token_file: Path | None, *extra: str, port: int = 0):
        """``token_file`` None: the hall's default, a token file beside ``db``."""
        self.args = [sys.executable, "-m", "dpdeck.hall", "--dist", str(dist), "--port", str(port)]
        self.args += ["--hall-db", str(db), *(["--hall-token-file", str(token_file)] if token_file else [])]
        self.args += ["--quiet", *extra]
        self.proc: subprocess.Popen | None = None
        self.banner = ""

    @classmethod
    def alone(cls, live: Path, db: Path, token_file: Path, *extra: str, port: int = 0) -> HallProcess:
        """A hall with no deck to serve (``--live live.json``): the deck is served elsewhere."""
        process = cls(live.parent, db, token_file, *extra, port=port)
        where = process.args.index("--dist")
        process.args[where : where + 2] = ["--live", str(live)]
        return process

    def start(self, timeout: float = 20.0) -> HallProcess:
        self.proc = subprocess.Popen(
            self.args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1
        )
        lines, deadline = [], time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("the hall exited:\n" + "".join(lines))
            lines.append(line)
            if "#presenter=" in line:
                break
        self.banner = "".join(lines)
        self.presenter = re.search(r"(\S+#presenter=\S+)", self.banner).group(1)
        self.audience = self.presenter.split("#", 1)[0]
        self.token = self.presenter.split("#presenter=", 1)[1]
        return self

    def solve_ticket(self, exercise: str, device: str) -> str:
        """The ticket this hall sends ``device`` for ``exercise`` (its stream's greeting): made
        from the presenter's token, as every process of the hall makes it."""
        return Tickets(secret_from_token(self.token)).issue(exercise_scope(exercise), device)

    def post(self, path: str, body: dict, token: str | None = None) -> tuple[int, bytes]:
        """POST ``body`` as JSON to ``path`` (under the audience URL); the status and the body."""
        headers = {"Content-Type": "application/json", "Origin": self.audience.rstrip("/")}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        request = urllib.request.Request(
            self.audience + path, json.dumps(body).encode(), headers=headers, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read()

    def open_streams(self, devices: list[str]) -> list:
        """A live channel for each of ``devices`` (HTTP responses to read with ``tickets``)."""
        return [
            urllib.request.urlopen(f"{self.audience}_hall/events?device={d}", timeout=30) for d in devices
        ]

    @staticmethod
    def tickets(streams: list) -> list[str]:
        """Each stream's next admission ticket (after the presenter showed a poll), and close it."""
        out = []
        for stream in streams:
            event = None
            while True:
                line = stream.readline().decode().strip()
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: ") and event == "admit":
                    out.append(json.loads(line[6:])["ticket"])
                    break
            stream.close()
        return out

    def admit(self, devices: list[str], poll_slide: int, seq: int) -> list[str]:
        """Open a live channel for each of ``devices``, move the presenter to ``poll_slide``
        (showing the poll), and return each device's admission ticket (the streams are closed)."""
        streams = self.open_streams(devices)
        state = {"seq": seq, "indexh": poll_slide, "indexv": 0, "indexf": -1}
        assert self.post("_hall/state", state, self.token)[0] == 204
        return self.tickets(streams)

    def kill9(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
