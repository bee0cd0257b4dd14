"""Load benchmark of the live hall (deckbuild/hall): not a timed test, a measurement.

    .venv/bin/python bench/live_load.py [--devices 500] [--moves 60] [--answers 500] [--seconds 10]
    .venv/bin/python bench/live_load.py --processes 4 --redis --devices 5000 --answers 5000

On 127.0.0.1 only, bounded in count and time: starts the hall in a subprocess over a small
dist/ of its own (one yes/no poll), connects ``--devices`` simulated devices to the live channel
(Server-Sent Events), then for ``--seconds`` the presenter moves ``--moves`` times while
``--answers`` distinct devices each send one answer (each POST on a connection of its own, as
separate devices would). Prints the delivery latency of the presenter's moves to every device
(from just before the presenter's POST to the event read by the device: p50/p95/max), the moves
that never arrived, the answers' statuses and latencies, and the server's CPU time and memory.

With ``--processes N --redis`` it starts a ``redis-server`` of its own (a temp dir, a free
loopback port, an append-only file) and N hall processes sharing it (``--redis URL``), spreads
the devices and the answers over them (the presenter moves on the first), and in the same
invocation runs the single-process SQLite hall with ``--baseline-devices`` devices first, so the
two are measured side by side; CPU and memory are then the sum over the hall processes and Redis.

The simulated devices run in this one Python process, on the same cores as the server: their
own scheduling is part of the latencies measured (a hall's devices have a CPU each). They run on
uvloop where it is installed, as the halls do by default (``--event-loop``, repeatable, measures
the halls on each loop side by side; the devices' loop is the same for every run of an
invocation, and each result names both).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

import aiohttp

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from deckbuild.hall import eventloop  # noqa: E402 (after the path above)
from deckbuild.hall.eventloop import EVENT_LOOPS  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
POLL = "copia"
HARD_LIMIT = 600.0  # seconds: the whole invocation per event loop measured, whatever happens
MARKER = b"event: state\ndata: "
WAVE = 250  # devices that open their streams at once


def make_dist(folder: Path) -> Path:
    dist = folder / "dist"
    dist.mkdir()
    (dist / "index.html").write_text("<!doctype html><title>bench</title>", encoding="utf-8")
    (dist / "live.json").write_text(
        json.dumps({"polls": {POLL: {"k": 2, "epsilon": 1.0986, "slide": 0}}, "exercises": []})
    )
    return dist


def start_redis(folder: Path) -> tuple[subprocess.Popen, str]:
    """A ``redis-server`` of this run's own: loopback, a free port, an append-only file in ``folder``."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    args = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", str(folder)]
    proc = subprocess.Popen(args + ["--appendonly", "yes", "--save", ""], stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
                s.sendall(b"PING\r\n")
                if s.recv(16).startswith(b"+PONG"):
                    return proc, f"redis://127.0.0.1:{port}/0"
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit("redis-server did not start")


def start_hall(folder: Path, devices: int, *extra: str) -> tuple[subprocess.Popen, str, str]:
    dist = folder / "dist"
    if not dist.exists():
        make_dist(folder)
    args = [sys.executable, "-m", "deckbuild.hall", "--dist", str(dist), "--port", "0", "--quiet"]
    args += ["--hall-db", str(folder / "hall.sqlite3"), "--max-streams", str(devices + 50)]
    args += ["--max-streams-per-address", str(devices + 50)]  # every simulated device is 127.0.0.1
    args += ["--hall-token-file", str(folder / "token"), *extra]  # one presenter for every process
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
        self.pending = b""

    def read(self, chunk: bytes, now: float) -> None:
        """Take a piece of the stream, read at ``now``: each whole event's seq or ticket."""
        complete, _, self.pending = (self.pending + chunk).rpartition(b"\n\n")
        for block in complete.split(b"\n\n"):
            event, _, data = block.partition(b"\ndata: ")
            if event.endswith(b"event: state"):
                self.received.setdefault(json.loads(data)["seq"], now)
            elif event.endswith(b"event: admit"):
                self.ticket = json.loads(data)["ticket"]
                self.admitted.set()

    async def follow(self, session: aiohttp.ClientSession, base: str, stop: asyncio.Event) -> None:
        """The stream through aiohttp's client (``--client aiohttp``): a task per device."""
        try:
            async with session.get(f"{base}_hall/events?device={self.id}") as response:
                if response.status != 200:
                    self.error = f"HTTP {response.status}"
                    return
                self.connected.set()
                while not stop.is_set():
                    chunk = await response.content.readany()
                    if not chunk:
                        self.error = "stream ended"
                        return
                    self.read(chunk, time.perf_counter())
        except (TimeoutError, aiohttp.ClientError) as exc:
            self.error = type(exc).__name__
        except asyncio.CancelledError:
            pass
        finally:
            self.connected.set()

    async def follow_raw(self, base: str, stop: asyncio.Event) -> None:
        """The stream over a bare asyncio protocol (``--client raw``, the default): an HTTP/1.0
        GET, so the body comes unchunked, and each read timed in the event loop's callback, with
        no task, no stream reader and no chunk decoding per device. A hall's devices each have a
        CPU of their own; here 5 000 share this process, and the lighter each read, the more of
        the machine is left to the hall being measured."""
        url = urlsplit(base)
        request = f"GET /_hall/events?device={self.id} HTTP/1.0\r\nHost: {url.netloc}\r\n\r\n".encode()
        try:
            transport, _ = await asyncio.get_running_loop().create_connection(
                lambda: _RawStream(self, request, stop), url.hostname, url.port
            )
        except OSError as exc:
            self.error = type(exc).__name__
            self.connected.set()
            return
        try:
            await stop.wait()
        finally:
            transport.close()


class _RawStream(asyncio.Protocol):
    """A device's live channel: its answer's head, then every piece of the stream to ``read``."""

    def __init__(self, device: Device, request: bytes, stop: asyncio.Event):
        self.device, self.request, self.stop, self.head = device, request, stop, b""

    def connection_made(self, transport) -> None:
        transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        now = time.perf_counter()
        if self.head is not None:
            head, found, data = (self.head + data).partition(b"\r\n\r\n")
            if not found:
                self.head = head
                return
            self.head = None
            status = head.split(b" ", 2)[1].decode()
            if status != "200":
                self.device.error = f"HTTP {status}"
            self.device.connected.set()
        self.device.read(data, now)

    def connection_lost(self, exc) -> None:
        if not self.stop.is_set():  # the hall ended the stream (or never answered) mid-run
            self.device.error = self.device.error or "stream ended"
        self.device.connected.set()


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


async def answers(
    bases: list[str], devices: list[Device], count: int, seconds: float
) -> list[tuple[int, float]]:
    out: list[tuple[int, float]] = []
    connector = aiohttp.TCPConnector(force_close=True, limit=0)  # a connection per device, as in a hall

    async def one(session, device, i):
        await asyncio.sleep(i * seconds / count)
        await asyncio.wait_for(device.admitted.wait(), seconds + 30)
        t0 = time.perf_counter()
        body = {"token": device.id, "poll": POLL, "answer": i % 2, "ticket": device.ticket}
        base = bases[i % len(bases)]
        try:
            async with session.post(
                f"{base}_hall/answer", json=body, headers={"Origin": base.rstrip("/")}
            ) as r:
                out.append((r.status, time.perf_counter() - t0))
        except aiohttp.ClientError:
            out.append((0, time.perf_counter() - t0))

    async with aiohttp.ClientSession(connector=connector) as session:
        await asyncio.gather(*(one(session, devices[i % len(devices)], i) for i in range(count)))
    return out


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


async def run(args, processes: int, redis: bool) -> dict:
    """One measured hall: one SQLite process, or ``processes`` processes sharing a Redis of its own."""
    with tempfile.TemporaryDirectory() as tmp:
        folder, procs, bases = Path(tmp), [], []
        try:
            extra: tuple[str, ...] = ()
            if redis:
                (folder / "redis").mkdir()
                redis_proc, url = start_redis(folder / "redis")
                procs.append(redis_proc)
                extra = ("--redis", url)
            per_process = -(-args.devices // processes)
            extra += ("--event-loop", args.event_loop)
            for _ in range(processes):
                proc, base, token = start_hall(folder, per_process, *extra)
                procs.append(proc)
                bases.append(base)
            result = await measure(args, procs, bases, token)
            store = "redis" if redis else "sqlite"
            return {"processes": processes, "store": store, "event_loop": args.event_loop, **result}
        finally:  # every process this run started, by its PID, even when one is slow to go
            for proc in procs:
                proc.terminate()
            for proc in procs:
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(10)


def own_cpu() -> float:
    """This process's CPU seconds (user + system): the simulated devices' cost."""
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime


def usage(procs: list[subprocess.Popen]) -> tuple[float, int]:
    """CPU seconds and resident memory summed over the hall's processes (and its Redis)."""
    both = [proc_usage(p.pid) for p in procs]
    return sum(cpu for cpu, _ in both), sum(rss for _, rss in both)


async def measure(args, procs: list[subprocess.Popen], bases: list[str], token: str) -> dict:
    stop = asyncio.Event()
    devices = [Device(i) for i in range(args.devices)]
    session = aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(limit=0), timeout=aiohttp.ClientTimeout(total=None)
    )
    t0 = time.perf_counter()
    tasks = []
    for start in range(0, len(devices), WAVE):  # devices arrive in waves, as a hall fills in
        wave = list(enumerate(devices))[start : start + WAVE]
        tasks += [
            asyncio.create_task(
                d.follow(session, bases[i % len(bases)], stop)
                if args.client == "aiohttp"
                else d.follow_raw(bases[i % len(bases)], stop)
            )
            for i, d in wave
        ]
        await asyncio.wait_for(asyncio.gather(*(d.connected.wait() for _, d in wave)), 120)
    connect_s = time.perf_counter() - t0
    await asyncio.sleep(2.5)  # every process's devices count settled before the moves
    cpu0, _ = usage(procs)
    own0, wall0 = own_cpu(), time.perf_counter()
    sent: dict[int, float] = {}
    moved, answered = await asyncio.gather(
        presenter(bases[0], token, args.moves, args.seconds, sent),
        answers(bases, devices, args.answers, args.seconds),
    )
    await asyncio.sleep(2.0)  # the last moves' delivery
    cpu1, rss = usage(procs)
    own1, wall1 = own_cpu(), time.perf_counter()
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
        "client": args.client,
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
        "server_cpu_us_per_delivery": round((cpu1 - cpu0) / max(1, len(latencies)) * 1e6, 1),
        "server_rss_mib": round(rss / 2**20, 1),
        # the simulated devices share the machine's cores with the hall: their own CPU over the
        # same window, and the window, say how much of the machine was left to the hall
        "devices_cpu_s": round(own1 - own0, 2),
        "window_s": round(wall1 - wall0, 2),
        "cores": os.cpu_count(),
        "devices_event_loop": eventloop.loop_name(asyncio.get_running_loop()),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", type=int, default=500)
    parser.add_argument("--moves", type=int, default=60)
    parser.add_argument("--answers", type=int, default=500)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--processes", type=int, default=1, help="hall processes (more than 1 needs --redis)")
    parser.add_argument("--redis", action="store_true", help="the hall in a redis-server started for the run")
    parser.add_argument(
        "--client",
        choices=("raw", "aiohttp"),
        default="raw",
        help="how the simulated devices read their streams (default raw: see Device.follow_raw)",
    )
    parser.add_argument(
        "--baseline-devices",
        type=int,
        default=500,
        help="with --redis: the single-process SQLite run measured first, with this many devices",
    )
    parser.add_argument(
        "--event-loop",
        action="append",
        choices=EVENT_LOOPS,
        dest="event_loops",
        help="the halls' event loop (deckbuild.hall.eventloop); repeat it to measure each loop "
        "side by side in one invocation (default: auto, uvloop where installed)",
    )
    args = parser.parse_args(argv)
    args.event_loops = args.event_loops or ["auto"]
    if not (1 <= args.devices <= 10_000 and 1 <= args.moves <= 1000 and 0 <= args.answers <= 10_000):
        parser.error("bounded: at most 10 000 devices, 1000 moves, 10 000 answers")
    if not 1 <= args.processes <= 8 or (args.processes > 1 and not args.redis):
        parser.error("1 to 8 processes; more than one share a hall only with --redis")
    if args.answers > args.devices:
        parser.error("one answer per device: --answers ≤ --devices")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)  # a stream is an open file at each end
    if soft < 2 * args.devices + 200:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 2 * args.devices + 1000), hard))
    results = eventloop.run(asyncio.wait_for(run_all(args), HARD_LIMIT * len(args.event_loops)))
    print(json.dumps(results if len(results) > 1 else results[0], indent=2, ensure_ascii=False))
    return 0 if all(r["missing"] == 0 and not r["stream_errors"] for r in results) else 1


async def run_all(args) -> list[dict]:
    """The run asked for, once per event loop asked for; with ``--redis``, each preceded by the
    single-process SQLite baseline on the same loop."""
    results = []
    for event_loop in args.event_loops:
        this = argparse.Namespace(**{**vars(args), "event_loop": event_loop})
        if args.redis:
            n = min(args.baseline_devices, args.devices)
            baseline = argparse.Namespace(**{**vars(this), "devices": n, "answers": min(args.answers, n)})
            results.append(await run(baseline, 1, False))
            print(json.dumps(results[-1], ensure_ascii=False), flush=True)  # kept if a later run overruns
        results.append(await run(this, args.processes, args.redis))
        print(json.dumps(results[-1], ensure_ascii=False), flush=True)
    return results


if __name__ == "__main__":
    sys.exit(main())
