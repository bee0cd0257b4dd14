"""The hall as a real process: nothing lost across a kill -9 mid-poll, the token kept in its file,
HTTPS with --cert/--key, and the URLs it prints (LAN addresses, never 0.0.0.0)."""

from __future__ import annotations

import datetime
import json
import shutil
import sqlite3
import ssl
import subprocess
import urllib.error
import urllib.request

import pytest

from dpdeck.hall.admission import Tickets, exercise_scope, secret_from_token
from dpdeck.hall.net import audience_urls, presenter_url
from dpdeck.hall.options import HallOptions
from dpdeck.hall.run import banner, token_file
from dpdeck.hall.token import bearer_matches, load_or_create
from tests.support.hall_fixtures import DEV, make_dist, origin_of, run_async
from tests.support.hall_process import HallProcess


def _request(url, body=None, token=None, context=None):
    headers = {"Content-Type": "application/json", "Origin": origin_of(url)}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, headers=headers, method="POST" if data else "GET")
    try:
        with urllib.request.urlopen(req, timeout=10, context=context) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def _greeting(base: str, n: int) -> list[tuple[str, dict]]:
    """The first ``n`` events a new stream gets."""
    out, event = [], None
    with urllib.request.urlopen(f"{base}_hall/events?device={DEV[40]}", timeout=10) as r:
        while len(out) < n:
            line = r.readline().decode().strip()
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: "):
                out.append((event, json.loads(line[6:])))
    return out


def test_a_hall_killed_mid_poll_loses_nothing(tmp_path):
    dist = make_dist(tmp_path)
    db, token_file = tmp_path / "hall.sqlite3", tmp_path / "token"
    hall = HallProcess(dist, db, token_file).start()
    try:
        base = hall.audience
        tickets = hall.admit(DEV[20:40], 20, 1699999999999)  # the poll shown to 20 devices
        state = {"seq": 1700000000000, "indexh": 20, "indexv": 0, "indexf": 2}
        assert _request(base + "_hall/state", state, hall.token)[0] == 204
        for i in range(20):
            body = {"token": DEV[i], "poll": "copia", "answer": i % 3 % 2, "ticket": tickets[i]}
            assert _request(base + "_hall/answer", body)[0] == 201
        ticket = Tickets(secret_from_token(hall.token)).issue(exercise_scope("ex-escala"), DEV[0])
        assert (
            _request(base + "_hall/solved", {"token": DEV[0], "exercise": "ex-escala", "ticket": ticket})[0]
            == 201
        )
        hall.kill9()
        hall2 = HallProcess(dist, db, token_file, port=int(base.rsplit(":", 1)[1].strip("/"))).start()
    finally:
        hall.stop()
    try:
        assert hall2.token == hall.token  # kept in --hall-token-file: the presenter's page still holds it
        events = dict(_greeting(hall2.audience, 4))
        assert events["state"] == state
        assert events["tally"]["poll"] in ("copia", "color")
        tallies = [e for e in _greeting(hall2.audience, 4) if e[0] == "tally"]
        assert {
            "poll": "copia",
            "n": 20,
            "counts": [13, 7],
            "round": 1,
            "admitted": None,
            "cluster": None,
        } in [t[1] for t in tallies]
        assert (
            _request(hall2.audience + "_hall/answer", {"token": DEV[3], "poll": "copia", "answer": 0})[0]
            == 409
        )
        # the tickets died with the process; the round did not: the devices connected a few
        # seconds after the restart are admitted again, and one that had not answered answers
        with urllib.request.urlopen(f"{hall2.audience}_hall/events?device={DEV[45]}", timeout=15) as r:
            event = None
            while event != "admit":
                line = r.readline().decode().strip()
                event = line[7:] if line.startswith("event: ") else event
            ticket = json.loads(r.readline().decode().strip()[6:])["ticket"]
        body = {"token": DEV[45], "poll": "copia", "answer": 1, "ticket": ticket}
        assert _request(hall2.audience + "_hall/answer", body)[0] == 201
        assert sqlite3.connect(db).execute("SELECT COUNT(*) FROM solves").fetchone() == (1,)
        status, body = _request(hall2.audience + "_hall/release", {"exercise": "ex-escala"}, hall2.token)
        assert status == 200 and isinstance(json.loads(body)["value"], int)
    finally:
        hall2.stop()


def test_the_token_file_keeps_one_token_private_to_its_owner(tmp_path):
    path = tmp_path / "t" / "token"
    first = load_or_create(path)
    assert load_or_create(path) == first and len(first) == 43
    assert path.stat().st_mode & 0o077 == 0
    path.write_text("too short")
    assert load_or_create(path) != first  # an invalid file gets a new token
    assert load_or_create(None) != load_or_create(None)
    assert bearer_matches(f"Bearer {first}", first) and not bearer_matches(f"Bearer {first[:-1]}x", first)
    assert not bearer_matches(first, first) and not bearer_matches(None, first)


def test_a_wildcard_host_prints_lan_addresses_never_0_0_0_0():
    urls = audience_urls("0.0.0.0", 8000, addresses=lambda: ["192.168.1.20", "10.0.0.5"])
    assert urls == ["http://192.168.1.20:8000/", "http://10.0.0.5:8000/"]
    assert audience_urls("0.0.0.0", 8000, addresses=lambda: []) == ["http://127.0.0.1:8000/"]
    assert audience_urls("127.0.0.1", 9000, "https") == ["https://127.0.0.1:9000/"]
    real = audience_urls("0.0.0.0", 8000)
    assert real and not any("0.0.0.0" in u for u in real)


def test_the_banner_for_the_hall_network_names_lan_urls_and_the_insecure_context(tmp_path):
    dist = make_dist(tmp_path)
    hall = HallProcess(dist, tmp_path / "h.sqlite3", tmp_path / "tok", "--host", "0.0.0.0").start()
    try:
        out = hall.banner
        while "servidor estático con HTTPS" not in out:
            out += hall.proc.stdout.readline()
    finally:
        hall.stop()
    assert "0.0.0.0" not in out and "#presenter=" in out
    assert "no es un contexto seguro" in out and "--cert" in out


def test_the_presenter_url_is_loopback_a_secure_context_on_the_projectors_machine(tmp_path):
    """Issue 33, item 15: the LAN URL over plain HTTP is no secure context even on the machine
    itself; http://127.0.0.1 is. Over HTTPS the certificate names the hall's address: that URL."""
    lan = ["http://192.168.1.20:8000/", "http://10.0.0.5:8000/"]
    assert presenter_url("0.0.0.0", 8000, "http", lan) == "http://127.0.0.1:8000/"
    assert presenter_url("::", 8000, "http", lan) == "http://[::1]:8000/"
    assert presenter_url("127.0.0.1", 8000, "http", ["http://127.0.0.1:8000/"]) == "http://127.0.0.1:8000/"
    tls = ["https://192.168.1.20:8000/"]
    assert presenter_url("0.0.0.0", 8000, "https", tls) == tls[0]
    assert presenter_url("192.168.1.20", 8000, "http", lan[:1]) == lan[0]  # listens there only
    opts = HallOptions(tmp_path, host="0.0.0.0")
    db = tmp_path / "hall-x.sqlite3"
    text = banner(lan, "T" * 43, opts, str(db), token_file(opts, db))
    audience, presenter = text.split("presentador (", 1)
    assert all(url in audience for url in lan)
    assert "http://127.0.0.1:8000/#presenter=" + "T" * 43 in presenter and "192.168" not in presenter
    assert str(tmp_path / "hall-x.token") in presenter  # where the link is kept, beside the database


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl to make a certificate")
def test_https_with_a_self_signed_certificate(tmp_path):
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
         "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True, capture_output=True,
    )  # fmt: skip
    dist = make_dist(tmp_path)
    hall = HallProcess(dist, tmp_path / "h.sqlite3", tmp_path / "tok", "--cert", str(cert), "--key", str(key))
    hall.start()
    try:
        assert hall.audience.startswith("https://127.0.0.1:")
        context = ssl.create_default_context(cafile=str(cert))
        status, body = _request(hall.audience + "_hall/hello", context=context)
        assert status == 200 and json.loads(body)["hall"] == 1
        status, body = _request(hall.audience, context=context)
        assert status == 200 and body.startswith(b"<!doctype html>")
        with pytest.raises((urllib.error.URLError, ConnectionError)):  # plain HTTP is not served
            _request(hall.audience.replace("https", "http") + "_hall/hello")
    finally:
        hall.stop()


def test_a_session_is_a_clean_start_and_the_terminal_says_when_one_continues(tmp_path):
    """Issue 33, 16: a morning rehearsal used to show up in the lecture (one file per day, said
    nowhere). ``--hall-session NAME`` picks the file; the banner says a clean start, or that it
    continues and what it holds, with the flag for a clean start."""
    from dpdeck.hall.options import HallOptions
    from dpdeck.hall.run import default_db, session_name, start

    dist = make_dist(tmp_path)
    assert default_db(tmp_path, "ensayo") == tmp_path / ".hall" / "hall-ensayo.sqlite3"
    assert session_name(None) == datetime.date.today().isoformat()
    with pytest.raises(SystemExit):
        session_name("../x")

    def banner_of(session):
        async def main():
            runner, hall, _ = await start(HallOptions(dist, port=0, session=session), tmp_path)
            try:
                if session == "ensayo" and not await hall.store.counts("copia", 2) != [0, 0]:
                    await hall.store.add_answer("copia", DEV[0], 1)
                return list(hall.session_note)
            finally:
                await runner.cleanup()

        return "\n".join(run_async(main))

    first = banner_of("ensayo")
    assert "sesión «ensayo»: empieza limpia" in first and "hall-ensayo.sqlite3" in first
    again = banner_of("ensayo")
    assert "sesión «ensayo»: CONTINÚA" in again and "respuestas de encuestas: 1;" in again
    assert "--hall-session clase" in again
    assert "empieza limpia" in banner_of("clase")
