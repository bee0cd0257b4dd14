"""The hall's memory in Redis (``redis.asyncio``): one hall shared by several processes (``--hall-redis URL``).

The same ``Store`` as ``store.SqliteStore``, with every step that must hold across processes made
atomic in Redis itself:

- the presenter's position: a hash, its ``seq`` read under WATCH and the position written in one
  MULTI only when the seq rule ``state.keeps`` says so (retried if another process wrote meanwhile);
- the events: Redis pub/sub, one channel; every process relays what it hears to its own streams
  (and, after reconnecting, sends its streams the current position, which followers apply only
  if it is newer);
- a poll's answers: a set of its answer tokens and a hash of counts, one Lua script adds the token
  and counts it only if the token was new (each token once);
- the solves: a set of solve tokens per exercise, and the admission tickets they spent (one
  solve per device and exercise; a ticket is not linked to any device: admission.py);
- the released counts: a list, appended under WATCH/MULTI after ``release.decide`` ran on what
  was read (retried if another process released meanwhile: one budget, spent once);
- the devices count: each process writes its own number of devices (a number, never an id) with
  an expiry, renewed each time it reads the count (the hall does every 2 s); the count is the sum
  of the live entries, so a killed process's devices leave the count within ``DEVICE_TTL_MS``. A device with tabs on two
  processes counts once on each;
- the rate limit per answer or solve token: a token bucket in a Lua script, with an expiry.

Nothing identifying goes in: no device id (it opens a stream and is counted in the process's
memory), no address (the per-address and per-connection limits stay in each process's memory),
no user agent. Keys are ``<prefix>state``, ``<prefix>kept`` (the presenter's last broadcast of each
kept event, JSON by event name), ``<prefix>answers:<poll>``, ``<prefix>tally:<poll>``,
``<prefix>solves:<exercise>``, ``<prefix>releases``, ``<prefix>devices``, ``<prefix>rate:<token>``
and the channel ``<prefix>events``. Redis unreachable (restarting, loading its append-only file)
is ``Unavailable``: the request gets a 503 and the page may send it again.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import secrets
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from typing import Any, Concatenate, ParamSpec, TypeVar

import redis.asyncio as aioredis
from redis.asyncio.client import Pipeline
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.commands.core import AsyncScript
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError, WatchError
from redis.exceptions import TimeoutError as RedisTimeoutError

from .admission import Pool, Tickets, poll_scope
from .limits import Rate
from .state import keeps
from .store import STATE_FIELDS, Decide, OnEvent, StoreFull, Unavailable

S = TypeVar("S")
T = TypeVar("T")
P = ParamSpec("P")
# what an atomic step writes, queued on the pipeline inside MULTI (``RedisStore._atomic``)
Write = Callable[["Pipeline"], object]

log = logging.getLogger("dpdeck.hall")
LISTEN_WAIT = 2.0  # seconds the listener waits for a message before it looks again
POOL_SIZE = 32  # connections to Redis per process (plus one for the channel)
WAITAOF_SINCE = (7, 2)  # the first Redis with WAITAOF
WAITAOF_MS = 2000  # the longest a release waits for Redis's fsync
POOL_WAIT = 10.0  # seconds a request waits for one of them before its 503
DEVICE_TTL_MS = 6000  # a process silent this long is counted no more (it renews every 2 s)
RECONNECT = 0.2  # seconds between two tries to subscribe again

_NOW_MS = "local t = redis.call('TIME') local now = t[1] * 1000 + math.floor(t[2] / 1000)\n"
# a solve: KEYS the exercise's solve tokens, its spent tickets; ARGV the token, the ticket. 1: counted;
# 0: a resend (the token kept already) or a ticket spent already (this device counted already)
ADD_SOLVED = """
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return 0 end
if redis.call('SADD', KEYS[2], ARGV[2]) == 0 then return 0 end
redis.call('SADD', KEYS[1], ARGV[1])
return 1
"""
ADD_ANSWER = """
if redis.call('SADD', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HINCRBY', KEYS[2], ARGV[2], 1)
return 1
"""
DEVICES = (
    _NOW_MS
    + """
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. ' ' .. (now + tonumber(ARGV[3])))
local total, all = 0, redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  local n, expires = string.match(all[i + 1], '(%d+) (%d+)')
  if tonumber(expires) < now then redis.call('HDEL', KEYS[1], all[i]) else total = total + tonumber(n) end
end
return total
"""
)
TAKE = (
    _NOW_MS
    + """
local burst, rate = tonumber(ARGV[1]), tonumber(ARGV[2])
local kept = redis.call('HMGET', KEYS[1], 't', 's')
local tokens = math.min(burst, (tonumber(kept[1]) or burst) + (now - (tonumber(kept[2]) or now)) * rate / 1000)
local ok = 0
if tokens >= 1 then tokens = tokens - 1 ok = 1 end
redis.call('HSET', KEYS[1], 't', tostring(tokens), 's', now)
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)
return ok
"""
)


def _guarded(
    method: Callable[Concatenate[S, P], Awaitable[T]],
) -> Callable[Concatenate[S, P], Coroutine[Any, Any, T]]:
    """Redis unreachable (a refused or broken connection, a timeout, loading): ``Unavailable``;
    Redis refusing writes (MISCONF: its append-only file or snapshot cannot be written; OOM):
    ``StoreFull``."""

    async def call(self: S, /, *args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return await method(self, *args, **kwargs)
        except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
            raise Unavailable(type(exc).__name__) from None
        except ResponseError as exc:  # MISCONF: cannot write its files (a full disk); OOM: maxmemory
            if str(exc).startswith(("MISCONF", "OOM")):
                raise StoreFull(str(exc).split(".")[0]) from None
            raise

    functools.update_wrapper(call, method)
    return call


class RedisStore:
    """``Store`` over one Redis (``redis://host:port/db``); every key under ``prefix``."""

    def __init__(self, url: str, prefix: str = "hall:"):
        self.url = url
        self.prefix = prefix
        self.description = f"{url} (Redis, keys {prefix}*)"
        self.shared = True
        self.process = secrets.token_hex(8)  # this process's devices entry: random, nothing else
        self.redis: aioredis.Redis | None = None
        self.on_event: OnEvent = lambda event, data: None
        self.tasks: list[asyncio.Task[None]] = []
        self.scripts: dict[str, AsyncScript] = {}
        self.closing = False
        self.waitaof = False  # a release waits for Redis's fsync (set by open: _durability)

    @property
    def client(self) -> aioredis.Redis:
        """The open client; ``Unavailable`` (503) when the store is closed or not open yet."""
        if self.redis is None:
            raise Unavailable("the hall's Redis store is not open")
        return self.redis

    def key(self, *parts: str) -> str:
        return self.prefix + ":".join(parts)

    async def open(self, on_event: OnEvent) -> None:
        self.on_event = on_event
        self.closing = False
        # a bounded pool: a thousand streams opening at once wait for a connection, they do not
        # open a thousand connections to Redis
        pool = aioredis.BlockingConnectionPool.from_url(
            self.url,
            max_connections=POOL_SIZE,
            timeout=POOL_WAIT,
            socket_timeout=5.0,
            socket_connect_timeout=2.0,
            retry=Retry(ExponentialBackoff(cap=0.1, base=0.02), 2),
            decode_responses=True,
        )
        self.redis = aioredis.Redis(connection_pool=pool)
        self.scripts = {
            name: self.redis.register_script(source)
            for name, source in (
                ("answer", ADD_ANSWER),
                ("solved", ADD_SOLVED),
                ("devices", DEVICES),
                ("take", TAKE),
            )
        }
        await self.redis.ping()  # a wrong URL fails at start, not at the first answer
        self.waitaof = await self._durability()
        subscribed = asyncio.Event()
        self.tasks = [asyncio.create_task(self._listen(subscribed))]
        await asyncio.wait_for(subscribed.wait(), 10)

    async def _durability(self) -> bool:
        """Whether a release can wait for Redis's append-only file to be on disk (``WAITAOF``,
        Redis 7.2 and later, with ``appendonly yes``); when it cannot, the terminal says what
        a released count's durability rests on instead."""
        server = await self.client.info("server")
        persistence = await self.client.info("persistence")
        version = tuple(
            int(part) for part in str(server.get("redis_version", "0")).split(".")[:2] if part.isdigit()
        )
        if not persistence.get("aof_enabled"):
            log.warning(
                "Redis keeps no append-only file (appendonly no): a released count, and the budget it "
                "spent, is lost if Redis restarts"
            )
            return False
        if version < WAITAOF_SINCE:
            log.warning(
                "Redis %s has no WAITAOF (7.2 and later): a released count is on disk when Redis's "
                "appendfsync says (always: before the presenter sees it; everysec: up to about 1 s "
                "after), so with everysec a Redis crash in that second can lose it",
                server.get("redis_version"),
            )
            return False
        return True

    async def _wait_on_disk(self) -> None:
        """After a release: wait until Redis has fsynced its append-only file (``WAITAOF 1 0``),
        at most ``WAITAOF_MS``; a wait that times out is said in the terminal."""
        if not self.waitaof:
            return
        local, _ = await self.client.execute_command("WAITAOF", 1, 0, WAITAOF_MS)
        if int(local) < 1:
            log.warning("Redis had not fsynced a released count %d ms after it was kept", WAITAOF_MS)

    async def close(self) -> None:
        self.closing = True  # the listener stops even if a cancellation is lost inside redis-py
        for task in self.tasks:
            task.cancel()
        if self.tasks:
            await asyncio.wait(self.tasks, timeout=3)
        self.tasks = []
        if self.redis is not None:
            try:
                await self.client.hdel(self.key("devices"), self.process)
            except (RedisConnectionError, RedisTimeoutError, OSError):
                pass
            await self.redis.aclose()
            self.redis = None

    async def _listen(self, subscribed: asyncio.Event) -> None:
        """Relay every event of the channel to ``on_event``; subscribe again after a broken link."""
        while not self.closing:
            pubsub = self.client.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(self.key("events"))
                subscribed.set()
                state = await self.state()
                if state is not None:  # what may have been missed while away: newer or ignored
                    self.on_event("state", state)
                while not self.closing:
                    message = await pubsub.get_message(timeout=LISTEN_WAIT)
                    if message is not None and message["type"] == "message":
                        self._relay(message["data"])
            except (RedisConnectionError, RedisTimeoutError, OSError, Unavailable):
                log.warning("lost the Redis channel: subscribing again")
                await asyncio.sleep(RECONNECT)
            finally:
                try:
                    await pubsub.aclose()
                except (RedisConnectionError, RedisTimeoutError, OSError):
                    pass

    def _relay(self, raw: bytes | str) -> None:
        """One event of the shared channel to ``on_event``; one this process cannot read or does
        not declare (another version's, during a deploy) is logged and dropped: the listener goes
        on relaying the next."""
        try:
            event = json.loads(raw)
            self.on_event(event["event"], event["data"])
        except (ValueError, KeyError, TypeError) as exc:
            log.warning("dropped an event of the shared channel this process cannot relay: %s", exc)

    @_guarded
    async def state(self) -> dict[str, Any] | None:
        kept = await self.client.hgetall(self.key("state"))
        return {field: int(kept[field]) for field in STATE_FIELDS} if kept else None

    async def _atomic(self, key: str, decide: Callable[[Pipeline], Awaitable[tuple[T, Write | None]]]) -> T:
        """One atomic step on ``key``: ``await decide(pipe)`` reads under WATCH and returns its
        answer and the write to make (``write(pipe)`` queues it, None: nothing to write); the
        write goes in one MULTI, and all is done again if another process changed ``key`` meanwhile."""
        async with self.client.pipeline(transaction=True) as pipe:
            while True:
                try:
                    await pipe.watch(key)
                    answer, write = await decide(pipe)
                    if write is None:
                        await pipe.reset()
                        return answer
                    pipe.multi()
                    write(pipe)
                    await pipe.execute()
                    return answer
                except WatchError:  # another process wrote meanwhile: decide again on what it kept
                    continue

    @_guarded
    async def set_state(self, state: dict[str, Any]) -> bool:
        key = self.key("state")

        async def decide(pipe: Pipeline) -> tuple[bool, Write | None]:
            kept = await pipe.hget(key, "seq")
            if not keeps(None if kept is None else int(kept), state["seq"]):
                return False, None
            return True, lambda pipe: pipe.hset(key, mapping={field: state[field] for field in STATE_FIELDS})

        return await self._atomic(key, decide)

    @_guarded
    async def keep(self, event: str, data: dict[str, Any]) -> None:
        await self.client.hset(self.key("kept"), event, json.dumps(data))

    @_guarded
    async def kept(self) -> dict[str, dict[str, Any]]:
        return {
            _text(event): json.loads(data)
            for event, data in (await self.client.hgetall(self.key("kept"))).items()
        }

    @_guarded
    async def publish(self, event: str, data: dict[str, Any]) -> None:
        await self.client.publish(self.key("events"), json.dumps({"event": event, "data": data}))

    @_guarded
    async def add_answer(self, poll: str, token: str, answer: int) -> bool:
        keys = [self.key("answers", poll), self.key("tally", poll)]
        return bool(await self.scripts["answer"](keys=keys, args=[token, answer]) == 1)

    @_guarded
    async def counts(self, poll: str, k: int) -> list[int]:
        kept = await self.client.hgetall(self.key("tally", poll))
        return [int(kept.get(str(option), 0)) for option in range(k)]

    @_guarded
    async def reset_poll(self, poll: str) -> int:
        async with self.client.pipeline(transaction=True) as pipe:
            pipe.delete(self.key("answers", poll), self.key("tally", poll))
            pipe.incr(self.key("resets", poll))
            _, resets = await pipe.execute()
        return int(resets) + 1

    @_guarded
    async def round(self, poll: str) -> int:
        return int(await self.client.get(self.key("resets", poll)) or 0) + 1

    @_guarded
    async def has_answer(self, poll: str, token: str) -> bool:
        return bool(await self.client.sismember(self.key("answers", poll), token))

    @_guarded
    async def add_solved(self, exercise: str, token: str, ticket: str) -> bool:
        keys = [self.key("solves", exercise), self.key("solve-tickets", exercise)]
        return bool(await self.scripts["solved"](keys=keys, args=[token, ticket]) == 1)

    @_guarded
    async def session_id(self) -> str:
        await self.client.set(self.key("session"), secrets.token_hex(8), nx=True)
        return str(await self.client.get(self.key("session")))  # set above if it was not

    @_guarded
    async def solved_count(self, exercise: str) -> int:
        return int(await self.client.scard(self.key("solves", exercise)))

    @_guarded
    async def releases(self) -> list[dict[str, Any]]:
        return [json.loads(row) for row in await self.client.lrange(self.key("releases"), 0, -1)]

    @_guarded
    async def release(self, exercise: str, decide: Decide[T]) -> T:
        key = self.key("releases")

        wrote = False

        async def decide_release(pipe: Pipeline) -> tuple[T, Write | None]:
            nonlocal wrote
            past = [json.loads(row) for row in await pipe.lrange(key, 0, -1)]
            answer, row = decide(past, await pipe.scard(self.key("solves", exercise)))
            wrote = row is not None
            return answer, None if row is None else (lambda pipe: pipe.rpush(key, json.dumps(row)))

        answer = await self._atomic(key, decide_release)
        if wrote:  # on disk before the presenter sees it, where Redis can say so (_durability)
            await self._wait_on_disk()
        return answer

    @_guarded
    async def devices(self, local: int) -> int:
        args: list[str | int] = [self.process, local, DEVICE_TTL_MS]
        return int(await self.scripts["devices"](keys=[self.key("devices")], args=args))

    @_guarded
    async def take(self, key: str, rate: Rate) -> bool:
        taken = await self.scripts["take"](keys=[self.key("rate", key)], args=[rate.burst, rate.per_second])
        return bool(taken == 1)


# Admission in Redis (admission.py's interface, for several processes). KEYS: the poll's round key,
# the round's admitted devices (a set of device keys: HMACs of device ids), its spent tickets
# (set); ARGV: the round, the keys' lifetime (s), the admission window (ms), then device keys. A
# greater round replaces the kept one (the keys of round r are KEYS[1]:r:…); within ``window`` ms
# of the round's first showing every process adds the devices it holds (each sees the state that
# shows the poll); after it, or for an older round, no device is added. Returns the given devices
# that the round admitted. No ticket is stored: each is derived from the device id
# (admission.Tickets), which Redis never holds.
ADMIT = """
local kept = tonumber(redis.call('HGET', KEYS[1], 'round') or '-1')
local round = tonumber(ARGV[1])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if round > kept then
  redis.call('DEL', KEYS[1] .. ':' .. kept .. ':devices', KEYS[1] .. ':' .. kept .. ':spent')
  redis.call('HSET', KEYS[1], 'round', round, 'shown', now)
  kept = round
end
local open = round == kept and now - tonumber(redis.call('HGET', KEYS[1], 'shown')) <= tonumber(ARGV[3])
local out = {}
for i = 4, #ARGV do
  if open then redis.call('SADD', KEYS[2], ARGV[i]) end
  if redis.call('SISMEMBER', KEYS[2], ARGV[i]) == 1 then table.insert(out, ARGV[i]) end
end
redis.call('EXPIRE', KEYS[1], ARGV[2])
redis.call('EXPIRE', KEYS[2], ARGV[2])
return out
"""
# A device joins the pool: KEYS the pool (set of device keys), the address's devices (set), the
# clusters (sorted set: address key → devices); ARGV the device key, the address key, the cap per
# address. 1: in the pool (now or already), 0: its address is full. The pool lasts as long as the
# solves it bounds (no expiry: a release clips its interval at the pool's size).
JOIN = """
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return 1 end
if redis.call('SCARD', KEYS[2]) >= tonumber(ARGV[3]) then return 0 end
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('SADD', KEYS[2], ARGV[1])
redis.call('ZINCRBY', KEYS[3], 1, ARGV[2])
return 1
"""
# A ticket spent once in its round: KEYS the round key, the round's spent set; ARGV the round, the
# ticket. 1: spent now; 0: that round is not the current one, or the ticket was spent already.
REDEEM = """
if tonumber(redis.call('HGET', KEYS[1], 'round') or '-1') ~= tonumber(ARGV[1]) then return 0 end
local spent = redis.call('SADD', KEYS[2], ARGV[2])
redis.call('EXPIRE', KEYS[2], redis.call('TTL', KEYS[1]))
return spent
"""
ADMIT_WINDOW = 10.0  # seconds after a round is first shown in which the processes admit their devices
ROUND_TTL = 12 * 3600  # seconds: a round's admission outlives no lecture


class RedisAdmission:
    """``Admission`` (admission.py) shared by every process of a hall through its ``RedisStore``:
    the pool's cap per address and each round's admission hold across processes, and outlive
    the process that admitted (a device whose process was killed gets its ticket from another).
    Devices and addresses are keyed by an HMAC under ``secret`` (made from the presenter's
    token, which only the processes hold), so no device id or address reaches Redis's memory or
    its append-only file, and no ticket at all (they are derived: ``admission.Tickets``); a
    round's keys expire after ``ROUND_TTL``, the pool lasts as the solves do."""

    shared = True

    def __init__(self, store: RedisStore, secret: bytes, max_per_address: int = 300):
        self.store = store
        self.tickets = Tickets(secret)
        self.max_per_address = max_per_address
        self._scripts: dict[str, AsyncScript] = {}

    def _script(self, name: str, source: str) -> AsyncScript:
        """A Lua script registered with the store's current client (a reopened store has a new one)."""
        script = self._scripts.get(name)
        if script is None or script.registered_client is not self.store.redis:
            script = self._scripts[name] = self.store.client.register_script(source)
        return script

    def _keys(self, poll: str, round: int) -> list[str]:
        key = self.store.key
        return [
            key("admit", poll),
            key("admit", poll, str(round), "devices"),
            key("admit", poll, str(round), "spent"),
        ]

    def _device(self, device: str) -> str:
        return self.tickets.key("device", device)

    @_guarded
    async def join(self, device: str, address: str) -> bool:
        address_key = self.tickets.key("address", address)
        keys = [self.store.key("pool"), self.store.key("pool", address_key), self.store.key("pool-clusters")]
        args: list[str | int] = [self._device(device), address_key, self.max_per_address]
        return bool(await self._script("join", JOIN)(keys=keys, args=args) == 1)

    @_guarded
    async def pool(self) -> Pool:
        async with self.store.client.pipeline(transaction=False) as pipe:
            pipe.scard(self.store.key("pool"))
            pipe.zrevrange(self.store.key("pool-clusters"), 0, 0, withscores=True)
            devices, top = await pipe.execute()
        return Pool(int(devices), int(top[0][1]) if top else 0)

    @_guarded
    async def admit(self, poll: str, round: int, devices: Iterable[str]) -> dict[str, str]:
        keyed = {self._device(d): d for d in devices}
        args: list[str | int] = [round, ROUND_TTL, int(ADMIT_WINDOW * 1000), *sorted(keyed)]
        admitted = await self._script("admit", ADMIT)(keys=self._keys(poll, round), args=args)
        scope = poll_scope(poll, round)
        return {keyed[k]: self.tickets.issue(scope, keyed[k]) for k in admitted}

    @_guarded
    async def ticket(self, poll: str, round: int, device: str) -> str | None:
        if not await self.store.client.sismember(self._keys(poll, round)[1], self._device(device)):
            return None
        return self.tickets.issue(poll_scope(poll, round), device)

    @_guarded
    async def redeem(self, poll: str, round: int, ticket: str | None) -> bool:
        if ticket is None or not self.tickets.valid(poll_scope(poll, round), ticket):
            return False
        keys = self._keys(poll, round)
        return bool(await self._script("redeem", REDEEM)(keys=[keys[0], keys[2]], args=[round, ticket]) == 1)

    @_guarded
    async def give_back(self, poll: str, round: int, ticket: str) -> None:
        await self.store.client.srem(self._keys(poll, round)[2], ticket)

    @_guarded
    async def admitted(self, poll: str, round: int) -> int | None:
        kept = await self.store.client.hget(self._keys(poll, round)[0], "round")
        if kept is None or int(kept) != round:
            return None
        return await self.store.client.scard(self._keys(poll, round)[1])


def _text(value: bytes | str) -> str:
    """A hash field as Redis hands it back (bytes unless the client decodes)."""
    return value.decode() if isinstance(value, bytes) else value
