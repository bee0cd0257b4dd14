"""dpdeck/serve/watch.py's pure parts: what changed, whether the page must reload, the page served."""

from __future__ import annotations

import os

from dpdeck.serve.watch import changed_files, inject_client, needs_reload, snapshot


def test_a_snapshot_sees_edits_additions_and_removals_but_not_caches_or_outputs(tmp_path):
    deck = tmp_path / "deck"
    (deck / "dist").mkdir(parents=True)
    (deck / "__pycache__").mkdir()
    (deck / "a.yaml").write_text("slides: []")
    (deck / "dist" / "index.html").write_text("built")
    (deck / "__pycache__" / "x.pyc").write_bytes(b"0")
    (deck / ".a.yaml.swp").write_text("editor")
    before = snapshot([deck])
    assert set(before) == {str(deck / "a.yaml")}
    (deck / "a.yaml").write_text("slides: [1]")
    os.utime(deck / "a.yaml", ns=(1, 1))
    (deck / "b.yaml").write_text("")
    after = snapshot([deck])
    assert changed_files(before, after) == {str(deck / "a.yaml"), str(deck / "b.yaml")}
    (deck / "b.yaml").unlink()
    assert changed_files(after, snapshot([deck])) == {str(deck / "b.yaml")}
    assert snapshot([tmp_path / "missing"]) == {}


def test_only_a_change_of_the_decks_yaml_keeps_the_page(tmp_path):
    chapter, static = tmp_path / "01.yaml", tmp_path / "static" / "deck.js"
    assert not needs_reload([str(chapter)], [chapter])
    assert needs_reload([str(chapter), str(static)], [chapter])
    assert needs_reload([str(tmp_path / "02.yaml")], [chapter])  # a new chapter: order may change


def test_the_client_goes_into_the_head_once():
    page = "<html><head><title>x</title></head><body></body></html>"
    served = inject_client(page)
    assert served.count('src="/_watch/client.js"') == 1
    assert served.index("/_watch/client.js") < served.index("</head>")


def test_a_watching_page_has_its_own_channel_and_is_no_device_of_the_hall(tmp_path):
    """``serve --hall --watch``: the watcher's events go out on /_watch/events, which needs no
    device id and counts none (the client used to open /_hall/events under a random id: each
    author's tab counted as a device, the presenter's twice); the hall's channel hears none."""
    import asyncio

    from aiohttp.test_utils import TestClient, TestServer

    from dpdeck.hall.app import make_app
    from dpdeck.serve.watch import EVENTS_URL, Watcher, attach
    from tests.support.hall_fixtures import DEV, make_hall, read_events, run_async

    hall = make_hall(tmp_path)
    (hall.dist / "index.html").write_text("<html><head><title>deck</title></head><body></body></html>")
    watcher = Watcher(roots=[], rebuild=lambda: [])

    async def main():
        app = make_app(hall)
        attach(app, hall.dist, watcher)
        async with TestClient(TestServer(app, host="127.0.0.1")) as client:
            page = await (await client.get("/")).text()
            watching = [await client.get(EVENTS_URL) for _ in range(3)]
            device = await client.get(f"/_hall/events?device={DEV[0]}")
            greeting = await read_events(device, 1 + len(hall.spec.polls))
            await asyncio.sleep(1.2)  # past the devices throttle
            hello = await (await client.get("/_hall/hello")).json()
            watcher.publish("built", {"reload": True})
            heard = [await read_events(stream, 1) for stream in watching]
            hall.channel.publish("state", {"seq": 1, "indexh": 0, "indexv": 0, "indexf": -1})
            after = await read_events(device, 2)
            return page, watching[0], greeting, hello, heard, after

    page, stream, greeting, hello, heard, after = run_async(main)
    assert '<script type="module" src="/_watch/client.js">' in page
    assert stream.status == 200 and stream.headers["Content-Type"] == "text/event-stream"
    assert stream.headers["Cross-Origin-Embedder-Policy"] == "require-corp"
    assert ("devices", {"n": 1}) in greeting and hello["devices"] == 1  # the device only
    assert heard == [[("built", {"reload": True})]] * 3
    # the device's stream: the (throttled) count of devices, one, then the state; no "built"
    assert after == [("devices", {"n": 1}), ("state", {"seq": 1, "indexh": 0, "indexv": 0, "indexf": -1})]
