"""The hall for a deck on another origin (issue 30): CORS for the origins it is told and a
refusal for every other, a hall alone (``--live``), the audience URL it is told, and the
client's address behind a trusted reverse proxy."""

from __future__ import annotations

import json

from dpdeck.hall.limits import Limits, Rate
from dpdeck.hall.messages import LiveSpec
from tests.support.hall_fixtures import DEV, LIVE, admit, bearer, make_hall, read_events, run_with_client

DECK = "https://deck.example.edu"
EVIL = "https://evil.example"
ANSWER = {"token": DEV[0], "poll": "copia", "answer": 1}


def _told(tmp_path, **limits):
    hall = make_hall(tmp_path, limits=Limits(**limits) if limits else None)
    hall.allow_origins = frozenset({DECK})
    return hall


def test_the_deck_origin_may_read_every_answer_of_the_hall(tmp_path):
    hall = _told(tmp_path)
    answer_body = {**ANSWER, "ticket": admit(hall, "copia", [DEV[0]])[0]}

    async def scenario(client):
        seen = {}
        for path in ("/_hall/hello", "/_hall/qr.svg"):
            r = await client.get(path, headers={"Origin": DECK})
            seen[path] = (r.status, r.headers.get("Access-Control-Allow-Origin"), r.headers.get("Vary"))
        stream = await client.get(f"/_hall/events?device={DEV[1]}", headers={"Origin": DECK})
        seen["events"] = (stream.status, stream.headers.get("Access-Control-Allow-Origin"), None)
        assert [name for name, _ in await read_events(stream, 2)] == ["devices", "tally"]
        stream.close()
        answer = await client.post("/_hall/answer", json=answer_body, headers={"Origin": DECK})
        again = await client.post("/_hall/answer", json=answer_body, headers={"Origin": DECK})
        state = await client.post(
            "/_hall/state",
            json={"seq": 5, "indexh": 1, "indexv": 0, "indexf": -1},
            headers={**bearer(), "Origin": DECK},
        )
        for name, r in (("answer", answer), ("again", again), ("state", state)):
            seen[name] = (r.status, r.headers.get("Access-Control-Allow-Origin"), None)
        return seen

    seen = run_with_client(hall, scenario)
    assert seen["/_hall/hello"] == (200, DECK, "Origin")
    assert seen["/_hall/qr.svg"] == (200, DECK, "Origin")
    # a stream, a 201, a 409 and the presenter's 204: every answer is readable by the deck
    assert seen["events"] == (200, DECK, None)
    assert seen["answer"] == (201, DECK, None) and seen["again"] == (409, DECK, None)
    assert seen["state"] == (204, DECK, None)


def test_a_preflight_grants_json_and_the_bearer_token_to_the_deck_only(tmp_path):
    def ask(origin, method="POST", headers="content-type,authorization"):
        h = {"Access-Control-Request-Method": method, "Access-Control-Request-Headers": headers}
        return {**h, "Origin": origin}

    async def scenario(client):
        out = []
        for headers in (
            ask(DECK),
            ask(EVIL),
            ask(DECK, method="DELETE"),
            ask(DECK, headers="content-type,x-custom"),
            ask("null"),
        ):
            r = await client.options("/_hall/answer", headers=headers)
            out.append((r.status, dict(r.headers)))
        return out

    (ok, *refused) = run_with_client(_told(tmp_path), scenario)
    assert ok[0] == 204
    assert ok[1]["Access-Control-Allow-Origin"] == DECK
    assert set(ok[1]["Access-Control-Allow-Methods"].split(", ")) == {"GET", "POST"}
    assert {h.lower() for h in ok[1]["Access-Control-Allow-Headers"].split(", ")} == {
        "content-type",
        "authorization",
    }
    assert "Access-Control-Allow-Credentials" not in ok[1]
    assert [status for status, _ in refused] == [403] * 4
    assert not any("Access-Control-Allow-Origin" in headers for _, headers in refused)


def test_every_other_origin_is_refused_before_the_hall_does_anything(tmp_path):
    hall = _told(tmp_path, max_streams_per_address=1)

    async def scenario(client):
        statuses = [
            (await client.get(path, headers={"Origin": EVIL})).status
            for path in ("/_hall/hello", "/_hall/qr.svg", f"/_hall/events?device={DEV[2]}")
        ]
        statuses.append((await client.post("/_hall/answer", json=ANSWER, headers={"Origin": EVIL})).status)
        # the refused stream took no place: this address's one stream is still free
        stream = await client.get(f"/_hall/events?device={DEV[3]}")
        statuses.append(stream.status)
        stream.close()
        return statuses, await hall.store.counts("copia", 2)

    assert run_with_client(hall, scenario) == ([403, 403, 403, 403, 200], [0, 0])


def test_a_hall_alone_serves_no_deck_and_reads_the_polls_from_live_json(tmp_path):
    live = tmp_path / "elsewhere" / "live.json"
    live.parent.mkdir()
    live.write_text(json.dumps(LIVE), encoding="utf-8")
    hall = _told(tmp_path)
    hall.dist, hall.spec = None, LiveSpec.read(live)
    answer_body = {**ANSWER, "ticket": admit(hall, "copia", [DEV[0]])[0]}

    async def scenario(client):
        page = await client.get("/")
        index = await client.get("/index.html")
        hello = await client.get("/_hall/hello", headers={"Origin": DECK})
        answer = await client.post("/_hall/answer", json=answer_body, headers={"Origin": DECK})
        return page.status, await page.text(), index.status, hello.status, answer.status

    status, text, index, hello, answer = run_with_client(hall, scenario)
    assert (status, index, hello, answer) == (404, 404, 200, 201)
    assert "<" not in text and "otra dirección" in text


def test_behind_a_trusted_proxy_each_client_is_counted_by_its_own_address(tmp_path):
    """One stream per address: through a proxy every device would share the proxy's address;
    told to trust it, the hall counts the address it forwards, and only from that proxy."""

    async def scenario(client):
        out = []
        for forwarded in ("192.0.2.10", "192.0.2.11", "192.0.2.10"):
            r = await client.get(
                f"/_hall/events?device={DEV[len(out)]}", headers={"X-Forwarded-For": f"10.9.9.9, {forwarded}"}
            )
            out.append(r.status)
        return out

    trusting = _told(tmp_path / "a", max_streams_per_address=1)
    trusting.trusted_proxies = frozenset({"127.0.0.1"})
    assert run_with_client(trusting, scenario) == [200, 200, 429]
    # not told: the header is anybody's to write, and is ignored
    assert run_with_client(_told(tmp_path / "b", max_streams_per_address=1), scenario) == [200, 429, 429]


def test_a_hall_alone_prints_and_draws_the_decks_audience_url(tmp_path):
    """``python -m dpdeck.hall --live … --audience-url …``: the URL the hall prints, announces
    in ``hello`` and draws as the QR code is the deck's, wherever it is served."""
    import urllib.request

    from tests.support.hall_process import HallProcess

    live = tmp_path / "live.json"
    live.write_text(json.dumps(LIVE), encoding="utf-8")
    deck = "https://uni.github.io/clase-dp/"
    process = HallProcess.alone(live, tmp_path / "hall.sqlite3", tmp_path / "token", "--audience-url", deck)
    process.start()
    try:
        assert process.audience == deck and process.presenter.startswith(deck + "#presenter=")
        hall_url = "http://127.0.0.1:" + process.banner.split("127.0.0.1:")[1].split("/")[0] + "/"
        with urllib.request.urlopen(hall_url + "_hall/hello", timeout=10) as r:
            assert json.load(r)["audience"] == [deck]
    finally:
        process.stop()


def test_the_deck_origin_may_read_a_refusals_retry_after(tmp_path):
    """The page's resend waits what ``Retry-After`` says (retry.js); a page on another origin
    reads that header only when the answer exposes it."""
    hall = _told(tmp_path, device=Rate(burst=1, per_second=0.01))
    tickets = admit(hall, "copia", DEV[:2])

    async def scenario(client):
        headers = {"Origin": DECK}
        out = []
        for i in range(2):  # the second from the same token: rate limited, 429
            body = {**ANSWER, "ticket": tickets[i]}
            r = await client.post("/_hall/answer", json=body, headers=headers)
            out.append((r.status, r.headers.get("Access-Control-Expose-Headers")))
        return out

    assert run_with_client(hall, scenario) == [(201, "Retry-After"), (429, "Retry-After")]
