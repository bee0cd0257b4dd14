"""The hall's in-memory rate limits (dpdeck/hall/limits.py), on a fake clock."""

from __future__ import annotations

from dpdeck.hall.limits import ConnectionBuckets, KeyedBuckets, Limits, Rate, RateLimiter


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_a_bucket_allows_its_burst_then_its_rate():
    clock = Clock()
    buckets = KeyedBuckets(Rate(burst=3, per_second=2), clock=clock)
    assert [buckets.allow("a") for _ in range(4)] == [True, True, True, False]
    assert buckets.allow("b")  # another key has its own bucket
    clock.now = 0.5  # one token back
    assert [buckets.allow("a") for _ in range(2)] == [True, False]
    clock.now = 100.0  # never more than the burst
    assert [buckets.allow("a") for _ in range(4)] == [True, True, True, False]


def test_the_map_of_keys_is_bounded():
    buckets = KeyedBuckets(Rate(burst=1, per_second=0), max_keys=10, clock=Clock())
    for i in range(100):
        buckets.allow(i)
    assert len(buckets._buckets) == 10


def test_a_connection_bucket_goes_with_its_connection():
    buckets = ConnectionBuckets(Rate(burst=1, per_second=0), clock=Clock())

    class Conn:
        pass

    conn = Conn()
    assert buckets.allow(conn) and not buckets.allow(conn)
    del conn
    assert len(buckets._buckets) == 0


def test_the_limiter_draws_from_connection_and_address_then_device():
    clock = Clock()
    limiter = RateLimiter(Limits(device=Rate(2, 0), connection=Rate(3, 0), address=Rate(100, 0)), clock=clock)

    class Conn:
        pass

    conn = Conn()
    assert [limiter.allow_request("10.0.0.1", conn) for _ in range(4)] == [True, True, True, False]
    assert limiter.allow_request("10.0.0.1", Conn())  # a new connection, the same address
    assert [limiter.allow_device("d") for _ in range(3)] == [True, True, False]
