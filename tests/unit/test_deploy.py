"""deploy/'s Caddyfiles, as Caddy itself reads them (``caddy adapt``): the deck's files with their
precompressed siblings and the isolation headers, the hall proxied unbuffered to every upstream
given (docs/deploy.md; tests/browser/test_proxy.py runs the two-name one in Chromium)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from dpdeck.serve.staticfiles import IMMUTABLE, ISOLATION_HEADERS
from tests.support.paths import ROOT

DEPLOY = ROOT / "deploy"
ENV = {
    "DECK_HOST": "deck.example.edu",
    "HALL_HOST": "hall.example.edu",
    "DECK_DIR": "/srv/deck/dist",
    "HALL_UPSTREAMS": "127.0.0.1:8101 127.0.0.1:8102 127.0.0.1:8103",
}


def _adapt(name: str) -> dict:
    caddy = shutil.which("caddy")
    if caddy is None:
        pytest.fail("caddy is missing: install Debian's caddy (apt-get install caddy); CI installs it")
    result = subprocess.run(
        [caddy, "adapt", "--config", str(DEPLOY / name), "--adapter", "caddyfile"],
        env={**os.environ, **ENV},
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(result.stdout)


def _handlers(route) -> list[dict]:
    """Every handler of a route and of its subroutes, with the paths that match it."""
    out = []
    for handler in route.get("handle", []):
        out.append({**handler, "_paths": [p for m in route.get("match", []) for p in m.get("path", [])]})
        for sub in handler.get("routes", []):
            out += _handlers(sub)
    return out


def _site(config: dict, host: str) -> list[dict]:
    routes = config["apps"]["http"]["servers"]["srv0"]["routes"]
    return [h for r in routes if host in r["match"][0]["host"] for h in _handlers(r)]


def _proxy(handlers) -> dict:
    (proxy,) = [h for h in handlers if h["handler"] == "reverse_proxy"]
    return proxy


def test_the_deck_is_served_precompressed_and_isolated():
    deck = _site(_adapt("Caddyfile"), "deck.example.edu")
    (files,) = [h for h in deck if h["handler"] == "file_server"]
    assert files["precompressed_order"] == ["br", "gzip"]
    assert [h["root"] for h in deck if h["handler"] == "vars"] == ["/srv/deck/dist"]
    headers = {}
    for h in deck:
        if h["handler"] == "headers":
            for key, (value,) in h["response"]["set"].items():
                headers.setdefault(key, {})[tuple(h["_paths"]) or "*"] = value
    assert {k: headers[k]["*"] for k in ISOLATION_HEADERS} == ISOLATION_HEADERS
    assert headers["Cache-Control"][("/vendor/*", "/static-*")] == IMMUTABLE


@pytest.mark.parametrize("name", ["Caddyfile", "Caddyfile.hall"])
def test_the_hall_is_proxied_unbuffered_to_every_upstream(name):
    proxy = _proxy(_site(_adapt(name), "hall.example.edu"))
    assert proxy["flush_interval"] == -1  # each Server-Sent Event goes out at once
    assert [u["dial"] for u in proxy["upstreams"]] == ENV["HALL_UPSTREAMS"].split()
