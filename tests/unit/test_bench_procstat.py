"""bench/procstat.py: the one /proc reader of the benchmark and the browser tests."""

from __future__ import annotations

import os
import sys

import pytest

from bench import procstat

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs /proc")


def stat(pid, ppid, cpu=0.0, pgrp=1, state="S"):
    return procstat.Stat(pid, f"p{pid}", state, ppid, pgrp, cpu)


def test_parse_stat_takes_the_name_between_the_outer_parentheses():
    fields = " ".join(["S", "7", "8", "0"] + ["0"] * 7 + [str(procstat.TICK), "0"] + ["0"] * 5)
    s = procstat.parse_stat(42, f"42 (Web (Content)) ) {fields}")
    assert (s.name, s.state, s.ppid, s.pgrp, s.cpu) == ("Web (Content)) ", "S", 7, 8, 1.0)
    assert procstat.parse_stat(1, "garbage") is None


def test_this_process_and_its_threads_are_seen():
    table = procstat.processes()
    me = table[os.getpid()]
    assert me.ppid == os.getppid() and me.alive
    assert os.getpid() in procstat.threads(os.getpid())
    assert (os.getpid(), me.name) in procstat.group_members(os.getpgid(0))


def test_descendants_walks_the_whole_tree():
    table = {1: stat(1, 0), 2: stat(2, 1), 3: stat(3, 2), 4: stat(4, 0)}
    assert procstat.descendants(1, table) == {1, 2, 3}


def test_foreign_cores_leaves_out_our_tree_and_counts_newcomers_whole():
    before = {1: stat(1, 0, 1.0), 2: stat(2, 1, 1.0), 9: stat(9, 0, 1.0)}
    after = {1: stat(1, 0, 3.0), 2: stat(2, 1, 5.0), 9: stat(9, 0, 2.0), 10: stat(10, 0, 0.5)}
    assert procstat.foreign_cores(before, after, 0.5, ours=1) == pytest.approx(3.0)
    assert procstat.foreign_cores({}, after, 1.0) is None
