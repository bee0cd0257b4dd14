"""Precompressed siblings (dpdeck.build.compress) and their negotiation by dpdeck.serve.server."""

from __future__ import annotations

import email.utils
import gzip
import http.client
import random
import time
from pathlib import Path

import brotli
import pytest

from dpdeck.build import compress
from dpdeck.serve.server import serve_in_thread
from dpdeck.serve.staticfiles import accepted_codings, choose_encoding

TEXT = ("def f(x):\n    return x * 2  # the same line, again and again\n" * 400).encode()
NOISE = random.Random(7).randbytes(20_000)  # does not compress: no sibling


def _tree(root: Path) -> Path:
    (root / "vendor" / "pyodide").mkdir(parents=True)
    (root / "vendor" / "pyodide" / "pyodide.asm.wasm").write_bytes(b"\0asm\1\0\0\0" + TEXT)
    (root / "index.html").write_bytes(b"<!doctype html><title>x</title>" + TEXT)
    (root / "app.js").write_bytes(TEXT)
    (root / "noise.js").write_bytes(NOISE)
    (root / "font.woff2").write_bytes(TEXT)  # already compressed by kind: skipped by suffix
    (root / "empty.css").write_bytes(b"")
    return root


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def cache(tmp_path) -> Path:
    return tmp_path / "cache"


@pytest.fixture(autouse=True)
def _compress_on(monkeypatch):
    monkeypatch.delenv("DPDECK_NO_COMPRESS", raising=False)


def test_siblings_written_and_decompress_to_the_original(tmp_path, cache):
    root = _tree(tmp_path / "site")
    written = compress.precompress(root, cache)
    names = {str(p.relative_to(root)) for p in written}
    assert names == {
        f"{name}{suffix}"
        for name in ("vendor/pyodide/pyodide.asm.wasm", "index.html", "app.js")
        for suffix in (".br", ".gz")
    }
    for name in ("vendor/pyodide/pyodide.asm.wasm", "index.html", "app.js"):
        original = (root / name).read_bytes()
        assert brotli.decompress((root / f"{name}.br").read_bytes()) == original
        assert gzip.decompress((root / f"{name}.gz").read_bytes()) == original
        assert (root / f"{name}.br").stat().st_mtime_ns == (root / name).stat().st_mtime_ns
    # no file name, mtime 0 in the gzip header
    header = (root / "app.js.gz").read_bytes()[:10]
    assert header[3] & 0x08 == 0 and header[4:8] == b"\0\0\0\0"
    assert not list(tmp_path.rglob("*.tmp")), "no temp file is left behind"


def test_no_sibling_unless_at_least_5_percent_smaller(tmp_path, cache):
    root = _tree(tmp_path / "site")
    compress.precompress(root, cache)
    for name in ("noise.js", "font.woff2", "empty.css"):
        assert not (root / f"{name}.br").exists() and not (root / f"{name}.gz").exists(), name
    # just under 5 % saved is not enough
    data = NOISE[:19_000] + b"a" * 1_000
    assert len(compress._brotli(data)) > 0.95 * len(data)
    (root / "almost.js").write_bytes(data)
    compress.precompress(root, cache)
    assert not (root / "almost.js.br").exists()


def test_reproducible(tmp_path):
    one = _tree(tmp_path / "one")
    two = _tree(tmp_path / "two")
    compress.precompress(one, tmp_path / "cache-one")
    compress.precompress(two, tmp_path / "cache-two")  # a cold cache: compressed again
    assert _snapshot(one) == _snapshot(two)


def test_second_run_uses_the_cache(tmp_path, cache, monkeypatch):
    first = _tree(tmp_path / "first")
    compress.precompress(first, cache)
    assert sorted(p.name for p in (cache / "compressed").iterdir()) == sorted(
        f"{compress.sha256(first / name)}.{ext}"
        for name in ("vendor/pyodide/pyodide.asm.wasm", "index.html", "app.js", "noise.js", "empty.css")
        for ext in ("br", "gz")
    ), "every compressible file's output is cached, kept as a sibling or not"

    def refuse(data):
        raise AssertionError("compressed again although the cache holds it")

    monkeypatch.setitem(compress.ENCODINGS, ".br", ("br", refuse, brotli.decompress))
    monkeypatch.setitem(compress.ENCODINGS, ".gz", ("gz", refuse, compress._gunzip))
    second = _tree(tmp_path / "second")
    compress.precompress(second, cache)
    assert _snapshot(first) == _snapshot(second)


def test_a_damaged_cache_entry_is_compressed_again(tmp_path, cache):
    root = _tree(tmp_path / "site")
    compress.precompress(root, cache)
    entry = cache / "compressed" / f"{compress.sha256(root / 'app.js')}.br"
    entry.write_bytes(entry.read_bytes()[:-20])
    again = _tree(tmp_path / "again")
    compress.precompress(again, cache)
    assert brotli.decompress((again / "app.js.br").read_bytes()) == TEXT


def test_no_compress_env(tmp_path, cache, monkeypatch):
    monkeypatch.setenv("DPDECK_NO_COMPRESS", "1")
    root = _tree(tmp_path / "site")
    assert compress.precompress(root, cache) == []
    assert not list(root.rglob("*.br")) and not list(root.rglob("*.gz")) and not cache.exists()


def test_real_build_ships_brotli_wasm(built: Path):
    (wasm,) = built.glob("vendor/pyodide-*/pyodide.asm.wasm")
    br = wasm.with_name(wasm.name + ".br")
    assert br.exists() and br.stat().st_size < 0.5 * wasm.stat().st_size
    assert brotli.decompress(br.read_bytes()) == wasm.read_bytes()
    assert (built / "index.html.br").exists()
    assert not list(built.rglob("*.woff2.br")) and not list(built.rglob("*.br.br"))


# -- negotiation ----------------------------------------------------------------------------


def test_accept_encoding_parsing():
    assert accepted_codings("gzip, deflate, br, zstd") == {"gzip": 1, "deflate": 1, "br": 1, "zstd": 1}
    assert accepted_codings(" BR ; q=0.5 ,x-gzip;q=0,*;q=0.1") == {"br": 0.5, "gzip": 0, "*": 0.1}
    assert accepted_codings("br;q=abc, gzip;q=2") == {"br": 0, "gzip": 0}
    both = ("br", "gzip")
    assert choose_encoding("gzip, deflate, br, zstd", both) == "br"
    assert choose_encoding("gzip", both) == "gzip"
    assert choose_encoding("br;q=0, gzip", both) == "gzip"
    assert choose_encoding("br;q=0.5, gzip;q=0.8", both) == "gzip"
    assert choose_encoding("*", both) == "br"
    assert choose_encoding("*, br;q=0", both) == "gzip"
    assert choose_encoding("*;q=0", both) is None
    assert choose_encoding("br;q=0.5, identity", both) is None
    assert choose_encoding("identity", both) is None
    assert choose_encoding("", both) is None
    assert choose_encoding(None, both) is None
    assert choose_encoding("deflate", both) is None


@pytest.fixture
def site(tmp_path, cache):
    root = _tree(tmp_path / "site")
    compress.precompress(root, cache)
    server, url = serve_in_thread(root)
    host, port = server.server_address[:2]
    yield root, host, port
    server.shutdown()
    server.server_close()


def _get(site, path, method="GET", **headers):
    _, host, port = site
    conn = http.client.HTTPConnection(host, port, timeout=10)
    try:
        conn.request(method, path, headers=headers)
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


WASM = "/vendor/pyodide/pyodide.asm.wasm"


def test_brotli_preferred(site):
    root = site[0]
    status, headers, body = _get(site, WASM, **{"Accept-Encoding": "gzip, deflate, br, zstd"})
    assert status == 200
    assert headers["content-encoding"] == "br"
    assert headers["content-type"] == "application/wasm"
    assert headers["vary"] == "Accept-Encoding"
    assert (
        int(headers["content-length"])
        == len(body)
        == (root / WASM[1:]).with_suffix(".wasm.br").stat().st_size
    )
    assert brotli.decompress(body) == (root / WASM[1:]).read_bytes()
    # the isolation and caching headers are still there
    assert headers["cross-origin-embedder-policy"] == "require-corp"
    assert headers["cache-control"] == "public, max-age=31536000, immutable"


def test_gzip_when_only_gzip(site):
    status, headers, body = _get(site, "/app.js", **{"Accept-Encoding": "gzip"})
    assert status == 200 and headers["content-encoding"] == "gzip"
    assert headers["content-type"] == "text/javascript" and headers["vary"] == "Accept-Encoding"
    assert gzip.decompress(body) == TEXT and headers["cache-control"] == "no-cache"


@pytest.mark.parametrize("accept", [None, "br;q=0", "identity", "deflate", "br;q=0, gzip;q=0"])
def test_identity_when_nothing_fits(site, accept):
    headers = {} if accept is None else {"Accept-Encoding": accept}
    status, got, body = _get(site, "/app.js", **headers)
    assert status == 200 and "content-encoding" not in got and body == TEXT
    assert got["vary"] == "Accept-Encoding" and int(got["content-length"]) == len(TEXT)


def test_index_and_head(site):
    root = site[0]
    status, headers, body = _get(site, "/", method="HEAD", **{"Accept-Encoding": "br"})
    assert status == 200 and body == b""
    assert headers["content-encoding"] == "br" and headers["content-type"].startswith("text/html")
    assert int(headers["content-length"]) == (root / "index.html.br").stat().st_size
    status, headers, body = _get(site, "/", **{"Accept-Encoding": "br"})
    assert brotli.decompress(body) == (root / "index.html").read_bytes()


def test_files_without_siblings_are_unchanged(site):
    status, headers, body = _get(site, "/noise.js", **{"Accept-Encoding": "br, gzip"})
    assert status == 200 and body == NOISE
    assert "content-encoding" not in headers and "vary" not in headers
    status, headers, _ = _get(site, "/missing.js", **{"Accept-Encoding": "br"})
    assert status == 404


def test_sibling_by_its_own_name(site):
    root = site[0]
    status, headers, body = _get(site, "/app.js.br", **{"Accept-Encoding": "br"})
    assert status == 200 and body == (root / "app.js.br").read_bytes()
    assert "content-encoding" not in headers and headers["content-type"] == "application/octet-stream"


def test_not_modified(site):
    root = site[0]
    mtime = (root / "app.js").stat().st_mtime
    since = email.utils.formatdate(mtime + 1, usegmt=True)
    for accept in ("br", "gzip", "identity"):
        status, headers, body = _get(
            site, "/app.js", **{"Accept-Encoding": accept, "If-Modified-Since": since}
        )
        assert status == 304 and body == b"", accept
        assert headers["vary"] == "Accept-Encoding"
    status, headers, _ = _get(site, "/app.js", **{"Accept-Encoding": "br"})
    assert headers["last-modified"] == email.utils.formatdate(int(mtime), usegmt=True)
    before = email.utils.formatdate(mtime - 3600, usegmt=True)
    status, _, body = _get(site, "/app.js", **{"Accept-Encoding": "br", "If-Modified-Since": before})
    assert status == 200 and brotli.decompress(body) == TEXT


def test_bench_server_counts_the_bytes_sent(site):
    from bench.server import RequestLog, start_server

    root = site[0]
    log = RequestLog()
    server, _ = start_server(root, log)
    try:
        host, port = server.server_address[:2]
        _, headers, body = _get((root, host, port), WASM, **{"Accept-Encoding": "br"})
        assert headers["content-encoding"] == "br"
        entries = []
        for _ in range(200):  # the server logs the request after the client has the response
            entries += log.take()
            if entries:
                break
            time.sleep(0.01)
        (entry,) = entries
        assert entry["bytes"] == len(body) == (root / WASM[1:]).with_suffix(".wasm.br").stat().st_size
    finally:
        server.shutdown()
        server.server_close()
