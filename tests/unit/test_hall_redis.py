"""Three hall processes sharing one real Redis behind Caddy (issue 30, item 3).

Everything on loopback, bounded: a ``redis-server`` with an append-only file and three
``python -m dpdeck.hall --hall-redis URL`` processes, all started here and stopped by their PIDs;
Caddy (plain HTTP) proxies to the three with buffering off, skipping a dead one. The presenter
moves on one process; followers, aiohttp SSE clients that reconnect as the page does, follow
through the proxy and on the other processes directly. One process is killed with ``kill -9``:
its followers come back through the proxy within 5 s and see the next move. Redis is restarted
in the middle of a poll: every answer sent before is counted after, an answer sent meanwhile gets
a 503 and is counted when sent again.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import time

import aiohttp
import pytest

from tests.support.caddy import Caddy
from tests.support.hall_clients import Follower, until
from tests.support.hall_fixtures import DEV, make_dist, run_async
from tests.support.hall_process import HallProcess
from tests.support.redis_server import RedisServer

pytestmark = pytest.mark.skipif(
    not (RedisServer.available() and shutil.which("caddy")), reason="needs redis-server and caddy"
)
CADDYFILE = """{{
\tadmin off
\tauto_https off
}}
http://127.0.0.1:{port} {{
\treverse_proxy {upstreams} {{
\t\tlb_policy round_robin
\t\tlb_try_duration 5s
\t\tlb_try_interval 100ms
\t\tfail_duration 10s
\t\thealth_uri /_hall/hello
\t\thealth_interval 500ms
\t\thealth_timeout 1s
\t\tflush_interval -1
\t}}
}}
"""


def test_three_processes_behind_caddy_share_one_hall_through_a_kill_and_a_redis_restart(tmp_path):
    redis = RedisServer(tmp_path / "redis").start()
    dist = make_dist(tmp_path)
    token_file = tmp_path / "token"
    halls: list[HallProcess] = []
    caddy = None
    try:
        for i in range(3):  # one token file: every process knows the presenter
            hall = HallProcess(dist, tmp_path / f"unused-{i}.sqlite3", token_file, "--hall-redis", redis.url)
            halls.append(hall)  # stopped in the finally even if it fails to start
            hall.start(timeout=60)
        upstreams = [h.audience.removeprefix("http://").rstrip("/") for h in halls]
        caddy = Caddy(tmp_path / "caddy", CADDYFILE, upstreams=" ".join(upstreams)).start()
        run_async(lambda: _scenario(redis, halls, caddy))
    finally:
        if caddy is not None:
            caddy.stop()
        for hall in halls:
            hall.stop()
        redis.stop()


async def _answers_through_a_redis_restart(redis, devices, base: str, voters: list[Follower]) -> None:
    """20 answers, Redis restarted (its append-only file), 6 answers refused with 503 during it
    and sent again after (a page's «Reintentar el envío»), then each token still counted once."""

    async def answer(i: int) -> int:
        body = {"token": DEV[20 + i], "poll": "copia", "answer": i % 2, "ticket": voters[i].tickets["copia"]}
        async with devices.post(f"{base}_hall/answer", json=body) as r:
            return r.status

    assert [await answer(i) for i in range(20)] == [201] * 20
    redis.stop()  # SIGTERM: the append-only file is written out
    during = [await answer(i) for i in range(20, 26)]
    assert during == [503] * 6
    redis.start()
    retried = []
    for i in range(20, 26):
        status = await answer(i)
        deadline = time.perf_counter() + 5
        while status == 503 and time.perf_counter() < deadline:
            await asyncio.sleep(0.2)
            status = await answer(i)
        retried.append(status)
    assert retried == [201] * 6
    assert [await answer(i) for i in (0, 7, 25)] == [409] * 3  # each token once, still


async def _scenario(redis: RedisServer, halls: list[HallProcess], caddy: Caddy) -> None:
    presenter, victim = halls[0], halls[1]
    proxied = [Follower(caddy.url, DEV[i]) for i in range(6)]  # round robin: two on each process
    direct = [Follower(halls[1].audience, DEV[10]), Follower(halls[2].audience, DEV[11])]
    timeout = aiohttp.ClientTimeout(total=None, sock_connect=2)
    async with (
        aiohttp.ClientSession(timeout=timeout) as streams,
        aiohttp.ClientSession(
            headers={"Authorization": f"Bearer {presenter.token}", "Origin": presenter.audience.rstrip("/")}
        ) as lead,
        aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(force_close=True), headers={"Origin": caddy.url.rstrip("/")}
        ) as devices,
    ):
        tasks = [asyncio.create_task(f.run(streams)) for f in proxied + direct]
        try:
            everyone = proxied + direct
            await until(lambda: all(f.greeted for f in everyone), 10, "every follower connected")

            async def move(seq: int) -> None:
                body = {"seq": seq, "indexh": seq % 50, "indexv": 0, "indexf": -1}
                async with lead.post(f"{presenter.audience}_hall/state", json=body) as r:
                    assert r.status == 204

            for seq in range(1, 11):  # the presenter on one process, every follower sees every move
                await move(seq)
                await asyncio.sleep(0.05)
            await until(lambda: all(f.seqs[-1:] == [10] for f in everyone), 5, "the 10th move everywhere")
            for f in everyone:
                assert [s for s in f.seqs if s >= 1] == list(range(1, 11)), f.seqs

            # kill -9 one process: its followers through the proxy come back within 5 s
            before = {f.device: len(f.greeted) for f in proxied}
            killed_at = time.perf_counter()
            victim.kill9()
            await until(
                lambda: any(f.ended and f.ended[-1] >= killed_at for f in proxied),
                5,
                "the killed streams end",
            )
            orphans = [f for f in proxied if f.ended and f.ended[-1] >= killed_at]
            assert 1 <= len(orphans) <= 4, [len(f.ended) for f in proxied]
            back = await until(
                lambda: all(len(f.greeted) > before[f.device] for f in orphans), 5, "the orphans back"
            )
            assert back < 5.0
            await move(11)
            await until(lambda: all(f.seqs[-1:] == [11] for f in proxied), 3, "the next move, after the kill")

            # a poll through the proxy, Redis restarted in the middle of it: 26 devices connected
            # through the proxy (so on both living processes) when the poll is shown get a ticket
            voters = [Follower(caddy.url, DEV[20 + i]) for i in range(26)]
            tasks += [asyncio.create_task(f.run(streams)) for f in voters]
            await until(lambda: all(f.greeted for f in voters), 10, "every voter connected")
            await move(20)  # the poll's slide: each process admits the devices it holds
            await until(lambda: all("copia" in f.tickets for f in voters), 5, "every voter's ticket")

            await _answers_through_a_redis_restart(redis, devices, caddy.url, voters)
            async with streams.get(f"{caddy.url}_hall/events?device={DEV[49]}") as r:
                tally = None
                async for raw in r.content:
                    line = raw.decode()
                    if line.startswith("data: ") and '"copia"' in line and '"counts"' in line:
                        tally = json.loads(line[6:])
                        break
            # admitted: every device holding a channel when the poll was shown, on either living
            # process: the voters, the followers through the proxy, and the direct one on halls[2]
            held = len(voters) + len(proxied) + 1
            assert tally == {"poll": "copia", "n": 26, "counts": [13, 13], "round": 1, "admitted": held} | {
                "cluster": tally["cluster"]
            }
            assert tally["cluster"] >= held  # every device came from 127.0.0.1: one cluster
            await move(21)  # the channel came back with Redis: a move still reaches every follower
            await until(lambda: all(f.seqs[-1:] == [21] for f in proxied), 5, "a move after Redis's restart")
        finally:
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
