"""`build.py serve` (dpdeck/serve/server.py) and hostile requests: every one gets an answer (400,
404, 414 or 431), never a dropped connection, nothing outside the served folder leaks, and the
server goes on serving other clients meanwhile and afterwards."""

from __future__ import annotations

import socket
import time

import pytest

from dpdeck.serve.server import serve_in_thread
from dpdeck.serve.staticfiles import MAX_TARGET_CHARS
from tests.support.static_servers import raw_request

SECRET = b"fuera de dist: nunca se sirve"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = tmp_path_factory.mktemp("serve")
    (root / "secret.txt").write_bytes(SECRET)
    dist = root / "dist"
    (dist / "static").mkdir(parents=True)
    (dist / "index.html").write_text("<!doctype html><title>deck</title>")
    (dist / "static" / "app.js").write_text("export const x = 1;\n" * 100)
    srv, url = serve_in_thread(dist)
    host, port = srv.server_address[:2]
    yield host, port
    srv.shutdown()


def _exchange(server, raw: bytes, timeout: float = 10.0) -> bytes:
    """Send ``raw`` on a new connection; everything the server answers until it closes."""
    return raw_request(server, raw, timeout)


def _get(server, target: str | bytes, headers: bytes = b"") -> tuple[int, bytes, bytes]:
    """(status, head, body) of ``GET target``; status 0 when the connection was dropped."""
    target = target.encode("latin-1") if isinstance(target, str) else target
    answer = _exchange(
        server, b"GET " + target + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + headers + b"\r\n"
    )
    if not answer:
        return 0, b"", b""
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), head, body


def _still_serving(server) -> None:
    status, _, body = _get(server, "/static/app.js")
    assert status == 200 and body.startswith(b"export const x")


@pytest.mark.parametrize(
    "target",
    ["/%00", "/index.html%00", "/static/app.js%00.html", "/%00/../secret.txt", "/static%00/app.js"],
)
def test_an_encoded_nul_is_400(server, target):
    assert _get(server, target)[0] == 400
    _still_serving(server)


@pytest.mark.parametrize("target", ["/%0a", "/a%0d%0aSet-Cookie:%20x=1", "/%1b[2J", "/%7f"])
def test_other_control_characters_are_400(server, target):
    status, head, _ = _get(server, target)
    assert status == 400 and b"Set-Cookie" not in head
    _still_serving(server)


@pytest.mark.parametrize(
    "target",
    [
        "/%2e%2e/secret.txt",
        "/%2E%2E%2Fsecret.txt",
        "/..%2fsecret.txt",
        "/static/..%2f..%2fsecret.txt",
        "/static/%2e%2e/%2e%2e/secret.txt",
        "/../secret.txt",
        "/static/../../secret.txt",
    ],
)
def test_encoded_traversal_is_400_and_leaks_nothing(server, target):
    status, _, body = _get(server, target)
    assert status == 400 and SECRET not in body
    _still_serving(server)


def test_double_encoded_traversal_names_nothing(server):
    status, _, body = _get(server, "/%252e%252e/secret.txt")  # a folder literally named %2e%2e
    assert status == 404 and SECRET not in body


@pytest.mark.parametrize(
    "target", ["/..\\secret.txt", "/static\\app.js", "/%5c..%5csecret.txt", "/static%5Capp.js"]
)
def test_backslashes_are_400(server, target):
    status, _, body = _get(server, target)
    assert status == 400 and SECRET not in body
    _still_serving(server)


def test_invalid_percent_encoding_is_400(server):
    assert _get(server, "/%ff%fe.js")[0] == 400
    assert _get(server, "/%zz")[0] == 404  # not an escape at all: a name with a % in it
    _still_serving(server)


def test_an_over_long_path_is_414(server):
    assert _get(server, "/" + "a" * MAX_TARGET_CHARS)[0] == 414
    assert _get(server, "/" + "a/" * 300 + "app.js")[0] == 404  # long but under the cap: not there
    _still_serving(server)


def test_an_over_long_request_line_is_414(server):
    assert _get(server, "/" + "a" * 70_000)[0] == 414
    _still_serving(server)


def test_an_over_long_header_is_431(server):
    assert _get(server, "/", b"X-Big: " + b"a" * 70_000 + b"\r\n")[0] == 431
    _still_serving(server)


def test_too_many_headers_is_431(server):
    assert _get(server, "/", b"".join(b"X-H%d: 1\r\n" % i for i in range(120)))[0] == 431
    _still_serving(server)


@pytest.mark.parametrize(
    "value",
    [b"bytes=abc", b"bytes=99999999-1", b"bytes=-", b"lines=1-2", b"bytes=0-0,0-0," * 2000, b"\xff\xfe"],
)
def test_an_invalid_range_is_ignored(server, value):
    """Range is not supported: ignored (RFC 9110, 14.2), the whole file sent."""
    status, _, body = _get(server, "/static/app.js", b"Range: " + value + b"\r\n")
    assert status == 200 and body == b"export const x = 1;\n" * 100
    _still_serving(server)


def test_no_open_redirect(server):
    status, head, _ = _get(server, "//example.org/%2e%2e")
    assert status == 400 and b"example.org" not in head
    status, head, _ = _get(server, "//example.org/static")  # an empty segment: refused
    assert status == 400
    assert b"Location" not in head
    status, head, _ = _get(server, "/static")  # a folder: redirected, on this host
    assert status == 301 and b"Location: /static/\r\n" in head + b"\r\n"


def test_a_slow_client_does_not_hold_the_others(server):
    """A client that sends half a request and waits does not stop the others being served."""
    with socket.create_connection(server, timeout=10) as slow:
        slow.sendall(b"GET /static/app.js HTTP/1.1\r\nHost: x\r\n")  # never finishes
        t0 = time.monotonic()
        for _ in range(5):
            _still_serving(server)
        assert time.monotonic() - t0 < 5


@pytest.mark.parametrize("hall", [False, True], ids=["plain", "hall"])
def test_a_port_in_use_is_one_spanish_line_and_exit_code_4(tmp_path, monkeypatch, capsys, hall):
    """Issue 33, item 20: `serve` on a port another server holds printed an OSError traceback."""
    from dpdeck import cli
    from dpdeck.build.site import Project
    from tests.support.hall_fixtures import make_dist, on_fresh_thread

    make_dist(tmp_path)
    monkeypatch.setattr(cli, "_dist_is_stale", lambda project: False)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        argv = [
            "serve",
            "--port",
            str(port),
            *(["--hall", "--hall-db", str(tmp_path / "h.sqlite3")] if hall else []),
        ]
        # on a thread of its own, as in the full suite Playwright holds the main thread's loop
        code = on_fresh_thread(lambda: cli.main(argv, project=Project(tmp_path)))
    err = capsys.readouterr().err
    assert code == cli.EXIT_PORT_TAKEN == 4
    assert f"el puerto {port} ya está en uso" in err and f"--port {port + 1}" in err
    assert "Traceback" not in err and "OSError" not in err


def test_the_hall_probe_is_answered_no_hall_without_a_404(server):
    """Issue 33, item 20: every page load logged `GET /_hall/hello 404` (the server's log and the
    browser's console). The plain server says "no hall" with a 204 and nothing cached."""
    for target in ("/_hall/hello", "/_hall/hello?x=1"):
        status, head, body = _get(server, target)
        assert status == 204 and body == b"" and b"no-store" in head.lower()
    assert _get(server, "/_hall/events")[0] == 404  # the rest of /_hall/ is still nothing here
