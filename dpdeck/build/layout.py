"""The slide's size, defined once: reveal.js lays every slide out at this size and scales it
to the window. The page reads it from the build's config (``slideSize``); the browser tests
and ``build.py pdf`` open a window of this size (:data:`dpdeck.serve.browser.VIEWPORT`)."""

from __future__ import annotations

SLIDE_SIZE = {"width": 1280, "height": 720}
