"""The professor's path is Spanish to its end (issue 47, item 23): docs/guia-profesor.md sends
the professor to docs/despliegue.md, the Spanish deployment guide, whose commands are exactly
those of docs/deploy.md (the English reference, whose commands the tests run): every command
line of the Spanish guide, its comments aside, is one of deploy.md's, and deploy.md's hall,
Caddy, Redis, install and rehearsal commands all appear in it."""

from __future__ import annotations

import re

from tests.support.paths import ROOT

DOCS = ROOT / "docs"


def _commands(path) -> list[str]:
    """The command lines of a guide's ``sh`` blocks: comments dropped, placeholders ``<…>`` blank."""
    text = path.read_text(encoding="utf-8")
    out = []
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        for line in block.splitlines():
            line = re.sub(r"(^|\s)#\s.*$", "", line).rstrip()
            line = re.sub(r"<[^>]+>", "<>", line)
            if line.strip():
                out.append(line)
    return out


def test_the_professors_guide_sends_to_the_spanish_deployment_guide():
    guide = (DOCS / "guia-profesor.md").read_text(encoding="utf-8")
    assert "(despliegue.md)" in guide and "(deploy.md)" not in guide


def test_the_spanish_guide_gives_the_reference_commands_and_no_other():
    spanish, english = _commands(DOCS / "despliegue.md"), _commands(DOCS / "deploy.md")
    assert [c for c in spanish if c not in english] == []
    wanted = [
        c for c in english if re.search(r"dpdeck\.hall|caddy run|redis-server|setup-hall|rehearse|hall \d", c)
    ]
    assert wanted and [c for c in wanted if c not in spanish] == []


def test_the_spanish_guide_links_back_to_the_reference_and_speaks_spanish():
    text = (DOCS / "despliegue.md").read_text(encoding="utf-8")
    assert "(deploy.md)" in text and "(guia-profesor.md)" in text
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    for english in (" the ", " and ", " with ", " which "):
        assert english not in prose, english
