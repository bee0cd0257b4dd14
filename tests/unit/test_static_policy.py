"""One static-file policy (dpdeck/serve/staticfiles.py), two servers: ``build.py serve``
(http.server) and the hall (aiohttp) answer the same raw request with the same status, and
nothing outside dist/ leaks from either."""

from __future__ import annotations

import pytest

from dpdeck.serve.staticfiles import MAX_TARGET_CHARS
from tests.support.hall_fixtures import make_hall
from tests.support.static_servers import get, hall_server, serve_py

# request target as sent → the status both servers give
TABLE = [
    # control characters, raw or encoded
    ("/%00", 400),
    ("/index.html%00", 400),
    ("/app.js%00.html", 400),
    ("/%00/../secret.txt", 400),
    ("/%0a", 400),
    ("/a%0d%0aSet-Cookie:%20x=1", 400),
    ("/%1b[2J", 400),
    ("/%7f", 400),
    ("/a\tb", 400),  # (both servers' parsers refuse it: no headers of ours)
    # parent and current segments, encoded or not
    ("/%2e%2e/secret.txt", 400),
    ("/%2E%2E%2Fsecret.txt", 400),
    ("/..%2fsecret.txt", 400),
    ("/vendor/..%2f..%2fsecret.txt", 400),
    ("/vendor/%2e%2e/%2e%2e/secret.txt", 400),
    ("/../secret.txt", 400),
    ("/vendor/../../secret.txt", 400),
    ("/vendor/../index.html", 400),
    ("/./index.html", 400),
    # encoded separators, even to a file that exists
    ("/vendor%2Fpkg-1/x.wasm", 400),
    ("/vendor%2fpkg-1%2fx.wasm", 400),
    ("/vendor%5Cpkg-1%5Cx.wasm", 400),
    # backslashes
    ("/..\\secret.txt", 400),
    ("/vendor\\pkg-1\\x.wasm", 400),
    ("/%5c..%5csecret.txt", 400),
    # empty segments (and what an open redirect needs)
    ("/vendor//pkg-1/x.wasm", 400),
    ("//example.org/%2e%2e", 400),
    ("//example.org/vendor", 400),
    # not a path at all
    ("*", 400),  # (and this one)
    ("http://example.org/app.js", 400),
    # invalid percent-encoding; not an escape at all; double encoding names nothing
    ("/%ff%fe.js", 400),
    ("/%zz", 404),
    ("/%252e%252e/secret.txt", 404),
    # lengths: the whole target counts, query included
    ("/" + "a" * MAX_TARGET_CHARS, 414),
    ("/app.js?" + "x" * MAX_TARGET_CHARS, 414),
    ("/" + "a/" * 300 + "app.js", 404),
    # outside dist/ by a symlink; a folder; not there
    ("/link.txt", 404),
    ("/vendor", 301),
    ("/vendor/", 404),
    ("/nope.js", 404),
    # what a deck asks for
    ("/", 200),
    ("/app.js?v=1", 200),
    ("/vendor/pkg-1/x%2Ewasm", 200),
]


# refused by a server's own request parser (aiohttp's, or the stdlib's for a tab) before the
# policy sees them: the same status, but not the policy's headers
PARSER_REFUSED = {"/a\tb", "*"}


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("policy")

    def hall_with_link(path):
        hall = make_hall(path)
        (hall.dist / "link.txt").symlink_to(path / "secret.txt")
        return hall

    with hall_server(hall_with_link, tmp) as (hall_address, hall), serve_py(hall.dist) as serve_address:
        yield {"serve": serve_address, "hall": hall_address}


@pytest.mark.parametrize(("target", "status"), TABLE, ids=[repr(t[:40]) for t, _ in TABLE])
def test_both_servers_give_the_same_status(servers, target, status):
    answers = {name: get(address, target) for name, address in servers.items()}
    assert {name: a[0] for name, a in answers.items()} == {"serve": status, "hall": status}
    for got, headers, body in answers.values():
        assert b"SECRET-OUTSIDE-DIST" not in body
        if target in PARSER_REFUSED:
            continue
        assert headers.get("cross-origin-embedder-policy") == "require-corp"  # every answer, errors too
        assert "html" not in headers.get("content-type", "") or got == 200
    if status == 301:
        assert answers["serve"][1]["location"] == answers["hall"][1]["location"] == target + "/"


@pytest.mark.parametrize("accept", [b"br, gzip", b"gzip", b"identity", b""])
def test_both_servers_send_the_same_headers_and_bytes(servers, accept):
    keys = ("content-type", "content-encoding", "vary", "cache-control", "content-length", "last-modified")
    for target in ("/app.js", "/vendor/pkg-1/x.wasm", "/"):
        headers = b"Accept-Encoding: " + accept + b"\r\n" if accept else b""
        (s_status, s_headers, s_body), (h_status, h_headers, h_body) = (
            get(servers[name], target, headers) for name in ("serve", "hall")
        )
        assert (s_status, s_body) == (h_status, h_body) == (200, s_body)
        assert {k: s_headers.get(k) for k in keys} == {k: h_headers.get(k) for k in keys}, target


def test_both_servers_stay_up_after_the_table(servers):
    for address in servers.values():
        assert get(address, "/app.js")[0] == 200
        assert get(address, "/app.js", method=b"HEAD")[2] == b""
