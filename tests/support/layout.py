"""In-page probes of a slide's layout at 1280×720, for ``page.evaluate(PROBE, section)``
(tests/browser/test_full_deck.py walks every slide with them, test_audit.py the edited ones)."""

# What a slide must not do at 1280×720, measured in the page. Returns a list of problems:
# content taller than the slide, an element outside the slide's box, a scrollbar in the code
# editor or the output (text that cannot be read without scrolling), a figure squeezed too small.
LAYOUT_PROBLEMS = """(section) => {
    const s = section;
    const box = s.getBoundingClientRect();
    const scale = box.width / s.offsetWidth;            // reveal.js scales the 1280×720 slide
    const problems = [];
    if (s.scrollHeight > s.clientHeight + 1)
        problems.push(`content height ${s.scrollHeight} px > slide ${s.clientHeight} px`);
    for (const el of s.querySelectorAll('*')) {
        if (el.closest('aside.notes, .katex-mathml, .katex svg, .cm-editor')) continue;
        const st = getComputedStyle(el);
        if (st.display === 'none' || st.visibility === 'hidden') continue;
        const r = el.getBoundingClientRect();
        if (r.width === 0 || r.height === 0) continue;
        const out = r.bottom > box.bottom + 2 || r.right > box.right + 2
                 || r.left < box.left - 2 || r.top < box.top - 2;
        if (out) {
            const what = el.className || el.tagName.toLowerCase();
            problems.push(`${what} outside the slide (bottom ${Math.round((r.bottom - box.top) / scale)}, ` +
                          `right ${Math.round((r.right - box.left) / scale)})`);
            break;
        }
    }
    for (const el of s.querySelectorAll('.cm-scroller, .cell-output, .cell-output pre')) {
        if (el.scrollHeight > el.clientHeight + 2)
            problems.push(`${el.className}: ${el.scrollHeight - el.clientHeight} px of text hidden (vertical)`);
        if (el.scrollWidth > el.clientWidth + 2)
            problems.push(`${el.className}: ${el.scrollWidth - el.clientWidth} px of text hidden (horizontal)`);
    }
    for (const img of s.querySelectorAll('img.out-figure')) {
        const h = img.getBoundingClientRect().height / scale;
        if (img.complete && h < 220) problems.push(`figure only ${Math.round(h)} px high`);
    }
    return problems;
}"""

# Output lines that wrap (too wide for their column): not an error, but they read badly.
WRAPPED_LINES = """(section) => {
    const found = [];
    for (const pre of section.querySelectorAll('.cell-output pre')) {
        const lines = pre.textContent.replace(/\\n$/, '').split('\\n').length;
        const lh = parseFloat(getComputedStyle(pre).lineHeight);
        if (pre.scrollHeight > (lines + 0.5) * lh) found.push(pre.textContent.slice(0, 60));
    }
    return found;
}"""

# How far a slide's content passes its box, each way, in CSS px, measured as laid out: a phone's
# far slides are skipped (``content-visibility: auto``, phone.css), and a skipped slide measures
# as if empty, so the probe lays it out for the measurement and leaves it as it found it.
SLIDE_OVERFLOW = """(s) => {
    const was = s.style.contentVisibility;
    s.style.contentVisibility = 'visible';
    const out = {id: s.id, h: +s.dataset.indexH, wide: s.scrollWidth - s.clientWidth,
                 tall: s.scrollHeight - s.clientHeight};
    s.style.contentVisibility = was;
    return out;
}"""

# Every slide's SLIDE_OVERFLOW, longest first.
SLIDES_BY_LENGTH = f"""() => [...document.querySelectorAll('.slides section')].map({SLIDE_OVERFLOW})
    .sort((a, b) => b.tall - a.tall)"""
