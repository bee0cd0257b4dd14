"""A real ``redis-server`` for the hall's tests: a temp dir, a free loopback port, an append-only
file (``--appendonly yes --save ''``), stopped by its PID. Never a mock."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

from dpdeck.serve import rehearse

# a free port, and a process stopped with SIGTERM then SIGKILL: the rehearsal's own (dpdeck)
free_port, stop_process = rehearse.free_port, rehearse.stop


class RedisServer:
    """``start()``, ``stop()`` (SIGTERM: the append-only file is flushed) and ``restart()`` on the same port."""

    def __init__(self, folder: Path, port: int | None = None):
        self.folder = folder
        self.port = port or free_port()
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @staticmethod
    def available() -> bool:
        return shutil.which("redis-server") is not None

    def start(self, timeout: float = 10.0) -> RedisServer:
        self.folder.mkdir(parents=True, exist_ok=True)
        args = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.folder)]
        args += ["--appendonly", "yes", "--appendfsync", "always", "--save", "", "--daemonize", "no"]
        args += ["--logfile", str(self.folder / "redis.log")]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.ping():
                return self
            if self.proc.poll() is not None:
                break
            time.sleep(0.02)
        self.stop()
        raise RuntimeError("redis-server did not start: " + (self.folder / "redis.log").read_text()[-2000:])

    def ping(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                s.sendall(b"PING\r\n")
                return s.recv(64).startswith(b"+PONG")
        except OSError:
            return False

    def command(self, *words: str) -> bytes:
        """One command in the inline protocol; the raw reply (FLUSHALL between tests)."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as s:
            s.sendall((" ".join(words) + "\r\n").encode())
            return s.recv(65536)

    def stop(self) -> None:
        stop_process(self.proc)
        self.proc = None

    def restart(self) -> None:
        self.stop()
        self.start()

    def stored_bytes(self) -> bytes:
        """Everything Redis keeps on disk (the append-only files)."""
        return b"".join(
            p.read_bytes() for p in sorted(self.folder.rglob("*")) if p.is_file() and "log" not in p.name
        )
