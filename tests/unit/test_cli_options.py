"""The hall's options, declared once (issue 48, items 9 and 10): ``dpdeck serve --hall`` and
``python -m dpdeck.hall`` take the same flags under one name each and build the same
:class:`HallOptions`; the names the hall's command used before still work and say the new one;
and the command run outside the checkout writes into the current folder, not the checkout."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from dpdeck import cli
from dpdeck.hall import __main__ as hall_main
from dpdeck.hall import run as hall_run
from dpdeck.hall.limits import Limits
from dpdeck.hall.options import HallOptions, add_hall_arguments
from tests.support.paths import ROOT

SHARED = [
    "--host", "0.0.0.0", "--port", "8123", "--no-isolation", "--hall-redis", "redis://127.0.0.1:6390/0",
    "--hall-session", "clase-dp", "--hall-token-file", "tok", "--hall-max-streams", "900",
    "--hall-max-streams-per-address", "120", "--hall-max-devices-per-address", "77",
    "--trust-proxy", "127.0.0.1", "--allow-origin", "https://deck.example.edu",
    "--allow-host", "hall.example.edu", "--audience-url", "https://deck.example.edu/",
    "--event-loop", "asyncio", "--idle-timeout", "9", "--max-connections-per-address", "500",
]  # fmt: skip


def _started(monkeypatch, call) -> HallOptions:
    """The options the command would start its hall with (the hall itself is not started)."""
    seen: list[HallOptions] = []
    monkeypatch.setattr(hall_run, "run", lambda opts, root, quiet=False: seen.append(opts) or 0)
    monkeypatch.setattr(hall_main, "run", hall_run.run)
    assert call() == 0
    (opts,) = seen
    return opts


def test_both_commands_take_one_name_per_option_and_build_the_same_options(monkeypatch, tmp_path):
    dist = tmp_path / "dist"
    monkeypatch.setattr(cli, "_dist_is_stale", lambda project: False)
    monkeypatch.setattr(cli, "default_project", lambda: cli.Project(tmp_path))
    served = _started(monkeypatch, lambda: cli.main(["serve", "--hall", *SHARED]))
    alone = _started(monkeypatch, lambda: hall_main.main(["--dist", str(dist), *SHARED]))
    assert served == alone
    assert served.redis == "redis://127.0.0.1:6390/0" and served.session == "clase-dp"
    limits = served.limits
    assert (limits.max_streams, limits.max_streams_per_address, limits.max_devices_per_address) == (
        900,
        120,
        77,
    )
    assert (limits.idle_timeout, limits.max_connections_per_address) == (9, 500)
    assert served.trusted_proxies == frozenset({"127.0.0.1"}) and not served.isolate


def test_an_option_left_out_keeps_the_hall_default(monkeypatch, tmp_path):
    opts = _started(monkeypatch, lambda: hall_main.main(["--dist", str(tmp_path)]))
    assert opts.limits == Limits() and opts.redis is None and opts.extensions == ()


def test_the_hall_commands_former_names_still_work_and_say_the_new_one(monkeypatch, tmp_path, capsys):
    former = ["--redis", "redis://127.0.0.1:6390/0", "--max-streams", "900",
              "--max-streams-per-address", "120", "--max-devices-per-address", "77"]  # fmt: skip
    opts = _started(monkeypatch, lambda: hall_main.main(["--dist", str(tmp_path), *former]))
    assert opts.redis == "redis://127.0.0.1:6390/0"
    assert (opts.limits.max_streams, opts.limits.max_devices_per_address) == (900, 77)
    said = capsys.readouterr().err
    for old in ("--redis", "--max-streams", "--max-streams-per-address", "--max-devices-per-address"):
        assert f"{old} se llama ahora --hall-{old.removeprefix('--')}" in said
    assert "--redis" not in hall_main_help()  # hidden: the help names each option once


def hall_main_help() -> str:
    parser = argparse.ArgumentParser(prog="hall")
    add_hall_arguments(parser, renamed=True)
    return parser.format_help()


@pytest.mark.parametrize("bad", [["--hall-max-devices-per-address", "0"], ["--max-streams", "-3"]])
def test_a_bound_that_is_not_a_positive_number_is_a_usage_error(bad, tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        hall_main.main(["--dist", str(tmp_path), *bad])
    assert stop.value.code == 2 and "a number above 0" in capsys.readouterr().err


def test_the_command_run_outside_the_checkout_writes_there_with_the_checkouts_assets(tmp_path):
    """Issue 48, item 10: ``dpdeck build --deck x/deck.yaml`` run in another folder wrote the
    checkout's dist/. Outside the checkout the project is the current folder."""
    outside = cli.default_project(cwd=tmp_path)
    assert outside.root == tmp_path.resolve() and outside.dist == tmp_path.resolve() / "dist"
    assert outside.templates == ROOT / "templates" and outside.package_src == ROOT / "pyodide_pkg"
    inside = cli.default_project(cwd=ROOT / "deck")
    assert inside.root == ROOT and inside.dist == ROOT / "dist"
    assert Path(ROOT / "deck" / "deck.yaml") == inside.deck_file
