"""Tiles of a double-six set (docs/rules.md §1) and the tables the rules read them through.

A tile is a :class:`Tile`: an ``int`` from 0 to 27, its place in the canonical order ``0-0, 0-1, …
0-6, 1-1, … 6-6``. As an int it indexes the tables below and is a bit of a 28-bit set (a hand, the
tiles on the line, "the tiles showing pip v"); it also unpacks to its halves (``low, high = tile``)
for code that draws or prints it. Text (``"low-high"``) appears only at the event and JSON boundary.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import SupportsIndex

from .errors import RulesError


class Tile(int):
    """One of the 28 tiles, as its canonical index; ``tile[0]`` is the low half, ``tile[1]`` the high."""

    __slots__ = ()

    def __getitem__(self, half: SupportsIndex) -> int:
        return HALVES[self][half]

    def __iter__(self) -> Iterator[int]:
        return iter(HALVES[self])

    def __repr__(self) -> str:
        return f"Tile({TEXT[self]})"


#: the halves of each tile, low first, in canonical order
HALVES: tuple[tuple[int, int], ...] = tuple((a, b) for a in range(7) for b in range(a, 7))
#: the 28 tiles in canonical order (``ALL_TILES[i] == i``)
ALL_TILES: tuple[Tile, ...] = tuple(Tile(i) for i in range(len(HALVES)))
TILE_COUNT = len(ALL_TILES)
#: the set of all 28 tiles
EVERY_TILE = (1 << TILE_COUNT) - 1

TEXT: tuple[str, ...] = tuple(f"{a}-{b}" for a, b in HALVES)
LOW: tuple[int, ...] = tuple(a for a, _ in HALVES)
HIGH: tuple[int, ...] = tuple(b for _, b in HALVES)
PIPS: tuple[int, ...] = tuple(a + b for a, b in HALVES)
BIT: tuple[int, ...] = tuple(1 << i for i in range(TILE_COUNT))
#: for each value 0..6, the set of tiles that carry it
SHOWS: tuple[int, ...] = tuple(sum(BIT[i] for i, (a, b) in enumerate(HALVES) if v in (a, b)) for v in range(7))
#: for each value 0..6, the six non-doubles that carry it (positional fish, docs/rules.md §6)
SHOWS_NON_DOUBLE: tuple[int, ...] = tuple(
    sum(BIT[i] for i, (a, b) in enumerate(HALVES) if v in (a, b) and a != b) for v in range(7)
)
DOUBLES = sum(BIT[i] for i, (a, b) in enumerate(HALVES) if a == b)
#: for each tile and each end value 0..6: the value the tile leaves open when put on that end (its
#: other half; a double leaves the same value), or -1 when it does not fit
LEAVES: tuple[tuple[int, ...], ...] = tuple(
    tuple(b if a == v else a if b == v else -1 for v in range(7)) for a, b in HALVES
)
DOUBLE_ZERO = ALL_TILES[0]


def ends_after(left: int | None, right: int | None, tile: Tile, end: str) -> tuple[int, int]:
    """The line's two open values after ``tile`` goes on ``end`` (``"left"`` or ``"right"``) of a line
    whose open values are ``left`` and ``right`` (an empty line, ``None``: the tile's halves)."""
    if left is None or right is None:
        return HALVES[tile]
    if end == "left":
        return LEAVES[tile][left], right
    return left, LEAVES[tile][right]

#: text in either order -> tile
PARSE: dict[str, Tile] = {}
for _tile, (_a, _b) in zip(ALL_TILES, HALVES, strict=True):
    PARSE[f"{_a}-{_b}"] = _tile
    PARSE[f"{_b}-{_a}"] = _tile
_BY_HALVES = {halves: tile for tile, halves in zip(ALL_TILES, HALVES, strict=True)}
#: a tile as laid in the line, ``(left half, right half)`` <-> its text ``"5-2"`` (both orientations)
LAID_TEXT: dict[tuple[int, int], str] = {(a, b): f"{a}-{b}" for a in range(7) for b in range(7)
                                         if (min(a, b), max(a, b)) in _BY_HALVES}
PARSE_LAID: dict[str, tuple[int, int]] = {text: pair for pair, text in LAID_TEXT.items()}


def parse_tile(text: object) -> Tile:
    """Parse ``"a-b"`` in either order into its tile; raise ``RulesError("invalid_tile")``."""
    tile = PARSE.get(text) if isinstance(text, str) else None
    if tile is None:
        raise RulesError("invalid_tile", f"{text!r} is not a domino tile; write it as \"a-b\" with 0..6 on each half.",
                         given=repr(text))  # the sentence's parameter, so it can be said in another language
    return tile


def as_tile(value: object) -> Tile | None:
    """A tile given as a :class:`Tile`, its text (either order) or its halves ``(low, high)``; else ``None``."""
    if value.__class__ is Tile:
        return value
    if isinstance(value, str):
        return PARSE.get(value)
    if value.__class__ is tuple:
        try:
            return _BY_HALVES.get(value)
        except TypeError:  # unhashable parts
            return None
    return None


def tile_str(tile: int) -> str:
    """The canonical text ``"low-high"`` of a tile."""
    return TEXT[tile]


def tiles_str(tiles: Iterable[int]) -> list[str]:
    return [TEXT[t] for t in tiles]


def pips(tile: int) -> int:
    return PIPS[tile]


def tile_set(tiles: Iterable[int]) -> int:
    """The 28-bit set of ``tiles`` (distinct tiles: a set of the tiles of a hand or of the line)."""
    return sum([BIT[tile] for tile in tiles])
