"""Admission shared by several hall processes (``redis_store.RedisAdmission``), on a real Redis.

Two admissions over one Redis stand for two processes: each admits the devices it holds when it
sees the poll shown, within the admission window; a device's ticket is the same from either; a
ticket is spent once, from either; a later round voids the earlier one's tickets; and no device
id reaches Redis's append-only file (devices are keyed by an HMAC under the processes' secret)."""

from __future__ import annotations

import pytest

from dpdeck.hall import redis_store
from dpdeck.hall.redis_store import RedisAdmission, RedisStore
from tests.support.hall_fixtures import DEV, run_async
from tests.support.redis_server import RedisServer

pytestmark = pytest.mark.skipif(not RedisServer.available(), reason="needs redis-server")
SECRET = b"s" * 32


def test_two_processes_share_one_admission_and_no_device_id_is_stored(tmp_path, monkeypatch):
    redis = RedisServer(tmp_path / "redis").start()

    async def main():
        stores = [RedisStore(redis.url, "hall-t:") for _ in range(2)]
        for store in stores:
            await store.open(lambda event, data: None)
        a, b = (RedisAdmission(store, SECRET) for store in stores)
        try:
            from_a = await a.admit("copia", 1, DEV[:3])
            from_b = await b.admit("copia", 1, DEV[3:5])  # the other process's devices, same round
            again = await b.admit("copia", 1, [DEV[0]])  # a device of both: its one ticket
            seen = {
                "admitted": await a.admitted("copia", 1),
                "same": again == {DEV[0]: from_a[DEV[0]]}
                and await b.ticket("copia", 1, DEV[0]) == from_a[DEV[0]],
                "spent": [
                    await b.redeem("copia", 1, from_a[DEV[1]]),
                    await a.redeem("copia", 1, from_a[DEV[1]]),
                ],
                "made_up": await a.redeem("copia", 1, "f" * 32),
            }
            monkeypatch.setattr(redis_store, "ADMIT_WINDOW", 0.0)  # the window closed: no one more
            late = await b.admit("copia", 1, [DEV[9]])
            seen["late"] = (late, await a.ticket("copia", 1, DEV[9]), await a.admitted("copia", 1))
            await a.admit("copia", 2, DEV[:1])  # a new round
            seen["old round"] = (await b.redeem("copia", 1, from_b[DEV[3]]), await b.admitted("copia", 1))
            return seen, from_a, from_b
        finally:
            for store in stores:
                await store.close()

    try:
        seen, from_a, from_b = run_async(main)
        raw = redis.stored_bytes()
    finally:
        redis.stop()
    assert seen["admitted"] == 5 and seen["same"]
    assert seen["spent"] == [True, False] and seen["made_up"] is False
    assert seen["late"] == ({}, None, 5)
    assert seen["old round"] == (False, None)
    assert from_a[DEV[1]].encode() in raw  # the spent ticket is there: the file was read
    # issue 46, item 7: no ticket is stored before it is spent, so nothing maps a device's key to
    # the ticket its answer spends (the ticket is derived from the device id, which is not stored)
    assert not any(from_a[d].encode() in raw for d in (DEV[0], DEV[2]))
    assert not any(from_b[d].encode() in raw for d in from_b)
    assert not any(device.encode() in raw for device in DEV[:10])


def test_the_pool_caps_devices_per_address_across_processes_and_says_the_cluster(tmp_path):
    """Issue 46, item 2: made-up device ids from one address are admitted to the hall's pool up
    to the cap, counted across processes (two admissions, one Redis), and the pool says the
    largest cluster; another address is not affected; no address reaches Redis."""
    redis = RedisServer(tmp_path / "redis").start()

    async def main():
        stores = [RedisStore(redis.url, "hall-t:") for _ in range(2)]
        for store in stores:
            await store.open(lambda event, data: None)
        a, b = (RedisAdmission(store, SECRET, max_per_address=5) for store in stores)
        try:
            joined = [await (a if i % 2 else b).join(DEV[i], "203.0.113.9") for i in range(8)]
            again = await a.join(DEV[0], "203.0.113.9")  # a device in the pool: still in
            other = await b.join(DEV[20], "198.51.100.4")
            return joined, again, other, await a.pool()
        finally:
            for store in stores:
                await store.close()

    try:
        joined, again, other, pool = run_async(main)
        raw = redis.stored_bytes()
    finally:
        redis.stop()
    assert joined == [True] * 5 + [False] * 3 and again and other
    assert (pool.devices, pool.cluster) == (6, 5)
    assert b"203.0.113.9" not in raw and b"198.51.100.4" not in raw
