"""Tiles of a double-six set (RULES.md §1).

A tile is a ``(low, high)`` tuple of ints with ``0 <= low <= high <= 6``.  Its canonical text form is
``"low-high"``; input may come in either order and is normalised by :func:`parse_tile`.
"""

from __future__ import annotations

from .errors import RulesError

Tile = tuple[int, int]

#: The 28 tiles in canonical order: 0-0, 0-1, ... 0-6, 1-1, ... 6-6.
ALL_TILES: tuple[Tile, ...] = tuple((a, b) for a in range(7) for b in range(a, 7))

_TEXT = {t: f"{t[0]}-{t[1]}" for t in ALL_TILES}
_PARSE: dict[str, Tile] = {}
for _t in ALL_TILES:
    _PARSE[f"{_t[0]}-{_t[1]}"] = _t
    _PARSE[f"{_t[1]}-{_t[0]}"] = _t


def parse_tile(text: object) -> Tile:
    """Parse ``"a-b"`` in either order into the canonical tile; raise ``RulesError("invalid_tile")``."""
    tile = _PARSE.get(text) if isinstance(text, str) else None
    if tile is None:
        raise RulesError("invalid_tile", f"{text!r} is not a domino tile; write it as \"a-b\" with 0..6 on each half.")
    return tile


def tile_str(tile: Tile) -> str:
    """The canonical text ``"low-high"`` of a tile."""
    return _TEXT[tile]


def oriented_str(first: int, second: int) -> str:
    """A tile as laid in the line, e.g. ``"5-2"`` (not normalised)."""
    return f"{first}-{second}"


def pips(tile: Tile) -> int:
    return tile[0] + tile[1]


def is_double(tile: Tile) -> bool:
    return tile[0] == tile[1]


def tiles_str(tiles) -> list[str]:
    return [_TEXT[t] for t in tiles]
