"""Deals of the tiles one seat has not seen, drawn exactly uniformly among those its knowledge admits
(docs/computer.md "Sampling").

What a seat knows of the hidden tiles (:class:`~goat.engine.seat.SeatView`): which tiles it has not
seen, how many each other seat holds, the bazaar's size, and per seat the values it showed it lacks
(it drew or knocked on them). Every deal of the unseen tiles that gives each seat its count and no
seat a tile it showed it lacks is as likely as any other (the deal was uniform, and the public record
rules deals out without favouring the rest): :class:`DealSampler` draws from exactly that
distribution, which a rejection sampler (deal uniformly, throw away what the record rules out)
approaches only slowly when the lacks are tight.

How: the unseen tiles fall into classes by the set of seats that may hold them (at most
``2 ** (seats - 1)``, the bazaar may hold any). The number of consistent deals is a sum over how many
tiles of each class go to each seat, each term a product of multinomial coefficients; a memoised count
over the classes (state: what each seat still needs) gives it exactly, in integers. A draw walks the
classes, picks each split with probability proportional to the deals that complete it, then hands out
the class's tiles in a random order. Nothing loops until it succeeds, so a view that admits no deal
(the counts do not add up, or the lacks leave a seat too few tiles: a corrupted log) is
:class:`NoDeal` at once, never a hang.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from math import comb
from typing import TYPE_CHECKING

from .errors import RulesError
from .tiles import ALL_TILES, BIT, SHOWS, Tile

if TYPE_CHECKING:
    from .seat import SeatView


class NoDeal(RulesError):
    """The seat's knowledge admits no deal of the unseen tiles (its log contradicts itself)."""

    code = "no_consistent_deal"


def forbidden_tiles(lacks: int) -> int:
    """The tiles a seat that lacks the values ``lacks`` (bit v: value v) cannot hold."""
    tiles = 0
    for value in range(7):
        if lacks >> value & 1:
            tiles |= SHOWS[value]
    return tiles


class DealSampler:
    """Deals of ``view``'s unseen tiles, uniform among the consistent ones; raises :class:`NoDeal` when
    there is none. Built once per decision, it draws any number of deals."""

    __slots__ = ("_classes", "_hand", "_needs", "_others", "_room", "_seat", "_seats", "_steps", "deals")

    def __init__(self, view: SeatView) -> None:
        unseen = [tile for tile in ALL_TILES if view.unseen & BIT[tile]]
        others = [s for s in range(view.seats) if s != view.seat]
        needs = tuple(view.counts[s] for s in others)
        if len(unseen) != sum(needs) + view.bazaar or min(needs, default=0) < 0 or view.bazaar < 0:
            raise NoDeal(detail="the seat view's counts do not match its unseen tiles")
        lacks = [view.lacks[s] if s < len(view.lacks) else 0 for s in others]
        forbidden = [forbidden_tiles(lack) for lack in lacks]
        by_mask: dict[int, list[Tile]] = {}
        for tile in unseen:
            mask = sum(1 << i for i in range(len(others)) if not forbidden[i] & BIT[tile])
            by_mask.setdefault(mask, []).append(tile)
        #: per class: the seats (indexes into ``others``) that may hold its tiles, and its tiles
        self._classes = [(tuple(i for i in range(len(others)) if mask >> i & 1), tiles)
                         for mask, tiles in sorted(by_mask.items())]
        #: per class k and seat: how many tiles of the classes after k the seat may hold
        room = [[0] * len(others) for _ in range(len(self._classes) + 1)]
        for k in range(len(self._classes) - 1, -1, -1):
            allowed, tiles = self._classes[k]
            room[k] = [room[k + 1][i] + (len(tiles) if i in allowed else 0) for i in range(len(others))]
        self._room = room
        self._others, self._seat, self._seats = others, view.seat, view.seats
        self._hand, self._needs = list(view.hand), needs
        #: memoised steps: (class, place among its seats, needs, its tiles left) -> the counts that
        #: place's seat may take, the running total of the deals completing each, and the whole
        self._steps: dict[tuple[int, int, tuple[int, ...], int], tuple[list[int], list[int], int]] = {}
        #: how many consistent deals there are (exact)
        self.deals = self._count(0, needs)
        if not self.deals:
            raise NoDeal(detail="no deal of the unseen tiles meets what the seats showed they lack")

    def _count(self, k: int, needs: tuple[int, ...]) -> int:
        """The deals of classes ``k``.. that give each seat exactly ``needs`` (the bazaar the rest)."""
        if k == len(self._classes):
            return 0 if any(needs) else 1
        if any(need > space for need, space in zip(needs, self._room[k], strict=True)):
            return 0
        return self._step(k, 0, needs, len(self._classes[k][1]))[2]

    def _step(self, k: int, j: int, needs: tuple[int, ...], left: int) -> tuple[list[int], list[int], int]:
        """Class ``k`` hands its ``j``-th seat some of its ``left`` tiles: each count it may take, with
        the running total of the deals that complete it (a binomial choice of which tiles, times the
        completions), and the whole."""
        key = (k, j, needs, left)
        known = self._steps.get(key)
        if known is not None:
            return known
        allowed = self._classes[k][0]
        counts: list[int] = []
        cumulative: list[int] = []
        total = 0
        if j == len(allowed):  # the class's rest goes to the bazaar
            total = self._count(k + 1, needs)
            if total:
                counts, cumulative = [left], [total]
        else:
            i = allowed[j]
            # what the seat does not take here it must find in the later classes
            for x in range(max(0, needs[i] - self._room[k + 1][i]), min(needs[i], left) + 1):
                rest = needs[:i] + (needs[i] - x,) + needs[i + 1:]
                completions = self._step(k, j + 1, rest, left - x)[2]
                if completions:
                    total += comb(left, x) * completions
                    counts.append(x)
                    cumulative.append(total)
        known = self._steps[key] = (counts, cumulative, total)
        return known

    def draw(self, rng: random.Random) -> tuple[list[list[Tile]], list[Tile]]:
        """One deal: every seat's hand (the view's own seat: its hand) and the bazaar, in a random order."""
        hands: list[list[Tile]] = [[] for _ in range(self._seats)]
        bazaar: list[Tile] = []
        needs = self._needs
        for k, (allowed, tiles) in enumerate(self._classes):
            pool = tiles[:]
            rng.shuffle(pool)
            at, left = 0, len(pool)
            for j, i in enumerate(allowed):
                counts, cumulative, total = self._step(k, j, needs, left)
                x = counts[bisect_right(cumulative, rng.randrange(total))]
                hands[self._others[i]].extend(pool[at:at + x])
                needs = needs[:i] + (needs[i] - x,) + needs[i + 1:]
                at += x
                left -= x
            bazaar.extend(pool[at:])
        rng.shuffle(bazaar)
        hands[self._seat] = self._hand[:]
        return hands, bazaar


def sample_hands(view: SeatView, rng: random.Random) -> tuple[list[list[Tile]], list[Tile]]:
    """One deal of ``view``'s unseen tiles, uniform among the consistent ones (:class:`DealSampler`)."""
    return DealSampler(view).draw(rng)


__all__ = ["DealSampler", "NoDeal", "forbidden_tiles", "sample_hands"]
