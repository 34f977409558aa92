"""Domino tiles as the site's templates draw them (pages/_tile.html): each tile is an element whose
name ("3-5") is its text for screen readers and tests (``aria-label``), its pips placed on a 3 x 3
grid per half by the stylesheet (site.css ``.pip.cN.rN``), so no inline style is needed."""

from __future__ import annotations

from typing import Any

from goat.games.replay_svg import PIP_GRID


def tile(label: str, *, highlight: bool = False) -> dict[str, Any]:
    """``"3-5"`` as the template draws it: two halves of pips (left/top first)."""
    a, b = (int(v) for v in label.split("-"))
    return {"label": label, "double": a == b, "highlight": highlight,
            "halves": [PIP_GRID[a], PIP_GRID[b]]}


def tiles(labels, *, highlight: str | None = None) -> list[dict[str, Any]]:
    return [tile(label, highlight=label == highlight) for label in labels]
