"""Processes and threads as Linux's /proc shows them: CPU seconds, parents, process groups.

One reader for the benchmark (other processes' load, the browser's threads) and the browser
tests (what a browser left running). On a system without /proc every function returns empty.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")
TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


@dataclass(frozen=True)
class Stat:
    """One line of /proc/<pid>/stat (or /proc/<pid>/task/<tid>/stat), the fields we use."""

    id: int
    name: str
    state: str
    ppid: int
    pgrp: int
    cpu: float  # user + system CPU seconds so far

    @property
    def alive(self) -> bool:
        return self.state not in ("Z", "X")


def parse_stat(id_: int, text: str) -> Stat | None:
    """A stat line → Stat. The name sits in parentheses and may hold spaces and ')'."""
    try:
        name = text[text.index("(") + 1 : text.rindex(")")]
        rest = text[text.rindex(")") + 2 :].split()
        return Stat(id_, name, rest[0], int(rest[1]), int(rest[2]), (int(rest[11]) + int(rest[12])) / TICK)
    except (ValueError, IndexError):
        return None


def read_stat(path: Path, id_: int) -> Stat | None:
    try:
        return parse_stat(id_, path.read_text())
    except OSError:  # it ended meanwhile
        return None


def _numbered(folder: Path) -> list[int]:
    try:
        return [int(e) for e in os.listdir(folder) if e.isdigit()]
    except OSError:
        return []


def processes() -> dict[int, Stat]:
    """Every process now: pid → Stat."""
    found = {}
    for pid in _numbered(PROC):
        stat = read_stat(PROC / str(pid) / "stat", pid)
        if stat is not None:
            found[pid] = stat
    return found


def threads(pid: int) -> dict[int, Stat]:
    """The threads of ``pid``: tid → Stat (the main thread's tid is ``pid``)."""
    found = {}
    for tid in _numbered(PROC / str(pid) / "task"):
        stat = read_stat(PROC / str(pid) / "task" / str(tid) / "stat", tid)
        if stat is not None:
            found[tid] = stat
    return found


def descendants(root: int, table: dict[int, Stat] | None = None) -> set[int]:
    """``root`` and every process below it (children, their children, …)."""
    table = processes() if table is None else table
    children: dict[int, list[int]] = {}
    for pid, stat in table.items():
        children.setdefault(stat.ppid, []).append(pid)
    found, stack = set(), [root]
    while stack:
        pid = stack.pop()
        if pid not in found:
            found.add(pid)
            stack.extend(children.get(pid, []))
    return found


def group_members(pgid: int) -> list[tuple[int, str]]:
    """Live processes (not zombies) of the process group ``pgid``: (pid, name)."""
    return [(pid, s.name) for pid, s in processes().items() if s.pgrp == pgid and s.alive]


def thread_times(pids) -> dict[int, tuple[str, float]]:
    """CPU seconds so far of every thread of ``pids``: tid → (thread name, seconds)."""
    return {tid: (s.name, s.cpu) for pid in pids for tid, s in threads(pid).items()}


def foreign_cores(
    before: dict[int, Stat], after: dict[int, Stat], wall: float, ours: int | None = None
) -> float | None:
    """Cores used, between two ``processes()`` tables ``wall`` s apart, by processes that are
    not ``ours`` (default: this process) or below it. A process born meanwhile counts whole."""
    if not before or not after or wall <= 0:
        return None
    mine = descendants(os.getpid() if ours is None else ours, after)
    used = sum(
        s.cpu - (before[pid].cpu if pid in before else 0.0) for pid, s in after.items() if pid not in mine
    )
    return max(0.0, used / wall)


def renderers(root: int | None = None) -> list[int]:
    """Chromium's renderer processes below ``root`` (default: this process): the processes
    whose command line has ``--type=renderer`` (a page and its workers live in one)."""
    found = []
    for pid in sorted(descendants(os.getpid() if root is None else root)):
        try:
            if b"--type=renderer" in (PROC / str(pid) / "cmdline").read_bytes():
                found.append(pid)
        except OSError:  # it ended meanwhile
            continue
    return found


def status_bytes(pid: int, field: str) -> int | None:
    """A ``kB`` field of /proc/<pid>/status in bytes (``VmHWM``: the peak resident set so far,
    ``VmRSS``: now), or None when the process is gone."""
    try:
        for line in (PROC / str(pid) / "status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None
