"""The exact deal sampler (goat.engine.sampling, docs/computer.md "Sampling"): its deals are uniform
among those the seat's knowledge admits, checked against exhaustive enumeration and against rejection
sampling on small positions, and a view that admits no deal is an error with its code at once.

Tolerance: each compared probability p is a share of N independent draws, whose standard deviation
is sqrt(p (1 - p) / N); a difference over 5 of those (plus 0.002 for the cells where p is near 0 or 1)
has a chance under 1e-6 per cell by the normal approximation, so under 1e-4 over the few dozen cells
compared. The draws are seeded: the test is deterministic, and a biased sampler (the shuffle-once
sampler the expert used before, checked below) misses the same bound by far.
"""

from __future__ import annotations

import math
import random
from itertools import combinations

import pytest

from goat.engine.sampling import DealSampler, NoDeal, forbidden_tiles, sample_hands
from goat.engine.seat import SeatView
from goat.engine.tiles import ALL_TILES, BIT, PARSE, Tile

N = 20_000


def _view(hand: list[str], counts: tuple[int, ...], bazaar: int, lacks: tuple[int, ...], seat: int = 0) -> SeatView:
    tiles = tuple(PARSE[t] for t in hand)
    return SeatView(seat=seat, seats=len(counts), hand=tiles, legal=(), left=None, right=None, on_line=0,
                    counts=counts, points=(0,) * len(counts), bazaar=bazaar, bazaar_reserve=0, lacks=lacks)


def _unseen(view: SeatView) -> list[Tile]:
    return [t for t in ALL_TILES if view.unseen & BIT[t]]


def _exhaustive(view: SeatView) -> tuple[int, dict[tuple[int, Tile], float], dict[Tile, float]]:
    """Every consistent deal: their number, P(seat holds tile), P(the bazaar's first tile is tile)."""
    unseen = _unseen(view)
    others = [s for s in range(view.seats) if s != view.seat]
    deals = 0
    held: dict[tuple[int, Tile], int] = {}
    first: dict[Tile, float] = {}

    def deal(rest: list[Tile], index: int, hands: dict[int, tuple[Tile, ...]]) -> None:
        nonlocal deals
        if index == len(others):
            deals += 1
            for s, hand in hands.items():
                for t in hand:
                    held[s, t] = held.get((s, t), 0) + 1
            for t in rest:  # each bazaar tile is first in 1 / len(rest) of its orders
                first[t] = first.get(t, 0) + 1 / len(rest)
            return
        s = others[index]
        bad = forbidden_tiles(view.lacks[s])
        for hand in combinations(rest, view.counts[s]):
            if not any(bad & BIT[t] for t in hand):
                deal([t for t in rest if t not in hand], index + 1, {**hands, s: hand})

    deal(unseen, 0, {})
    return deals, {k: v / deals for k, v in held.items()}, {k: v / deals for k, v in first.items()}


def _shares(draw, view: SeatView, n: int) -> tuple[dict[tuple[int, Tile], float], dict[Tile, float]]:
    held: dict[tuple[int, Tile], int] = {}
    first: dict[Tile, int] = {}
    for _ in range(n):
        hands, bazaar = draw()
        for s, hand in enumerate(hands):
            if s != view.seat:
                for t in hand:
                    held[s, t] = held.get((s, t), 0) + 1
        if bazaar:
            first[bazaar[0]] = first.get(bazaar[0], 0) + 1
    return {k: v / n for k, v in held.items()}, {k: v / n for k, v in first.items()}


def _worst(exact: dict, sampled: dict, n: int, spread: float = 1.0) -> float:
    """The largest difference in units of the bound (> 1: outside it)."""
    worst = 0.0
    for key in set(exact) | set(sampled):
        p, q = exact.get(key, 0.0), sampled.get(key, 0.0)
        bound = 5 * spread * math.sqrt(p * (1 - p) / n) + 0.002
        worst = max(worst, abs(p - q) / bound)
    return worst


def _shuffle_once(view: SeatView, rng: random.Random):
    """The sampler the expert used before: one shuffle, each seat taking the first tiles it may hold."""
    unseen = _unseen(view)
    pool = unseen[:]
    rng.shuffle(pool)
    hands: list[list[Tile]] = [[] for _ in range(view.seats)]
    for s in range(view.seats):
        if s == view.seat:
            continue
        bad = forbidden_tiles(view.lacks[s])
        hands[s] = [t for t in pool if not bad & BIT[t]][:view.counts[s]]
        pool = [t for t in pool if t not in hands[s]]
    return hands, pool


#: three seats: seat 0 holds all but nine tiles; seat 1 (3 tiles) lacks 6, seat 2 (2) lacks 4
SMALL = _view(["0-0", "0-1", "0-2", "0-3", "0-4", "1-1", "1-2", "1-3", "1-4", "2-2", "2-3", "2-4", "3-3",
               "3-4", "4-4", "1-6", "0-6", "2-6", "3-6"],
              counts=(19, 3, 2), bazaar=4, lacks=(0, 1 << 6, 1 << 4))


def test_the_deals_are_exactly_the_consistent_ones_and_uniform_among_them():
    deals, held, first = _exhaustive(SMALL)
    sampler = DealSampler(SMALL)
    assert sampler.deals == deals > 0
    rng = random.Random(57)
    s_held, s_first = _shares(lambda: sampler.draw(rng), SMALL, N)
    assert _worst(held, s_held, N) <= 1 and _worst(first, s_first, N) <= 1
    # and no drawn deal breaks what the seats showed (zero-probability cells never appear)
    assert set(s_held) <= set(held) and set(s_first) <= set(first)


def test_the_shuffle_once_sampler_misses_the_same_bound():
    """The comparison can fail: the biased sampler it replaces lands far outside the bound."""
    _, held, first = _exhaustive(SMALL)
    rng = random.Random(57)
    b_held, b_first = _shares(lambda: _shuffle_once(SMALL, rng), SMALL, N)
    assert max(_worst(held, b_held, N), _worst(first, b_first, N)) > 3


def test_a_two_seat_position_matches_rejection_sampling():
    """Domino-3rounds-sized: the opponent (6 tiles) lacks 5, a bazaar of 12; too many deals to list, so
    the reference is rejection sampling (uniform deals, the inconsistent ones thrown away)."""
    view = _view(["0-0", "1-1", "0-1", "3-4", "0-5", "1-5", "2-5", "3-5", "6-6", "1-4"],
                 counts=(10, 6), bazaar=12, lacks=(0, 1 << 5))
    unseen = _unseen(view)
    bad = forbidden_tiles(view.lacks[1])
    rng = random.Random(5)

    def rejected():
        while True:
            pool = unseen[:]
            rng.shuffle(pool)
            if not any(bad & BIT[t] for t in pool[:6]):
                return [list(view.hand), pool[:6]], pool[6:]

    r_held, r_first = _shares(rejected, view, N)
    sampler = DealSampler(view)
    s_held, s_first = _shares(lambda: sampler.draw(rng), view, N)
    # two samples of N each: the difference's spread is sqrt(2) times one's
    assert _worst(r_held, s_held, N, math.sqrt(2)) <= 1 and _worst(r_first, s_first, N, math.sqrt(2)) <= 1


def test_a_view_that_admits_no_deal_is_an_error_with_its_code_at_once():
    # every tile left is one seat 1 showed it lacks, and there is no bazaar to take them
    with pytest.raises(NoDeal) as caught:
        DealSampler(_view(["0-0", "0-1", "0-2", "0-3", "0-4", "0-5", "0-6", "1-1", "1-2", "1-3", "1-4",
                           "1-5", "1-6", "2-2", "2-3", "2-4", "2-5", "2-6", "3-3", "3-4", "3-5", "3-6", "4-4",
                           "4-5", "4-6"], counts=(25, 3), bazaar=0, lacks=(0, 1 << 5 | 1 << 6)))
    assert caught.value.code == "no_consistent_deal"
    # counts that do not add up to the unseen tiles
    with pytest.raises(NoDeal):
        sample_hands(_view(["0-0"], counts=(1, 99), bazaar=0, lacks=(0, 0)), random.Random(1))
    # a seat that lacks every value
    with pytest.raises(NoDeal):
        sample_hands(_view(["0-0"], counts=(1, 4), bazaar=23, lacks=(0, 0b1111111)), random.Random(1))


def test_a_four_seat_deal_with_every_seat_constrained_is_counted_and_drawn_quickly():
    """Goat-classic: everything dealt, three seats each lacking two values; every draw meets them."""
    view = _view(["0-0", "1-1", "2-2", "3-3", "4-4", "5-5", "6-6"], counts=(7, 7, 7, 7), bazaar=0,
                 lacks=(0, 1 << 0 | 1 << 1, 1 << 2 | 1 << 3, 1 << 4 | 1 << 6))
    sampler = DealSampler(view)
    rng = random.Random(2)
    for _ in range(200):
        hands, bazaar = sampler.draw(rng)
        assert not bazaar and sorted(t for h in hands for t in h) == list(ALL_TILES)
        for s in (1, 2, 3):
            assert len(hands[s]) == 7 and not any(forbidden_tiles(view.lacks[s]) & BIT[t] for t in hands[s])
