"""Load benchmark of the live hall (dpdeck/hall): not a timed test, a measurement.

    .venv/bin/python bench/live_load.py [--devices 500] [--moves 60] [--answers 500] [--seconds 10]
    .venv/bin/python bench/live_load.py --processes 4 --redis --devices 5000 --answers 5000
    .venv/bin/python bench/live_load.py --processes 4 --redis --devices 5000 --answers 5000 --pace both --out F.json
    .venv/bin/python bench/live_load.py --hostile [--slowloris 2000] [--flood-rate 200] [--hall-nofile 1024]

On 127.0.0.1 only, bounded in count and time: starts the hall in a subprocess over a small
dist/ of its own (one yes/no poll), connects ``--devices`` simulated devices to the live channel
(Server-Sent Events), then for ``--seconds`` the presenter moves ``--moves`` times while
``--answers`` distinct devices each send one answer (each POST on a connection of its own, as
separate devices would). Prints the delivery latency of the presenter's moves to every device
(from just before the presenter's POST to the event read by the device: p50/p95/max), the moves
that never arrived, the answers' statuses and latencies, and the server's CPU time and memory.

Then the target, as ``bench/startup.py`` prints its own, held or missed with the margin: the
presenter's moves delivered p95 ≤ 250 ms (a move never delivered counts as late), for each run.
``--pace`` says at what pace the presenter moves: ``bench`` (the default, ``--moves`` over
``--seconds``: 60 in 10 s, six a second, while ``--answers`` arrive), ``presenter`` (one move a
second: the same moves over as many seconds), or ``both`` in turn. What a real presenter's burst
is (the deck's fragments per slide, the keys a second; bench/pace.py) is printed with them, and
``--out`` keeps it all as JSON (``--report`` prints it again).

With ``--processes N --redis`` it starts a ``redis-server`` of its own (a temp dir, a free
loopback port, an append-only file) and N hall processes sharing it (``--redis URL``), spreads
the devices and the answers over them (the presenter moves on the first), and in the same
invocation runs the single-process SQLite hall with ``--baseline-devices`` devices first, so the
two are measured side by side; CPU and memory are then the sum over the hall processes and Redis.

With ``--hostile`` (issue 46) one hall process, its limits the defaults, sits behind Caddy running
``deploy/hall.caddy`` (``--trust-proxy 127.0.0.1``). One address, 127.0.0.2, holds ``--slowloris``
connections whose request head never ends (on the hall's own port, or Caddy's) and floods
answers through Caddy at ``--flood-rate`` per second (fresh tokens, made-up tickets), while the
``--devices`` honest devices, each from a loopback address of its own (127.0.1.1, …), follow
through Caddy, and ``--answers`` of them answer the poll and ``--solves`` solve an exercise, once
each. It prints the targets as ``bench/startup.py`` prints its own, held or missed with the
margin: the presenter's moves delivered p95 ≤ 250 ms (a move never delivered counts as late),
100 % of the honest answers and solves acknowledged at the first try; and the rates they were
measured under. ``--hall-nofile 1024`` gives the hall a laptop's default open-files limit.

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
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import aiohttp

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # dpdeck, and tests.support's Caddy

from bench import pace, targets  # noqa: E402 (after the path above)
from dpdeck.hall import eventloop  # noqa: E402
from dpdeck.hall.eventloop import EVENT_LOOPS  # noqa: E402
from dpdeck.serve.rehearse import stop  # noqa: E402
from dpdeck.wire.hall import route  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
POLL = "copia"
EXERCISE = "ex-banco"  # the hostile mode's honest solves
HARD_LIMIT = 600.0  # seconds: the whole invocation per event loop measured, whatever happens
MARKER = b"event: state\ndata: "
WAVE = 250  # devices that open their streams at once


def make_dist(folder: Path) -> Path:
    dist = folder / "dist"
    dist.mkdir()
    (dist / "index.html").write_text("<!doctype html><title>bench</title>", encoding="utf-8")
    (dist / "live.json").write_text(
        json.dumps({"polls": {POLL: {"k": 2, "epsilon": 1.0986, "slide": 0}}, "exercises": [EXERCISE]})
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


def hall_args(
    folder: Path, devices: int, *extra: str, caps: bool = True, pool: int | None = None
) -> list[str]:
    """The command line of a hall process over ``folder``'s dist/. ``caps``: its limits raised
    for ``devices`` streams all from 127.0.0.1, and for ``pool`` devices (default ``devices``:
    every process's, with a shared store) all from that address in the hall's pool, so that each
    gets its tickets; without, the defaults (the hostile mode, whose devices each have an
    address of their own)."""
    args = [sys.executable, "-m", "dpdeck.hall", "--dist", str(folder / "dist"), "--port", "0", "--quiet"]
    args += ["--hall-db", str(folder / "hall.sqlite3")]
    if caps:  # every simulated device is 127.0.0.1
        args += ["--hall-max-streams", str(devices + 50), "--hall-max-streams-per-address", str(devices + 50)]
        args += ["--hall-max-devices-per-address", str((devices if pool is None else pool) + 50)]
    return args + ["--hall-token-file", str(folder / "token"), *extra]  # one presenter for every process


def hall_url(base: str, name: str, **query: str) -> str:
    """The URL of the hall's route ``name`` under ``base``, with its query: the path as
    dpdeck/wire/hall.py declares it, never written here."""
    return base + route(name).path.lstrip("/") + (f"?{urlencode(query)}" if query else "")


def start_hall(
    folder: Path,
    devices: int,
    *extra: str,
    caps: bool = True,
    nofile: int | None = None,
    pool: int | None = None,
) -> tuple[subprocess.Popen, str, str]:
    """A hall process over ``folder``'s dist/ (``hall_args``): its process, its own URL and the
    presenter's token."""
    if not (folder / "dist").exists():
        make_dist(folder)
    args = hall_args(folder, devices, *extra, caps=caps, pool=pool)
    # ``nofile``: the hall starts under that open-files limit, soft and hard, as on a laptop whose
    # default it is (set before it starts: the hall sizes its bounds from the limit it finds)
    limit = None if nofile is None else (lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile)))
    proc = subprocess.Popen(
        args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, preexec_fn=limit
    )
    deadline, own = time.monotonic() + 30, None
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        listens = re.search(r"escucha en (http://127\.0\.0\.1:\d+/)", line)  # behind a proxy
        own = listens.group(1) if listens else own
        match = re.search(r"(http://127\.0\.0\.1:\d+/)#presenter=(\S+)", line)
        if match:
            return proc, own or match.group(1), match.group(2)
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
        self.tickets: dict[str, str] = {}  # every admit event's ticket, by its poll (or exercise)
        self.error: str | None = None
        self.pending = b""

    def read(self, chunk: bytes, now: float) -> None:
        """Take a piece of the stream, read at ``now``: each whole event's seq or ticket."""
        complete, _, self.pending = (self.pending + chunk).rpartition(b"\n\n")
        for block in complete.split(b"\n\n"):
            event, _, data = block.partition(b"\ndata: ")
            if event.endswith(b"event: state"):
                self.received.setdefault(json.loads(data)["seq"], now)
            elif event.endswith(b"event: tickets"):  # the greeting's exercise tickets (a device of the pool)
                self.tickets.update(json.loads(data)["exercises"])
            elif event.endswith(b"event: admit"):
                admit = json.loads(data)
                self.tickets[admit.get("poll") or admit.get("exercise") or "?"] = admit["ticket"]
                if admit.get("poll", POLL) == POLL:
                    self.ticket = admit["ticket"]
                    self.admitted.set()

    async def follow(self, session: aiohttp.ClientSession, base: str, stop: asyncio.Event) -> None:
        """The stream through aiohttp's client (``--client aiohttp``): a task per device."""
        try:
            async with session.get(hall_url(base, "events", device=self.id)) as response:
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

    async def follow_raw(self, base: str, stop: asyncio.Event, local: str | None = None) -> None:
        """The stream over a bare asyncio protocol (``--client raw``, the default): an HTTP/1.0
        GET, so the body comes unchunked, and each read timed in the event loop's callback, with
        no task, no stream reader and no chunk decoding per device. A hall's devices each have a
        CPU of their own; here 5 000 share this process, and the lighter each read, the more of
        the machine is left to the hall being measured. ``local``: the loopback address the
        device connects from (the hostile mode's devices each have their own)."""
        url = urlsplit(base)
        request = (
            f"GET {route('events').path}?device={self.id} HTTP/1.0\r\nHost: {url.netloc}\r\n\r\n".encode()
        )
        try:
            transport, _ = await asyncio.get_running_loop().create_connection(
                lambda: _RawStream(self, request, stop),
                url.hostname,
                url.port,
                local_addr=(local, 0) if local else None,
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
        headers={"Authorization": f"Bearer {token}", "Origin": base.rstrip("/")},
        timeout=aiohttp.ClientTimeout(total=10),
    ) as session:
        for i in range(moves):
            seq = 1_000 + i
            sent[seq] = time.perf_counter()
            body = {"seq": seq, "indexh": i % 60, "indexv": 0, "indexf": -1}
            try:
                async with session.post(hall_url(base, "state"), json=body) as r:
                    statuses.append(r.status)
            except (aiohttp.ClientError, TimeoutError):  # no answer (0): the move may be lost
                statuses.append(0)
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
                hall_url(base, "answer"), json=body, headers={"Origin": base.rstrip("/")}
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
                extra = ("--hall-redis", url)
            per_process = -(-args.devices // processes)
            extra += ("--event-loop", args.event_loop)
            for _ in range(processes):
                proc, base, token = start_hall(folder, per_process, *extra, pool=args.devices)
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
    p95 = p95_with_missing(latencies, missing)
    return {
        "devices": args.devices,
        "client": args.client,
        "pace": args.pace,
        "seconds": args.seconds,
        "move_rate": round(args.moves / args.seconds, 3),
        "connected": sum(1 for d in devices if d.error is None or d.received),
        "stream_errors": sorted({d.error for d in devices if d.error}),
        "connect_s": round(connect_s, 2),
        "moves": args.moves,
        "move_statuses": sorted(set(moved)),
        "deliveries": len(latencies),
        "missing": missing,
        "delivery_p95_ms": None if p95 == float("inf") else round(p95, 1),  # a move never delivered is late
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


# --- the hostile mode (issue 46): one address attacks while honest devices follow through Caddy ---

ATTACKER = "127.0.0.2"  # the one address of the slowloris and the flood
DELIVERY_P95_MS = 250.0  # target: presenter moves delivered p95 ≤ 250 ms, attack or not
HOSTILE_TARGETS = {
    "M": f"presenter moves delivered to every honest device, p95 ≤ {DELIVERY_P95_MS:.0f} ms (a move never delivered counts as late)",
    "A": "honest answers acknowledged (201) at the first try: 100 %",
    "S": "honest solves acknowledged (200/201) at the first try: 100 %",
}
SLOW_HEAD = f"GET {route('hello').path} HTTP/1.1\r\nHost: hall\r\n".encode()  # a request head never finished
TRICKLE_S = 5.0  # seconds between two header lines of each slow connection


def honest_address(i: int) -> str:
    """Honest device ``i``'s own loopback address: 127.0.1.1, 127.0.1.2, … (250 per /24), never
    the attacker's nor the presenter's (127.0.0.1)."""
    return f"127.0.{1 + i // 250}.{1 + i % 250}"


def p95_with_missing(latencies_ms: list[float], missing: int) -> float:
    """The 95th percentile of delivery latencies, a delivery that never came counted as infinitely
    late (so more than 5 % missing is a p95 of infinity)."""
    values = latencies_ms + [float("inf")] * missing
    return pct(values, 0.95) if values else float("inf")


def delivery_target(result: dict) -> dict:
    """The presenter's moves delivered p95 ≤ ``DELIVERY_P95_MS`` (a move never delivered counts
    as late), from a run's ``delivery_p95_ms`` (None: more than 5 % never came), ``deliveries``
    and ``missing``: held, missed or not measured, with the margin in ms."""
    p95 = result["delivery_p95_ms"]
    p95 = float("inf") if p95 is None else p95
    if result["deliveries"] + result["missing"] == 0:
        return {"ok": None, "detail": "not measured (no move)"}
    shown = "never (over 5 % not delivered)" if p95 == float("inf") else f"{p95:.1f} ms"
    margin = "" if p95 == float("inf") else f", {p95 - DELIVERY_P95_MS:+.1f} ms"
    return {
        "ok": p95 <= DELIVERY_P95_MS,
        "detail": f"p95 {shown} (limit {DELIVERY_P95_MS:.0f} ms{margin}); "
        f"{result['missing']} of {result['deliveries'] + result['missing']} deliveries missing",
    }


def share_target(acknowledged: int, sent: int, what: str) -> dict:
    """All of ``sent`` acknowledged: held, with how many were not."""
    if not sent:
        return {"ok": None, "detail": f"not measured (no {what} sent)"}
    missed = sent - acknowledged
    return {
        "ok": missed == 0,
        "detail": f"{acknowledged} of {sent} = {100 * acknowledged / sent:.1f} % "
        f"(target 100 %, {missed} not acknowledged)",
    }


def hostile_verdicts(result: dict) -> dict:
    """The hostile mode's targets (``HOSTILE_TARGETS``) from a run's result: held, missed or not
    measured, each with its margin."""
    answers = result["honest_answers"]
    solves = result["honest_solves"]
    return {
        "M": delivery_target(result),
        "A": share_target(answers.get("201", 0), sum(answers.values()), "honest answers"),
        "S": share_target(solves.get("200", 0) + solves.get("201", 0), sum(solves.values()), "honest solves"),
    }


def target_lines(verdicts: dict, names: dict | None = None) -> list[str]:
    """The targets as bench/startup.py prints its own (bench/targets.py): HOLDS or MISSES (n/a),
    what (``names[key]``, or the verdict's own ``target``), the margin."""
    names = HOSTILE_TARGETS if names is None else names
    return [targets.line(key, v, v.get("target") or names[key]) for key, v in verdicts.items()]


def rates_line(result: dict) -> str:
    """The load the targets were measured under, in one line."""
    return (
        f"  under: {result['moves']} moves in {result['seconds']:g} s ({result['move_rate']:.1f}/s); "
        f"{sum(result['honest_answers'].values())} honest answers ({result['answer_rate']:.1f}/s) and "
        f"{sum(result['honest_solves'].values())} solves ({result['solve_rate']:.1f}/s) from "
        f"{result['devices']} devices through Caddy; one address {ATTACKER}: "
        f"{result['slowloris_held']} of {result['slowloris']} slow connections still held at the end, "
        f"{result['flood_sent']} flooded answers ({result['flood_rate']:.1f}/s)"
    )


class _Slow(asyncio.Protocol):
    """One slowloris connection: a request head that never ends; ``closed`` once the peer drops it."""

    def __init__(self):
        self.transport = None
        self.closed = False

    def connection_made(self, transport) -> None:
        self.transport = transport
        transport.write(SLOW_HEAD)

    def data_received(self, data: bytes) -> None:
        pass

    def connection_lost(self, exc) -> None:
        self.closed = True


async def slowloris(host: str, port: int, count: int, stop: asyncio.Event) -> list[_Slow]:
    """``count`` connections from ``ATTACKER`` to ``host:port`` (waves of ``WAVE``, each connect
    given 5 s), each trickling one header line every ``TRICKLE_S`` until ``stop``; the ones
    that opened (watch ``closed``)."""
    loop = asyncio.get_running_loop()
    held: list[_Slow] = []

    async def one():
        try:
            _, protocol = await asyncio.wait_for(
                loop.create_connection(_Slow, host, port, local_addr=(ATTACKER, 0)), 5
            )
            held.append(protocol)
        except (OSError, TimeoutError):
            pass

    for start in range(0, count, WAVE):
        await asyncio.gather(*(one() for _ in range(start, min(count, start + WAVE))))

    async def trickle():
        while not stop.is_set():
            try:
                await asyncio.wait_for(stop.wait(), TRICKLE_S)
            except TimeoutError:
                for slow in held:
                    if not slow.closed:
                        slow.transport.write(b"X-a: b\r\n")

    asyncio.get_running_loop().create_task(trickle())
    return held


async def flood(base: str, rate: float, seconds: float) -> dict[str, int]:
    """Answers from ``ATTACKER`` through ``base`` at ``rate`` per second for ``seconds`` (fresh
    tokens, made-up tickets, on kept-alive connections, at most 50 in flight): their statuses."""
    statuses: dict[str, int] = {}
    count = int(rate * seconds)
    gate = asyncio.Semaphore(50)
    connector = aiohttp.TCPConnector(local_addr=(ATTACKER, 0), limit=50)
    t0 = time.perf_counter()

    async def one(session, i):
        await asyncio.sleep(max(0.0, t0 + i / rate - time.perf_counter()))
        body = {"token": f"{0xF0000000 + i:032x}", "poll": POLL, "answer": i % 2, "ticket": f"{i:032x}"}
        async with gate:
            try:
                async with session.post(hall_url(base, "answer"), json=body) as r:
                    key = str(r.status)
            except (aiohttp.ClientError, TimeoutError):
                key = "error"
        statuses[key] = statuses.get(key, 0) + 1

    timeout = aiohttp.ClientTimeout(total=10)
    headers = {"Origin": base.rstrip("/")}
    async with aiohttp.ClientSession(connector=connector, timeout=timeout, headers=headers) as session:
        await asyncio.gather(*(one(session, i) for i in range(count)))
    return statuses


async def honest_writes(base: str, devices: list[Device], count: int, seconds: float, kind: str) -> dict:
    """``count`` devices each send one answer (``kind`` "answer", with its ticket) or one solve
    ("solved", with a ticket if the hall sent one for the exercise), spread over ``seconds``,
    each from its own address through ``base``, once: the statuses of the first try."""
    statuses: dict[str, int] = {}

    async def one(i: int):
        device = devices[i]
        await asyncio.sleep(i * seconds / max(1, count))
        if kind == "answer":
            try:
                await asyncio.wait_for(device.admitted.wait(), seconds + 5)
            except TimeoutError:  # its stream never brought a ticket: it cannot answer
                statuses["no ticket"] = statuses.get("no ticket", 0) + 1
                return
            body = {"token": f"{0xA0000000 + i:032x}", "poll": POLL, "answer": i % 2, "ticket": device.ticket}
        else:
            body = {"token": f"{0xB0000000 + i:032x}", "exercise": EXERCISE}
            if EXERCISE in device.tickets:
                body["ticket"] = device.tickets[EXERCISE]
        connector = aiohttp.TCPConnector(local_addr=(honest_address(i), 0), force_close=True)
        timeout = aiohttp.ClientTimeout(total=10)
        async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
            try:
                async with session.post(
                    hall_url(base, kind), json=body, headers={"Origin": base.rstrip("/")}
                ) as r:
                    key = str(r.status)
            except (aiohttp.ClientError, TimeoutError):
                key = "error"
        statuses[key] = statuses.get(key, 0) + 1

    await asyncio.gather(*(one(i) for i in range(count)))
    return dict(sorted(statuses.items()))


async def run_hostile(args) -> dict:
    """The hostile mode: one hall process (SQLite, its default limits) behind Caddy running
    deploy/hall.caddy with ``--trust-proxy 127.0.0.1``; every process started here is stopped by
    its PID."""
    from tests.support.caddy import Caddy

    if shutil.which("caddy") is None:
        raise SystemExit("the hostile mode needs caddy (Debian's package caddy)")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        caddy = Caddy.documented(folder / "caddy", [])
        proc = None
        try:
            extra = (
                "--trust-proxy",
                "127.0.0.1",
                "--audience-url",
                caddy.url,
                "--event-loop",
                args.event_loop,
            )
            proc, own, token = start_hall(folder, args.devices, *extra, caps=False, nofile=args.hall_nofile)
            caddy.env["HALL_UPSTREAMS"] = urlsplit(own).netloc
            caddy.start()
            result = await measure_hostile(args, proc, own, caddy.url, token)
            return {"mode": "hostile", "event_loop": args.event_loop, **result}
        finally:
            caddy.stop()
            stop(proc)


async def measure_hostile(args, proc: subprocess.Popen, own: str, base: str, token: str) -> dict:
    stop = asyncio.Event()
    hall = urlsplit(own)
    target = (
        (hall.hostname, hall.port)
        if args.slowloris_target == "hall"
        else (urlsplit(base).hostname, urlsplit(base).port)
    )
    t0 = time.perf_counter()
    slow = await slowloris(*target, args.slowloris, stop)
    slow_s = time.perf_counter() - t0
    devices = [Device(i) for i in range(args.devices)]
    tasks = []
    t0 = time.perf_counter()
    for start in range(0, len(devices), WAVE):  # the honest devices arrive in waves, as a hall fills in
        wave = list(enumerate(devices))[start : start + WAVE]
        tasks += [asyncio.create_task(d.follow_raw(base, stop, honest_address(i))) for i, d in wave]
        await asyncio.wait_for(asyncio.gather(*(d.connected.wait() for _, d in wave)), 120)
    connect_s = time.perf_counter() - t0
    await asyncio.sleep(2.5)
    cpu0, _ = proc_usage(proc.pid)
    sent: dict[int, float] = {}
    moved, answered, solved, flooded = await asyncio.gather(
        presenter(base, token, args.moves, args.seconds, sent),
        honest_writes(base, devices, args.answers, args.seconds, "answer"),
        honest_writes(base, devices, args.solves, args.seconds, "solved"),
        flood(base, args.flood_rate, args.seconds),
    )
    await asyncio.sleep(2.0)  # the last moves' delivery
    cpu1, rss = proc_usage(proc.pid)
    held = sum(1 for s in slow if not s.closed)
    stop.set()
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for s in slow:
        if not s.closed:
            s.transport.close()
    latencies = [(d.received[s] - sent[s]) * 1000 for d in devices for s in sent if s in d.received]
    missing = sum(1 for d in devices for s in sent if s not in d.received)
    p95 = p95_with_missing(latencies, missing)
    flood_sent = sum(flooded.values())
    return {
        "devices": args.devices,
        "connected": sum(1 for d in devices if d.error is None or d.received),
        "stream_errors": sorted({d.error for d in devices if d.error}),
        "connect_s": round(connect_s, 2),
        "slowloris": args.slowloris,
        "slowloris_target": args.slowloris_target,
        "slowloris_opened": len(slow),
        "slowloris_open_s": round(slow_s, 2),
        "slowloris_held": held,
        "seconds": args.seconds,
        "moves": args.moves,
        "move_rate": args.moves / args.seconds,
        "move_statuses": sorted(set(moved)),
        "deliveries": len(latencies),
        "missing": missing,
        "delivery_p95_ms": None if p95 == float("inf") else round(p95, 1),  # None: never delivered
        "delivery_ms": {"p50": round(pct(latencies, 0.5), 1), "max": round(max(latencies), 1)}
        if latencies
        else None,
        "honest_answers": answered,
        "answer_rate": args.answers / args.seconds,
        "honest_solves": solved,
        "solve_rate": args.solves / args.seconds,
        "flood": flooded,
        "flood_sent": flood_sent,
        "flood_rate": flood_sent / args.seconds,
        "server_cpu_s": round(cpu1 - cpu0, 2),
        "server_rss_mib": round(rss / 2**20, 1),
        "cores": os.cpu_count(),
    }


def _add_hostile_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of the hostile mode (``--hostile``): the attacker's slow connections and flood."""
    hostile = parser.add_argument_group("the hostile mode (--hostile)")
    hostile.add_argument(
        "--hostile",
        action="store_true",
        help=f"one address ({ATTACKER}) holds a slowloris and floods answers while the devices, each "
        "from its own loopback address, follow, answer and solve through Caddy (deploy/hall.caddy)",
    )
    hostile.add_argument("--slowloris", type=int, default=2000, help="slow connections held (default 2000)")
    hostile.add_argument(
        "--slowloris-target",
        choices=("hall", "caddy"),
        default="hall",
        help="where the slow connections go: the hall's own port (default: a hall its devices reach "
        "directly too) or Caddy's",
    )
    hostile.add_argument(
        "--flood-rate", type=float, default=200.0, help="the attacker's answers per second (default 200)"
    )
    hostile.add_argument("--solves", type=int, help="honest solves (default: as many as --answers)")
    hostile.add_argument(
        "--hall-nofile",
        type=int,
        help="the hall process's open-files limit (1024 is a laptop's default; default: this process's)",
    )


def parse_args(argv=None) -> argparse.Namespace:
    """The command line, checked: every count and time bounded (``parser.error`` otherwise)."""
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
        help="the halls' event loop (dpdeck.hall.eventloop); repeat it to measure each loop "
        "side by side in one invocation (default: auto, uvloop where installed)",
    )
    parser.add_argument(
        "--pace",
        choices=("bench", "presenter", "both"),
        default="bench",
        help="bench: --moves over --seconds (default); presenter: one move a second (--moves "
        "seconds); both: each in turn. The delivery target is printed for each run",
    )
    parser.add_argument("--out", type=Path, help="write the runs, their targets and the deck's pace as JSON")
    parser.add_argument("--note", default="", help="a note kept with --out (the machine's state, say)")
    parser.add_argument(
        "--report", type=Path, metavar="RESULTS.json", help="print the targets of an earlier --out again"
    )
    _add_hostile_arguments(parser)
    args = parser.parse_args(argv)
    args.event_loops = args.event_loops or ["auto"]
    args.solves = args.answers if args.solves is None else args.solves
    args.paces = ["bench", "presenter"] if args.pace == "both" else [args.pace]
    if "presenter" in args.paces and args.moves > 120:
        parser.error("--pace presenter is one move a second: at most 120 moves (120 s)")
    if not (1 <= args.devices <= 10_000 and 1 <= args.moves <= 1000 and 0 <= args.answers <= 10_000):
        parser.error("bounded: at most 10 000 devices, 1000 moves, 10 000 answers")
    if not 0.5 <= args.seconds <= 120:
        parser.error("--seconds: 0.5 to 120")
    if not 1 <= args.processes <= 8 or (args.processes > 1 and not args.redis):
        parser.error("1 to 8 processes; more than one share a hall only with --redis")
    if args.answers > args.devices or args.solves > args.devices:
        parser.error("one answer and one solve per device: --answers and --solves ≤ --devices")
    if args.hostile:
        if args.redis or args.processes > 1 or len(args.event_loops) > 1:
            parser.error(
                "--hostile measures one hall process behind Caddy: no --redis, --processes, second --event-loop"
            )
        if args.devices > 2000 or not 0 <= args.slowloris <= 5000 or not 0 < args.flood_rate <= 2000:
            parser.error(
                "--hostile is bounded: at most 2000 devices (8 loopback /24s), 5000 slow connections, 2000 answers/s"
            )
        if args.hall_nofile is not None and not 64 <= args.hall_nofile <= 1_000_000:
            parser.error("--hall-nofile: 64 to 1 000 000")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.report:
        print(pace_report(json.loads(args.report.read_text())))
        return 0
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)  # a stream is an open file at each end
    need = 2 * args.devices + (2 * args.slowloris if args.hostile else 0) + 1000
    if soft < need:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, need), hard))
    if args.hostile:
        args.event_loop = args.event_loops[0]
        result = eventloop.run(asyncio.wait_for(run_hostile(args), HARD_LIMIT), args.event_loop)
        verdicts = hostile_verdicts(result)
        print(json.dumps({**result, "verdicts": verdicts}, indent=2, ensure_ascii=False))
        print("The hall under attack (bench/live_load.py --hostile):")
        print("\n".join(target_lines(verdicts)))
        print(rates_line(result))
        return 0 if all(v["ok"] for v in verdicts.values()) else 1
    load_before, commit = os.getloadavg(), git_commit()  # the tree measured: as it is when the run starts
    started = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    runs = len(args.event_loops) * len(args.paces)
    results = eventloop.run(asyncio.wait_for(run_all(args), HARD_LIMIT * runs))
    print(json.dumps(results if len(results) > 1 else results[0], indent=2, ensure_ascii=False))
    doc = {
        "meta": {
            "date": started,
            "git": commit,
            "command": " ".join(sys.argv[1:] if argv is None else argv),
            "cores": os.cpu_count(),
            "load_average_before": [round(x, 2) for x in load_before],
            "load_average_after": [round(x, 2) for x in os.getloadavg()],
            "note": args.note,
        },
        "runs": results,
        "verdicts": pace_verdicts(results),
        "deck_pace": deck_pace(),
    }
    print(pace_report(doc))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
        print(f"wrote {args.out}")
    return 0 if all(r["missing"] == 0 and not r["stream_errors"] for r in results) else 1


async def run_all(args) -> list[dict]:
    """The run asked for, at each pace and on each event loop asked for; with ``--redis``, each
    preceded by the single-process SQLite baseline at the same pace on the same loop."""
    results = []
    for which in args.paces:
        for event_loop in args.event_loops:
            this = argparse.Namespace(
                **{
                    **vars(args),
                    "event_loop": event_loop,
                    "pace": which,
                    "seconds": pace_seconds(args, which),
                }
            )
            if args.redis:
                n = min(args.baseline_devices, args.devices)
                baseline = argparse.Namespace(**{**vars(this), "devices": n, "answers": min(args.answers, n)})
                results.append({**await run(baseline, 1, False), "baseline": True})
                print(json.dumps(results[-1], ensure_ascii=False), flush=True)  # kept if a later run overruns
            results.append({**await run(this, args.processes, args.redis), "baseline": False})
            print(json.dumps(results[-1], ensure_ascii=False), flush=True)
    return results


# --- the paces (issue 49): the bench's default, and a presenter's real one ---

PACES = {
    "bench": "the bench's default pace: --moves over --seconds (60 moves in 10 s, six a second)",
    "presenter": "a presenter's real pace, one move a second: --moves over --moves seconds",
}


def pace_seconds(args, which: str) -> float:
    """The seconds the presenter's ``--moves`` take at pace ``which`` (``PACES``)."""
    return float(args.seconds) if which == "bench" else float(args.moves)


def configuration(result: dict) -> str:
    """A run's hall in words: its devices, processes and store."""
    if result["store"] == "redis":
        return f"{result['devices']} devices, {result['processes']} processes + Redis"
    return f"{result['devices']} devices, {result['processes']} process (SQLite)"


def pace_verdicts(results: list[dict]) -> dict:
    """Per run, the moves delivered p95 ≤ ``DELIVERY_P95_MS`` at its pace, held or missed with
    the margin (``delivery_target``), keyed ``L-<pace>`` (the configuration measured) or
    ``L-<pace>-baseline`` (the single-process run before it), with an event loop's name when
    several were measured. Each verdict names its run in ``target``."""
    loops = {r["event_loop"] for r in results}
    out = {}
    for r in results:
        key = f"L-{r['pace']}" + ("-baseline" if r.get("baseline") else "")
        key += f"-{r['event_loop']}" if len(loops) > 1 else ""
        out[key] = {
            **delivery_target(r),
            "target": f"{configuration(r)}, {r['moves']} moves in {r['seconds']:g} s "
            f"({r['move_rate']:g}/s): moves delivered p95 ≤ {DELIVERY_P95_MS:.0f} ms",
        }
    return out


def deck_pace() -> dict | str:
    """The deck's own pace (bench/pace.py), or why it could not be counted."""
    try:
        return pace.pace(pace.count_slides(pace.render_deck(ROOT)))
    except Exception as exc:  # the deck or its templates missing: said, not fatal to the bench
        return f"not counted ({type(exc).__name__}: {exc})"


def pace_report(doc: dict) -> str:
    """The targets at each pace, and what a real presenter's burst is, from a results document."""
    lines = ["The hall's delivery target at each pace (bench/live_load.py):"]
    lines += target_lines(doc["verdicts"])
    lines.append("What a presenter's burst is, from the deck (bench/pace.py):")
    burst = doc.get("deck_pace")
    lines += pace.describe(burst) if isinstance(burst, dict) else [f"  {burst}"]
    meta = doc.get("meta", {})
    if meta.get("note"):
        lines.append(f"  note: {meta['note']}")
    return "\n".join(lines)


def git_commit() -> str:
    """The tree measured: its short commit, ``+dirty`` with changes not committed."""

    def git(*cmd: str) -> str:
        return subprocess.run(["git", *cmd], cwd=ROOT, capture_output=True, text=True).stdout.strip()

    try:
        return git("rev-parse", "--short", "HEAD") + ("+dirty" if git("status", "--porcelain") else "")
    except OSError:
        return "?"


if __name__ == "__main__":
    sys.exit(main())
