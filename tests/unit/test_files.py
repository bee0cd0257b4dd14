"""dpdeck.build.files: a derived file is made once per key and kept; a new key makes it again; a
failure keeps nothing; a file's sha256 follows its content when it is rewritten."""

from __future__ import annotations

import os

import pytest

from dpdeck.build.files import derived, sha256


def test_a_derived_file_is_made_once_per_key_and_kept(tmp_path):
    made = []

    def make(out):
        made.append(out)
        out.write_text("trimmed")

    first = derived(tmp_path, "jedi.whl", ["abc", "rule"], make)
    again = derived(tmp_path, "jedi.whl", ["abc", "rule"], make)
    assert first == again and first.read_text() == "trimmed" and len(made) == 1
    other = derived(tmp_path, "jedi.whl", ["abc", "new rule"], make)
    assert other != first and len(made) == 2
    assert derived(tmp_path, "jedi.whl", [b"abc", "rule"], make) == first  # bytes and text alike
    # the parts are framed: ["ab", "c"] is not ["a", "bc"]
    assert derived(tmp_path, "x", ["ab", "c"], make) != derived(tmp_path, "x", ["a", "bc"], make)


def test_a_failed_derivation_keeps_nothing_and_the_next_build_makes_it(tmp_path):
    def broken(out):
        out.write_text("half")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        derived(tmp_path, "mpl.whl", ["k"], broken)
    assert not any(p.is_file() for p in tmp_path.rglob("*"))
    kept = derived(tmp_path, "mpl.whl", ["k"], lambda out: out.write_text("whole"))
    assert kept.read_text() == "whole"


def test_sha256_follows_a_rewritten_file(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"one")
    first = sha256(path)
    path.write_bytes(b"two")
    os.utime(path, ns=(1, 2))  # even with another date, the same size: a new version is read
    assert sha256(path) != first
    assert sha256(path) == sha256(path)
