"""Issue 48, item 15: commit subjects averaged 191 characters, and 473 of 548 were over 72. Every
commit since the check came (``SINCE``, the last one landed before it) has a subject of at most
72 characters, a blank line, then the why in its body; merges aside, whose message git writes.

On a clone without that commit (a shallow one), the newest commits are checked instead."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.support.paths import ROOT

SINCE = "2da5260"  # landed before the check: the history before it is left as it was
NEWEST = 20  # commits checked when SINCE is not in the clone
MAX_SUBJECT = 72


def _git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=60)


def _messages() -> list[tuple[str, str]]:
    """(short hash, whole message) of each commit to check, merges aside."""
    known = _git("cat-file", "-e", f"{SINCE}^{{commit}}").returncode == 0
    span = [f"{SINCE}..HEAD"] if known else ["-n", str(NEWEST), "HEAD"]
    out = _git("log", "--no-merges", "--format=%h%x00%B%x01", *span)
    assert out.returncode == 0, out.stderr
    return [tuple(entry.strip("\n").split("\0", 1)) for entry in out.stdout.split("\x01") if entry.strip()]


def faults(message: str) -> list[str]:
    """What is wrong with one commit message."""
    lines = message.strip("\n").split("\n")
    found = []
    if len(lines[0]) > MAX_SUBJECT:
        found.append(f"subject of {len(lines[0])} characters")
    if len(lines) < 3 or lines[1] != "" or not "".join(lines[2:]).strip():
        found.append("no blank line and body after the subject")
    return found


@pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(), reason="not a git clone")
def test_every_new_commit_has_a_short_subject_and_a_body():
    messages = _messages()
    assert messages, "the history was read"
    wrong = {h: f for h, m in messages if (f := faults(m))}
    assert wrong == {}


def test_the_check_sees_a_long_subject_and_a_missing_body():
    assert faults("x" * 73 + "\n\nwhy") == ["subject of 73 characters"]
    assert faults("short") == ["no blank line and body after the subject"]
    assert faults("short\nno blank\nline") == ["no blank line and body after the subject"]
    assert faults("«Enviada» " * 7 + "\n\nwhy") == []  # characters, not bytes: 70
