"""The documents stand alone: every relative link in docs/*.md and README.md, and every ``docs/…`` path
they name, exists in the repository; nothing in the repository points at documents outside it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])
#: ``[text](target)`` and ``![alt](target)``; the target up to a space, a ``#`` or the closing bracket
LINK = re.compile(r"\]\(([^)\s#]*)(?:#[^)\s]*)?(?:\s[^)]*)?\)")
#: a ``docs/…`` path named in the text, up to what cannot be part of a file name
DOCS_PATH = re.compile(r"(?<![\w/.-])docs/[\w./-]*[\w/]")
#: the contracts the project was written from live outside the repository: a clone does not have them
OUTSIDE = re.compile(r"\.\./shared|\b(?:SITE|API|RULES|ARCHITECTURE|STYLE)\.md\b")


def _relative_targets(text: str) -> list[str]:
    return [target for target in LINK.findall(text)
            if target and not re.match(r"[a-z][a-z0-9+.-]*:", target)]


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_relative_link_exists(document):
    missing = [target for target in _relative_targets(document.read_text(encoding="utf-8"))
               if not (document.parent / target).exists()]
    assert not missing, f"{document.relative_to(ROOT)} links to what is not there: {missing}"


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_docs_path_named_exists(document):
    missing = sorted({path for path in DOCS_PATH.findall(document.read_text(encoding="utf-8"))
                      if not (ROOT / path.rstrip("/")).exists()})
    assert not missing, f"{document.relative_to(ROOT)} names what is not there: {missing}"


def test_nothing_points_outside_the_repository():
    named = []
    for folder in ("docs", "goat", "challenges", "pages", "play", "ratings", "tournaments", "tests", "bench"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in {".md", ".py", ".html", ".js", ".css", ".txt"} and path != Path(__file__):
                for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                    if OUTSIDE.search(line):
                        named.append(f"{path.relative_to(ROOT)}:{number}")
    for number, line in enumerate((ROOT / "README.md").read_text(encoding="utf-8").splitlines(), 1):
        if OUTSIDE.search(line):
            named.append(f"README.md:{number}")
    assert not named, f"these point at documents outside the repository: {named}"


def test_the_checks_see_a_broken_link(tmp_path):
    """The patterns find what they are for: a made-up document with a broken link, path and contract."""
    text = "See [rules](nowhere.md#x), ![shot](site/none.png) and docs/none.md; [web](https://example.org). SITE.md"
    assert _relative_targets(text) == ["nowhere.md", "site/none.png"]
    assert DOCS_PATH.findall(text) == ["docs/none.md"]
    assert OUTSIDE.search(text)
