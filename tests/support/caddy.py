"""A real Caddy in front of hall processes, plain HTTP on loopback, started and stopped by its PID
(tests/unit/test_hall_redis.py, tests/unit/test_hall_redteam.py). Its files (storage, config,
log) live in the test's temporary folder, never the user's."""

from __future__ import annotations

import os
import subprocess
import time
import urllib.request
from pathlib import Path

from tests.support.paths import ROOT
from tests.support.redis_server import free_port, stop_process

# the documented proxy (deploy/hall.caddy) on plain HTTP, any Host, bound to loopback only
HALL_CADDY = """{{
\tadmin off
\tauto_https off
\tgrace_period 1s
}}
http://:{port} {{
\tbind 127.0.0.1
\timport {hall_caddy}
}}
"""


class Caddy:
    """``template`` is a Caddyfile formatted with ``port`` (a free loopback port) and ``fields``;
    ``env`` is added to Caddy's environment (``{$NAME}`` placeholders). ``start()`` waits until
    ``GET /_hall/hello`` answers 200 through it."""

    def __init__(self, folder: Path, template: str, env: dict[str, str] | None = None, **fields: str):
        self.port = free_port()
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.config = folder / "Caddyfile"
        self.config.write_text(template.format(port=self.port, **fields))
        self.env = env or {}
        self.proc: subprocess.Popen | None = None

    @classmethod
    def documented(cls, folder: Path, upstreams: list[str]) -> Caddy:
        """deploy/hall.caddy, as docs/deploy.md has it, in front of ``upstreams`` (host:port)."""
        hall_caddy = str(ROOT / "deploy" / "hall.caddy")
        return cls(folder, HALL_CADDY, {"HALL_UPSTREAMS": " ".join(upstreams)}, hall_caddy=hall_caddy)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def start(self) -> Caddy:
        env = {**os.environ, "HOME": str(self.folder), "XDG_DATA_HOME": str(self.folder / "data")}
        env["XDG_CONFIG_HOME"] = str(self.folder / "config")
        env.update(self.env)
        args = ["caddy", "run", "--config", str(self.config), "--adapter", "caddyfile"]
        with (self.folder / "caddy.log").open("wb") as log:
            self.proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=self.folder)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(self.url + "_hall/hello", timeout=1) as r:
                    if r.status == 200:
                        return self
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError("caddy did not start: " + (self.folder / "caddy.log").read_text()[-2000:])

    def stop(self) -> None:
        stop_process(self.proc)
