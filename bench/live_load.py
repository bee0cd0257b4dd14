"""Load benchmark of the live hall (deckbuild/hall): not a timed test, a measurement.

    .venv/bin/python bench/live_load.py [--devices 500] [--moves 60] [--answers 500] [--seconds 10]

On 127.0.0.1 only, bounded in count and time: starts the hall in a subprocess over a small
dist/ of its own (one yes/no poll), connects ``--devices`` simulated devices to the live channel
(Server-Sent Events), then for ``--seconds`` the presenter moves ``--moves`` times while
``--answers`` distinct devices each send one answer (each POST on a connection of its own, as
separate devices would). Prints the delivery latency of the presenter's moves to every device
(from just before the presenter's POST to the event read by the device: p50/p95/max), the moves
that never arrived, the answers' statuses and latencies, and the server's CPU time and memory.

The simulated devices run in this one Python process, on the same cores as the server: their
own scheduling is part of the latencies measured (a hall's devices have a CPU each).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

ROOT = Path(__file__).resolve().parents[1]
POLL = "copia"
HARD_LIMIT = 120.0  # seconds: the whole run, whatever happens


def make_dist(folder: Path) -> Path:
    dist = folder / "dist"
    dist.mkdir()
    (dist / "index.html").write_text("<!doctype html><title>bench</title>", encoding="utf-8")
    (dist / "live.json").write_text(
        json.dumps({"polls": {POLL: {"k": 2, "epsilon": 1.0986, "slide": 0}}, "exercises": []})
    )
    return dist


def start_hall(folder: Path, devices: int) -> tuple[subprocess.Popen, str, str]:
    args = [
        sys.executable,
        "-m",
        "deckbuild.hall",
        "--dist",
        str(make_dist(folder)),
        "--port",
        "0",
        "--quiet",
    ]
    args += ["--hall-db", str(folder / "hall.sqlite3"), "--max-streams", str(devices + 50)]
    args += ["--max-streams-per-address", str(devices + 50)]  # every simulated device is 127.0.0.1
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        match = re.search(r"(http://127\.0\.0\.1:\d+/)#presenter=(\S+)", line)
        if match:
            return proc, match.group(1), match.group(2)
        if not line and proc.poll() is not None:
            break
    proc.kill()
    raise SystemExit("the hall did not start")


def proc_usage(pid: int) -> tuple[float, int]:
    """CPU seconds (user + system) and resident memory (bytes) of a process, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    rss = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
    return cpu, rss


class Device:
    """One simulated device: its SSE stream, and when each presenter ``seq`` reached it."""

    def __init__(self, index: int):
        self.id = f"{index + 1:032x}"
        self.received: dict[int, float] = {}
        self.connected = asyncio.Event()
        self.admitted = asyncio.Event()  # the presenter's first move shows the poll: its ticket came
        self.ticket: str | None = None
        self.error: str | None = None

    async def follow(self, session: aiohttp.ClientSession, base: str, stop: asyncio.Event) -> None:
        try:
            async with session.get(f"{base}_hall/events?device={self.id}") as response:
                if response.status != 200:
                    self.error = f"HTTP {response.status}"
                    return
                self.connected.set()
                event = None
                while not stop.is_set():
                    line = await response.content.readline()
                    if not line:
                        self.error = "stream ended"
                        return
                    text = line.decode().rstrip("\n")
                    if text.startswith("event: "):
                        event = text[7:]
                    elif text.startswith("data: ") and event == "state":
                        self.received.setdefault(json.loads(text[6:])["seq"], time.perf_counter())
                    elif text.startswith("data: ") and event == "admit":
                        self.ticket = json.loads(text[6:])["ticket"]
                        self.admitted.set()
        except (TimeoutError, aiohttp.ClientError) as exc:
            self.error = type(exc).__name__
        except asyncio.CancelledError:
            pass
        finally:
            self.connected.set()


async def presenter(base: str, token: str, moves: int, seconds: float, sent: dict[int, float]) -> list[int]:
    statuses = []
    async with aiohttp.ClientSession(
        headers={"Authorization": f"Bearer {token}", "Origin": base.rstrip("/")}
    ) as session:
        for i in range(moves):
            seq = 1_000 + i
            sent[seq] = time.perf_counter()
            body = {"seq": seq, "indexh": i % 60, "indexv": 0, "indexf": -1}
            async with session.post(f"{base}_hall/state", json=body) as r:
                statuses.append(r.status)
            await asyncio.sleep(max(0.0, sent[seq] + seconds / moves - time.perf_counter()))
    return statuses


async def answers(base: str, devices: list[Device], count: int, seconds: float) -> list[tuple[int, float]]:
    out: list[tuple[int, float]] = []
    connector = aiohttp.TCPConnector(force_close=True, limit=0)  # a connection per device, as in a hall

    async def one(session, device, i):
        await asyncio.sleep(i * seconds / count)
        await asyncio.wait_for(device.admitted.wait(), seconds + 30)
        t0 = time.perf_counter()
        body = {"token": device.id, "poll": POLL, "answer": i % 2, "ticket": device.ticket}
        try:
            async with session.post(f"{base}_hall/answer", json=body) as r:
                out.append((r.status, time.perf_counter() - t0))
        except aiohttp.ClientError:
            out.append((0, time.perf_counter() - t0))

    async with aiohttp.ClientSession(connector=connector, headers={"Origin": base.rstrip("/")}) as session:
        await asyncio.gather(*(one(session, devices[i % len(devices)], i) for i in range(count)))
    return out


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


async def run(args) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        proc, base, token = start_hall(Path(tmp), args.devices)
        try:
            return await measure(args, proc, base, token)
        finally:
            proc.terminate()
            proc.wait(10)


async def measure(args, proc, base: str, token: str) -> dict:
    stop = asyncio.Event()
    devices = [Device(i) for i in range(args.devices)]
    session = aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(limit=0), timeout=aiohttp.ClientTimeout(total=None)
    )
    t0 = time.perf_counter()
    tasks = [asyncio.create_task(d.follow(session, base, stop)) for d in devices]
    await asyncio.wait_for(asyncio.gather(*(d.connected.wait() for d in devices)), 60)
    connect_s = time.perf_counter() - t0
    cpu0, _ = proc_usage(proc.pid)
    sent: dict[int, float] = {}
    moved, answered = await asyncio.gather(
        presenter(base, token, args.moves, args.seconds, sent),
        answers(base, devices, args.answers, args.seconds),
    )
    await asyncio.sleep(1.0)  # the last moves' delivery
    cpu1, rss = proc_usage(proc.pid)
    stop.set()
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await session.close()
    latencies = [(d.received[s] - sent[s]) * 1000 for d in devices for s in sent if s in d.received]
    missing = sum(1 for d in devices for s in sent if s not in d.received)
    answer_ms = [dt * 1000 for _, dt in answered]
    return {
        "devices": args.devices,
        "connected": sum(1 for d in devices if d.error is None or d.received),
        "stream_errors": sorted({d.error for d in devices if d.error}),
        "connect_s": round(connect_s, 2),
        "moves": args.moves,
        "move_statuses": sorted(set(moved)),
        "deliveries": len(latencies),
        "missing": missing,
        "latency_ms": {
            k: round(v, 1)
            for k, v in (("p50", pct(latencies, 0.5)), ("p95", pct(latencies, 0.95)), ("max", max(latencies)))
        }
        if latencies
        else None,  # fmt: skip
        "answers": {
            str(s): sum(1 for st, _ in answered if st == s) for s in sorted({st for st, _ in answered})
        },
        "answer_ms": {
            "p50": round(statistics.median(answer_ms), 1),
            "p95": round(pct(answer_ms, 0.95), 1),
            "max": round(max(answer_ms), 1),
        },  # fmt: skip
        "server_cpu_s": round(cpu1 - cpu0, 2),
        "server_rss_mib": round(rss / 2**20, 1),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", type=int, default=500)
    parser.add_argument("--moves", type=int, default=60)
    parser.add_argument("--answers", type=int, default=500)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args(argv)
    if not (1 <= args.devices <= 2000 and 1 <= args.moves <= 1000 and 0 <= args.answers <= 5000):
        parser.error("bounded: at most 2000 devices, 1000 moves, 5000 answers")
    if args.answers > args.devices:
        parser.error("one answer per device: --answers ≤ --devices")
    result = asyncio.run(asyncio.wait_for(run(args), HARD_LIMIT))
    print(json.dumps(result, indent=2, ensure_ascii=False))
    return 0 if result["missing"] == 0 and not result["stream_errors"] else 1


if __name__ == "__main__":
    sys.exit(main())
