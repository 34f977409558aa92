"""What one seat may see, as the numbers a computer player's choice reads (goat.engine.computer builds
it from the redacted game view and events; goat.engine.expert samples the hidden tiles from it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .rulesets import partner_of
from .tiles import BIT, EVERY_TILE, Tile, ends_after

Move = tuple[Tile, str]


@dataclass(frozen=True, slots=True)
class SeatView:
    """What one seat may see, as the numbers a choice reads."""

    seat: int
    seats: int
    hand: tuple[Tile, ...]
    #: the legal moves, as the engine listed them in the view
    legal: tuple[Move, ...]
    #: the line's open ends (``None`` on an empty line)
    left: int | None
    right: int | None
    #: the set of tiles on the line
    on_line: int
    #: tiles in each seat's hand
    counts: tuple[int, ...]
    #: each seat's points (what the limit and the ratings count)
    points: tuple[int, ...]
    #: tiles in the bazaar and how many of them are never drawn
    bazaar: int
    bazaar_reserve: int
    #: per seat, the values (bit v: value v) it is known not to hold: it drew or knocked while the
    #: line's ends showed them, and has drawn nothing since that could hold them
    lacks: tuple[int, ...]
    #: the game's resolved options (as the view's ``options``), each seat's account ``(open, score,
    #: remembered)``, the carried fish pot and the round: what the expert's objective scores with
    options: Mapping[str, Any] | None = None
    scores: tuple[tuple[bool, int, int], ...] = ()
    fish_pot: int = 0
    round: int = 0
    #: the seat that played the round's last tile (``None`` before the first play)
    last_player: int | None = None
    #: the game's ruleset: in a paired one (goat-pairs) the seat opposite is this seat's partner, whose
    #: hand is as hidden as the opponents' (docs/computer.md "Partners")
    ruleset: str = ""

    @property
    def partner(self) -> int | None:
        """The seat's partner in a paired ruleset, ``None`` when everyone plays for themselves."""
        return partner_of(self.ruleset, self.seats, self.seat)

    @property
    def held(self) -> int:
        return tile_set(self.hand)

    @property
    def unseen(self) -> int:
        """The tiles this seat has not seen: in the others' hands or the bazaar."""
        return EVERY_TILE & ~self.held & ~self.on_line


def tile_set(tiles: Sequence[int]) -> int:
    """``tiles`` as a set of bits (``BIT``)."""
    bits = 0
    for tile in tiles:
        bits |= BIT[tile]
    return bits


def choices(legal: Sequence[Move], left: int | None, right: int | None) -> list[int]:
    """For each legal move, the index of the first legal move equivalent to it: the same tile leaving
    the same two open values (one tile on two ends showing the same value is one choice, not two: the
    rules read the line only through its ends). The moves are one choice when every index is 0."""
    first: dict[tuple[Tile, int, int], int] = {}
    out = []
    for index, (tile, end) in enumerate(legal):
        low, high = sorted(ends_after(left, right, tile, end))
        out.append(first.setdefault((tile, low, high), index))
    return out


def is_forced(legal: Sequence[Move], left: int | None, right: int | None) -> bool:
    """Whether the legal moves leave no real choice: one move, or all of them equivalent (:func:`choices`)."""
    return not any(choices(legal, left, right))
