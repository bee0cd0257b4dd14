"""The hall serves dist/ as build.py serve does (dpdeck/hall/static.py, an adapter of
dpdeck/serve/staticfiles.py), and refuses hostile paths."""

from __future__ import annotations

import asyncio
import email.utils
import os

import pytest

from dpdeck.serve.staticfiles import MAX_TARGET_CHARS, decide, locate, refusal
from tests.support.hall_fixtures import make_dist, make_hall, run_async, run_with_client

HOSTILE = [
    "/a\x00b",
    "/%00",
    "/index.html%00.js",
    "/..%2fsecret.txt",
    "/%2e%2e/secret.txt",
    "/%2E%2E/secret.txt",
    "/vendor/%2e%2e/%2e%2e/secret.txt",
    "/..\\secret.txt",
    "/vendor%5c..%5c..%5csecret.txt",
    "/./index.html",
    "/vendor/../index.html",
    "/vendor//index.html",
    "/" + "a" * MAX_TARGET_CHARS,
    "/%ff%fe",
]


@pytest.mark.parametrize("raw", HOSTILE)
def test_the_policy_refuses_hostile_paths(tmp_path, raw):
    dist = make_dist(tmp_path)
    assert refusal(raw) is not None
    assert decide(dist, raw).status in (400, 414)


def test_the_policy_finds_files_and_nothing_outside(tmp_path):
    dist = make_dist(tmp_path)
    (dist / "link.txt").symlink_to(tmp_path / "secret.txt")

    def found(target):
        verdict = decide(dist, target, accept_encoding="identity")
        return verdict.file if verdict.status == 200 else verdict.status

    assert found("/") == (dist / "index.html").resolve()
    assert found("/app.js?v=1") == (dist / "app.js").resolve()
    assert found("/vendor/pkg-1/x%2Ewasm") == (dist / "vendor/pkg-1/x.wasm").resolve()
    assert found("/link.txt") == 404  # a symlink out of dist/
    assert locate(dist, ["link.txt"]) is None
    assert found("/vendor") == 301  # a folder without its slash: redirected
    assert found("/vendor/") == 404  # a folder without index.html: no listing
    assert found("/nope.js") == 404


def test_a_sibling_or_an_index_html_linked_out_of_dist_is_not_served(tmp_path):
    """The ``.gz``/``.br`` sibling and a folder's ``index.html`` were sent without their real path
    checked: a symlink out of ``dist/`` there was served (issue 46, item 11)."""
    hall = make_hall(tmp_path)
    dist = hall.dist
    (dist / "notes.txt").write_text("notes", encoding="utf-8")
    (dist / "notes.txt.gz").symlink_to(tmp_path / "secret.txt")
    (dist / "notes.txt.br").symlink_to(tmp_path / "secret.txt")
    (dist / "docs").mkdir()
    (dist / "docs" / "index.html").symlink_to(tmp_path / "secret.txt")
    (dist / "inside").mkdir()
    (dist / "inside" / "index.html").symlink_to(dist / "index.html")  # a link within dist/: served

    assert decide(dist, "/notes.txt", accept_encoding="gzip, br").file == (dist / "notes.txt").resolve()
    assert decide(dist, "/docs/").status == 404
    assert decide(dist, "/inside/").file == (dist / "index.html").resolve()

    async def scenario(client):
        out = []
        for path, coding in (("/notes.txt", "gzip"), ("/notes.txt", "br"), ("/docs/", "identity")):
            response = await client.get(path, headers={"Accept-Encoding": coding}, auto_decompress=False)
            out.append((response.status, await response.read()))
        return out

    for status, body in run_with_client(hall, scenario):
        assert b"SECRET-OUTSIDE-DIST" not in body
        assert status in (200, 404)


def _raw_get(port: int, path: bytes) -> bytes:
    """A GET with exactly these path bytes (no client normalises them), the whole answer."""

    async def main():
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET " + path + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        await writer.drain()
        data = await reader.read()
        writer.close()
        return data

    return run_async(main)


def test_the_real_server_never_sends_a_file_outside_dist(tmp_path):
    hall = make_hall(tmp_path)
    paths = [p.encode("latin-1") for p in HOSTILE if "\x00" not in p] + [
        b"/..%2f..%2fetc/passwd",
        b"/../secret.txt",
    ]

    async def scenario(client):
        port = client.server.port
        loop = asyncio.get_running_loop()
        return [await loop.run_in_executor(None, _raw_get, port, p) for p in paths]

    answers = run_with_client(hall, scenario)
    for path, answer in zip(paths, answers, strict=True):
        status = answer.split(b" ", 2)[1]
        assert status in (b"400", b"404", b"414"), (path, answer[:200])
        assert b"SECRET-OUTSIDE-DIST" not in answer


def test_deck_files_have_serve_py_headers_and_negotiated_siblings(tmp_path):
    hall = make_hall(tmp_path)

    async def scenario(client):
        out = {}
        for name, headers in {
            "br": {"Accept-Encoding": "gzip, br"},
            "gzip": {"Accept-Encoding": "gzip, br;q=0"},
            "identity": {"Accept-Encoding": "identity"},
        }.items():
            r = await client.get("/app.js", headers=headers, auto_decompress=False)
            out[name] = (r.status, dict(r.headers), await r.read())
        r = await client.get("/vendor/pkg-1/x.wasm")
        out["wasm"] = (r.status, dict(r.headers), await r.read())
        r = await client.get("/")
        out["index"] = (r.status, dict(r.headers), await r.read())
        r = await client.head("/app.js", headers={"Accept-Encoding": "br"})
        out["head"] = (r.status, dict(r.headers), await r.read())
        return out

    out = run_with_client(hall, scenario)
    status, headers, body = out["br"]
    assert (status, body, headers["Content-Encoding"]) == (200, b"BROTLI", "br")
    assert headers["Content-Type"] == "text/javascript" and headers["Vary"] == "Accept-Encoding"
    assert (
        headers["Cross-Origin-Embedder-Policy"] == "require-corp" and headers["Cache-Control"] == "no-cache"
    )
    assert out["gzip"][2] == b"GZIP" and out["gzip"][1]["Content-Encoding"] == "gzip"
    assert out["identity"][2] == b"console.log('original');" and "Content-Encoding" not in out["identity"][1]
    status, headers, body = out["wasm"]
    assert body == b"\0asm" and headers["Content-Type"] == "application/wasm"
    assert headers["Cache-Control"] == "public, max-age=31536000, immutable"
    assert out["index"][2].startswith(b"<!doctype html>")
    status, headers, body = out["head"]
    assert status == 200 and body == b"" and headers["Content-Length"] == str(len(b"BROTLI"))


def test_if_modified_since_gives_304(tmp_path):
    hall = make_hall(tmp_path)
    stamp = email.utils.formatdate(os.stat(hall.dist / "index.html").st_mtime + 5, usegmt=True)

    async def scenario(client):
        fresh = await client.get("/index.html", headers={"If-Modified-Since": stamp})
        old = await client.get("/index.html", headers={"If-Modified-Since": "Mon, 01 Jan 2001 00:00:00 GMT"})
        folder = await client.get("/vendor", allow_redirects=False)
        return fresh.status, old.status, folder.status, folder.headers.get("Location")

    assert run_with_client(hall, scenario) == (304, 200, 301, "/vendor/")
