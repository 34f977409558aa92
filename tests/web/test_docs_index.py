"""The README's documentation list names every document in docs/, and each link it has resolves."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_readme_lists_every_doc_and_every_listed_doc_exists():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"\]\((docs/[^)#]+\.md)\)", readme))
    present = {f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")}
    assert present - listed == set(), "not in the README's documentation list"
    assert listed - present == set(), "listed in the README but not in docs/"
