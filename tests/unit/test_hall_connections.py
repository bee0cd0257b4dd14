"""The hall's TCP connections (dpdeck/hall/connections.py, issue 46 item 3): the header and
idle timeouts, the bound per address (IPv6 by /64) and in total, and the presenter answered while
one address holds every connection the process can open. All on loopback; the attacker's
connections come from 127.0.0.2 and 127.0.0.3, the presenter's and honest devices' from 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import re
import sys
import time
import urllib.request
from pathlib import Path

from dpdeck.hall.addresses import group
from dpdeck.hall.admission import exercise_scope
from dpdeck.hall.connections import FD_RESERVE, capacity
from dpdeck.hall.limits import Limits
from tests.support.hall_fixtures import DEV, make_dist, run_async
from tests.support.hall_process import HallProcess
from tests.support.hall_started import answer, closed_within, connect, hall_options, with_started_hall

HEAD = b"GET /_hall/hello HTTP/1.1\r\nHost: 127.0.0.1\r\n"  # a request head without its blank line
SMALL = Limits(header_timeout=0.5, idle_timeout=1.0)


def test_addresses_are_grouped_ipv4_as_they_are_and_ipv6_by_64():
    assert group("192.0.2.7") == "192.0.2.7"
    assert group("2001:db8:1:2:aaaa::1") == group("2001:db8:1:2:ffff::9") == "2001:db8:1:2::/64"
    assert group("2001:db8:1:3::1") != group("2001:db8:1:2::1")
    assert group("::ffff:192.0.2.7") == "192.0.2.7"
    assert group("fe80::1%eth0") == "fe80::/64"
    assert group(None) == group("not an address") == "?"


def test_silent_and_half_sent_connections_are_closed_after_the_header_timeout(tmp_path):
    """On main, 400 idle or half-sent connections stayed open for 60 s."""

    async def scenario(port, hall, runner):
        silent = await connect(port, "127.0.0.2")
        half = await connect(port, "127.0.0.2", HEAD)
        trickle = await connect(port, "127.0.0.2", HEAD[:10])
        for _ in range(3):  # a byte every 0.2 s does not reset the clock
            await asyncio.sleep(0.2)
            trickle[1].write(b"X")
        started = time.monotonic()
        closed = [await closed_within(c[0], 2.0) for c in (silent, half, trickle)]
        waited = time.monotonic() - started
        hello = await answer(port, HEAD + b"Connection: close\r\n\r\n")
        return closed, waited, hello, runner.guard.timed_out

    closed, waited, hello, timed_out = with_started_hall(hall_options(tmp_path, limits=SMALL), scenario)
    assert closed == [True, True, True] and waited < 1.5
    assert hello.startswith(b"HTTP/1.1 200") and timed_out == 3


def test_a_keep_alive_connection_is_closed_when_idle_and_a_stream_is_not(tmp_path):
    async def scenario(port, hall, runner):
        reader, writer = await connect(port, send=HEAD + b"\r\n")
        first = await reader.readuntil(b"\r\n\r\n")
        stream = await connect(
            port, send=f"GET /_hall/events?device={DEV[0]} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
        )
        idle_closed = await closed_within(reader, 2.5)  # idle_timeout 1.0 s after its answer
        stream_open = not await closed_within(stream[0], 0.5)  # a request being answered stays
        return first, idle_closed, stream_open

    first, idle_closed, stream_open = with_started_hall(hall_options(tmp_path, limits=SMALL), scenario)
    assert first.startswith(b"HTTP/1.1 200") and idle_closed and stream_open


def test_one_address_holds_at_most_its_bound_its_idle_connections_going_first(tmp_path):
    limits = Limits(max_connections_per_address=5)

    async def scenario(port, hall, runner):
        half = [await connect(port, "127.0.0.2", HEAD) for _ in range(5)]
        newest = await connect(port, "127.0.0.2", HEAD)  # the address's oldest idle one makes room
        first_closed = await closed_within(half[0][0], 1.0)
        others_open = [not await closed_within(c[0], 0.05) for c in half[1:]]
        streams = []
        for i in range(5):  # five requests being answered: nothing of 127.0.0.3 is idle
            reader, writer = await connect(
                port,
                "127.0.0.3",
                f"GET /_hall/events?device={DEV[i]} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode(),
            )
            await reader.readuntil(b"\r\n\r\n")
            streams.append((reader, writer))
        refused = await answer(port, HEAD + b"\r\n", "127.0.0.3")
        elsewhere = await answer(port, HEAD + b"Connection: close\r\n\r\n", "127.0.0.1")
        held = {g: len(c) for g, c in runner.guard.by_group.items()}
        for _, writer in [*half, newest, *streams]:
            writer.close()
        return first_closed, others_open, refused, elsewhere, held

    first_closed, others_open, refused, elsewhere, held = with_started_hall(
        hall_options(tmp_path, limits=limits), scenario
    )
    assert first_closed and all(others_open)
    assert refused.startswith(b"HTTP/1.1 429") and "Demasiadas conexiones" in refused.decode()
    assert elsewhere.startswith(b"HTTP/1.1 200")
    assert held["127.0.0.2"] == 5 and held["127.0.0.3"] == 5


def test_a_trusted_proxy_is_exempt_from_the_bound_per_address(tmp_path):
    limits = Limits(max_connections_per_address=3)

    async def scenario(port, hall, runner):
        held = [await connect(port, "127.0.0.1", HEAD) for _ in range(6)]
        await asyncio.sleep(0.1)
        return [not await closed_within(c[0], 0.05) for c in held]

    opts = hall_options(tmp_path, limits=limits, trusted_proxies=frozenset({"127.0.0.1"}))
    assert all(with_started_hall(opts, scenario))


def test_the_total_stays_below_the_descriptor_limit():
    assert capacity(Limits(), 1024) == 1024 - FD_RESERVE
    assert capacity(Limits(max_connections=100), 1024) == 100
    assert capacity(Limits(), 10) == 1
    assert Limits().connections_per_address() == 2 * Limits().max_streams_per_address + 64


_LIMITED = (
    "import resource, runpy, sys; resource.setrlimit(resource.RLIMIT_NOFILE, (200, 256)); "
    "sys.argv = ['dpdeck.hall', *sys.argv[1:]]; runpy.run_module('dpdeck.hall', run_name='__main__')"
)


def _fetch(url: str, token: str | None = None, body: dict | None = None) -> int:
    headers = {"Origin": url.split("/_hall")[0].rstrip("/")}
    if body is not None:
        headers["Content-Type"] = "application/json"
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = json.dumps(body).encode() if body is not None else None
    with urllib.request.urlopen(urllib.request.Request(url, data=data, headers=headers), timeout=5) as r:
        return r.status


def test_the_presenter_is_answered_while_one_address_holds_every_descriptor(tmp_path):
    """A hall whose descriptor limit is 256 (soft 200): 400 half-sent connections from one
    address, then the presenter's move, an honest hello and index.html, each answered. On main
    the accept loop ran out of descriptors and the presenter's POST got no answer."""
    dist = make_dist(tmp_path)
    hall = HallProcess(dist, tmp_path / "hall.sqlite3", tmp_path / "hall.token")
    hall.args[1:3] = ["-c", _LIMITED]
    hall.start()
    try:
        port = int(re.search(r":(\d+)/", hall.audience).group(1))
        limits = Path(f"/proc/{hall.proc.pid}/limits").read_text()
        soft = int(re.search(r"Max open files\s+(\d+)", limits).group(1))

        async def attack():
            held, refused = [], 0
            for _ in range(400):
                try:
                    held.append(await connect(port, "127.0.0.2", HEAD))
                except (OSError, TimeoutError):
                    refused += 1
            await asyncio.sleep(0.2)
            loop = asyncio.get_running_loop()
            state = {"seq": 1, "indexh": 1, "indexv": 0, "indexf": 0}
            base = hall.audience
            results = []
            for call in (
                lambda: _fetch(base + "_hall/state", hall.token, state),
                lambda: _fetch(base + "_hall/hello"),
                lambda: _fetch(base + "index.html"),
            ):
                try:
                    results.append(await loop.run_in_executor(None, call))
                except OSError as exc:
                    results.append(repr(exc))
            still_open = sum([not await closed_within(r, 0.01) for r, _ in held])
            for _, writer in held:
                writer.close()
            return results, still_open

        results, still_open = run_async(attack)  # a thread of its own: a worker may hold a loop
    finally:
        hall.stop()
    assert soft == 256  # raised to the hard limit
    assert results == [204, 200, 200]
    assert still_open <= 256 - FD_RESERVE


if sys.platform != "linux":  # /proc/<pid>/limits
    del test_the_presenter_is_answered_while_one_address_holds_every_descriptor


def test_the_connection_options_reach_the_limits():
    import argparse

    from dpdeck.hall.options import add_deploy_arguments, connection_limits

    parser = argparse.ArgumentParser()
    add_deploy_arguments(parser)
    args = parser.parse_args(["--header-timeout", "2.5", "--max-connections-per-address", "900"])
    limits = connection_limits(args, Limits(max_streams_per_address=400))
    assert (limits.header_timeout, limits.idle_timeout) == (2.5, Limits().idle_timeout)
    assert limits.connections_per_address() == 900 and limits.max_connections is None
    assert (
        connection_limits(
            parser.parse_args([]), Limits(max_streams_per_address=400)
        ).connections_per_address()
        == 864
    )


def test_a_body_in_pieces_is_read_whole_and_a_slow_one_gets_408(tmp_path):
    """A body was read with one ``read(1025)``: its first packet only. A body sent a byte at a
    time held its connection with no bound."""

    async def scenario(port, hall, runner):
        ticket = hall.admission.tickets.issue(exercise_scope("ex-escala"), DEV[0])
        body = json.dumps({"token": DEV[0], "exercise": "ex-escala", "ticket": ticket}).encode()
        head = (
            "POST /_hall/solved HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Origin: http://127.0.0.1\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        ).encode()
        reader, writer = await connect(port, send=head + body[:10])
        await asyncio.sleep(0.2)
        writer.write(body[10:])
        whole = await asyncio.wait_for(reader.read(), 5)
        reader, writer = await connect(port, send=head + body[:10])
        started = time.monotonic()
        slow = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)  # then aiohttp lingers ≤ 10 s
        return whole, slow, time.monotonic() - started

    whole, slow, waited = with_started_hall(hall_options(tmp_path, limits=SMALL), scenario)
    assert whole.startswith(b"HTTP/1.1 201"), whole[:200]
    assert slow.startswith(b"HTTP/1.1 408") and waited < 2, slow[:200]
