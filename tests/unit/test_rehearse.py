"""The professor's rehearsal of the HTTPS set-up on their own machine (issue 46, item 17):
``bash scripts/rehearse.sh`` (``python -m dpdeck.serve.rehearse``) builds the deck for a static
origin, serves it over HTTPS through Caddy with its local CA, puts the hall behind Caddy on
another origin with ``--trust-proxy``, makes Chromium's NSS database trust the CA, and prints
the URLs. The test runs it on loopback (free ports, a small deck, its own folder and NSS
database), fetches the deck and the hall's hello over HTTPS with that CA, and stops it."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time
import urllib.request

import pytest

from dpdeck.serve.rehearse import CA_NAME, Missing, tool
from tests.support.paths import FIXTURES, ROOT


def test_the_script_runs_the_module_and_the_guides_give_it():
    script = (ROOT / "scripts" / "rehearse.sh").read_text()
    assert "-m dpdeck.serve.rehearse" in script
    for guide in ("docs/deploy.md", "docs/despliegue.md"):
        assert "bash scripts/rehearse.sh" in (ROOT / guide).read_text(encoding="utf-8"), guide


def _refused(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    except OSError:
        return True
    return False


@pytest.mark.slow
def test_the_rehearsal_serves_the_deck_and_the_hall_over_https_with_a_trusted_ca(tmp_path):
    try:
        certutil = tool("certutil", "libnss3-tools")
        tool("caddy", "caddy")
    except Missing as exc:
        pytest.fail(f"{exc}; CI installs it (scripts/setup.sh --test)")
    home = tmp_path / "home"
    env = {**os.environ, "DPDECK_NO_COMPRESS": "1"}  # a small deck: its copies are not the test
    proc = subprocess.Popen(
        [sys.executable, "-m", "dpdeck.serve.rehearse", "--deck-port", "0", "--hall-port", "0",
         "--deck", str(FIXTURES / "good" / "deck.yaml"), "--dir", str(tmp_path / "ensayo"),
         "--browser-home", str(home)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True,  # its own process group, as in a terminal: Ctrl+C reaches them all
    )  # fmt: skip
    watchdog = threading.Timer(300, proc.terminate)  # a hung rehearsal ends the read below
    watchdog.start()
    try:
        lines, deadline = [], time.monotonic() + 300
        while time.monotonic() < deadline and not any("registros:" in line for line in lines):
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line)
        out = "".join(lines)
        deck, hall = re.findall(r"(https://localhost:\d+)/\n", out)[:2]
        assert deck != hall, out
        ca = re.search(r"la CA de Caddy: (\S+)", out).group(1)
        assert re.search(re.escape(deck) + r"/#presenter=\S{43}", out), out
        context = ssl.create_default_context(cafile=ca)  # Caddy's CA, no error ignored

        with urllib.request.urlopen(deck + "/", timeout=10, context=context) as r:
            assert r.status == 200 and r.read().lower().startswith(b"<!doctype html")
            assert r.headers["Cross-Origin-Opener-Policy"] == "same-origin"
        hello = urllib.request.Request(hall + "/_hall/hello", headers={"Origin": deck})
        with urllib.request.urlopen(hello, timeout=10, context=context) as r:
            body = json.loads(r.read())
            assert r.status == 200 and body["hall"] == 1 and body["audience"] == [deck + "/"]
            assert r.headers["Access-Control-Allow-Origin"] == deck
        # the deck was built for that hall: its page asks the hall's origin
        index = next((tmp_path / "ensayo" / "dist").glob("index.html")).read_text(encoding="utf-8")
        assert hall in index

        # Chromium's NSS database of that home trusts the CA
        listed = subprocess.run(
            [certutil, "-L", "-d", f"sql:{home / '.pki' / 'nssdb'}"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        assert CA_NAME in listed and "C,," in listed

        # Ctrl+C (SIGINT to the terminal's process group) stops it, Caddy and the hall with it
        os.killpg(proc.pid, signal.SIGINT)
        assert proc.wait(30) == 0
        assert proc.stdout.read().strip().endswith("ensayo: detenido")
        ports = [int(u.rsplit(":", 1)[1]) for u in (deck, hall)]
        assert all(_refused(p) for p in ports)
    finally:
        watchdog.cancel()
        if proc.poll() is None:  # SIGTERM: it stops Caddy and the hall it started
            proc.terminate()
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)


def test_a_process_that_stops_is_named_with_its_whole_log(tmp_path):
    """Caddy or the hall gone before it is ready: the error says which, then its log, whole."""
    from dpdeck.serve.rehearse import _presenter, wait_ca, wait_tls

    log = tmp_path / "log"
    log.write_text("línea 1\nlisten tcp :8443: bind: address already in use\n")
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    with socket.socket() as unused:  # a port nobody listens on
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    with pytest.raises(RuntimeError) as ca:
        wait_ca(gone, tmp_path / "storage", log, timeout=5)
    with pytest.raises(RuntimeError) as tls:
        wait_tls(port, tmp_path / "no.crt", "localhost", gone, log, timeout=5)
    with pytest.raises(RuntimeError) as hall:
        _presenter(log, gone, timeout=5)
    for error, what in ((ca, "Caddy no arrancó"), (tls, "Caddy se detuvo"), (hall, "la sala no arrancó")):
        assert str(error.value) == f"{what}:\n" + log.read_text(), error.value
