#!/usr/bin/env python3
"""Build the deck, run every cell in Chromium at 1280×720, and compose a contact sheet.

    python scripts/contact_sheet.py [--out test-results] [--columns 6] [--no-run]

Writes one screenshot per slide (``test-results/slides/NN-id.png``) and the sheet
``test-results/contact-sheet.png``: a grid of the slides, each with its number and title under
it. Fragments (lists shown one by one, the question's answer) are shown all at once. Prints how
long running all the cells took in the browser, and any cell that failed.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dpdeck.build.site import Project, build  # noqa: E402
from dpdeck.serve.browser import VIEWPORT, launch  # noqa: E402
from dpdeck.serve.server import serve_in_thread  # noqa: E402
from tests.support.browser import open_deck, wait_runtime_ready, wait_until  # noqa: E402
from tests.support.layout import LAYOUT_PROBLEMS, WRAPPED_LINES  # noqa: E402

# Run every cell in deck order, as a presenter would; time each from the page's side.
RUN_ALL = """async () => {
    const out = [];
    const t0 = performance.now();
    for (const cell of window.deck.cells) {
        const t = performance.now();
        const r = await cell.run();
        out.push({id: cell.id, ok: r.ok, seconds: r.seconds, wall: (performance.now() - t) / 1000,
                  error: r.ok ? null : (r.error.traceback || r.error.message)});
    }
    return {total: (performance.now() - t0) / 1000, cells: out};
}"""

SLIDES = """() => window.deck.reveal.getSlides().map((s, i) => ({
    index: i, id: s.id, title: (s.querySelector('h1, h2') || {}).textContent || s.id}))"""

SHOW_SLIDE = """(i) => {
    const s = window.deck.reveal.getSlides()[i];
    const idx = window.deck.reveal.getIndices(s);
    window.deck.reveal.slide(idx.h, idx.v, 999);   // every fragment shown
}"""


def _font(size: int):
    from PIL import ImageFont

    for name in ("DejaVuSans.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"):
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    return ImageFont.load_default()


def compose(shots: list[tuple[int, str, Path]], out: Path, columns: int = 6, thumb_width: int = 426) -> Path:
    """A grid of thumbnails, each with 'N · title' under it."""
    from PIL import Image, ImageDraw

    thumb_height = round(thumb_width * VIEWPORT["height"] / VIEWPORT["width"])
    caption = 40
    pad = 12
    rows = (len(shots) + columns - 1) // columns
    sheet = Image.new(
        "RGB", (pad + columns * (thumb_width + pad), pad + rows * (thumb_height + caption + pad)), "white"
    )
    draw = ImageDraw.Draw(sheet)
    font = _font(15)
    for n, (number, title, path) in enumerate(shots):
        x = pad + (n % columns) * (thumb_width + pad)
        y = pad + (n // columns) * (thumb_height + caption + pad)
        img = Image.open(path).convert("RGB").resize((thumb_width, thumb_height), Image.LANCZOS)
        sheet.paste(img, (x, y))
        draw.rectangle([x - 1, y - 1, x + thumb_width, y + thumb_height], outline="#8a96a3")
        text = f"{number} · {title}"
        while draw.textlength(text, font=font) > thumb_width and len(text) > 4:
            text = text[:-2] + "…" if not text.endswith("…") else text[:-2] + "…"
        draw.text((x, y + thumb_height + 6), text, fill="#1b1f24", font=font)
    out.parent.mkdir(parents=True, exist_ok=True)
    sheet.save(out)
    return out


TEX = {r"\varepsilon": "ε", r"\delta": "δ", r"e^{\varepsilon}": "e^ε", "L_1": "L₁", "L_2": "L₂"}


def _plain(title: str) -> str:
    """The YAML title with its bits of TeX made readable for a caption."""
    for tex, text in sorted(TEX.items(), key=lambda kv: -len(kv[0])):
        title = title.replace(tex, text)
    return re.sub(r"\s+", " ", title.replace("$", "")).strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "test-results")
    parser.add_argument("--columns", type=int, default=6)
    parser.add_argument("--no-run", action="store_true", help="screenshots without running cells")
    args = parser.parse_args(argv)

    from playwright.sync_api import sync_playwright

    project = Project(ROOT)
    deck = build(project)
    titles = [s.title for s in deck.slides]
    print(f"built {len(deck.slides)} slides into {project.dist}")
    server, url = serve_in_thread(project.dist, isolate=True)
    shots_dir = args.out / "slides"
    shots_dir.mkdir(parents=True, exist_ok=True)
    for old in shots_dir.glob("*.png"):
        old.unlink()
    failed = []
    try:
        with sync_playwright() as p:
            browser = launch(p)
            page = browser.new_context(viewport=VIEWPORT).new_page()
            open_deck(page, url)
            t_boot = time.monotonic()
            wait_runtime_ready(page)
            t_ready = time.monotonic()
            print(f"Python ready in the browser after {t_ready - t_boot:.1f} s")
            if not args.no_run:
                # the page runs every cell once in the background (prerun); wait for it, then
                # run them all again in order, matplotlib loaded, and time that
                wait_until(page, "document.documentElement.dataset.prerunDone === 'true'", 300)
                print(
                    f"background prerun of all cells done {time.monotonic() - t_ready:.1f} s "
                    "after Python was ready (includes loading matplotlib)"
                )
                report = page.evaluate(RUN_ALL)
                for c in report["cells"]:
                    flag = "ok " if c["ok"] else "ERR"
                    print(
                        f"  {flag} {c['id']:<42} python {c['seconds'] or 0:6.2f} s   wall {c['wall']:6.2f} s"
                    )
                    if not c["ok"]:
                        failed.append(c)
                python_total = sum(c["seconds"] or 0 for c in report["cells"])
                print(
                    f"running all {len(report['cells'])} cells took {report['total']:.1f} s "
                    f"in the browser ({python_total:.1f} s inside Python; the rest is waiting "
                    "for matplotlib to load and drawing)"
                )
                (args.out / "browser-timings.json").write_text(json.dumps(report, indent=1))
                printed = page.evaluate("""() => window.deck.cells.map(c => `## ${c.id}\\n` +
                    [...c.root.querySelectorAll('.cell-output .out-stdout')]
                        .map(e => e.textContent).join(''))""")
                (args.out / "browser-outputs.txt").write_text("\n".join(printed))
            slides = page.evaluate(SLIDES)
            page.evaluate("() => window.deck.reveal.configure({transition: 'none'})")
            shots = []
            for s in slides:
                page.evaluate(SHOW_SLIDE, s["index"])
                page.wait_for_timeout(150)  # layout and images settle
                path = shots_dir / f"{s['index']:02d}-{s['id']}.png"
                page.screenshot(path=str(path))
                here = page.evaluate_handle("() => window.deck.reveal.getCurrentSlide()")
                for problem in page.evaluate(LAYOUT_PROBLEMS, here):
                    print(f"  slide {s['index']} {s['id']}: {problem}")
                for line in page.evaluate(WRAPPED_LINES, here):
                    print(f"  slide {s['index']} {s['id']}: output line wraps: {line!r}")
                title = titles[s["index"]] if s["index"] < len(titles) else s["title"]
                shots.append((s["index"] + 1, _plain(title), path))
            browser.close()
    finally:
        server.shutdown()
    sheet = compose(shots, args.out / "contact-sheet.png", columns=args.columns)
    print(f"contact sheet: {sheet}")
    for c in failed:
        print(f"\nFAILED {c['id']}:\n{c['error']}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
