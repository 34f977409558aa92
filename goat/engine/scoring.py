"""Pure scoring, result and rating formulas (docs/rules.md §7–§10).

Everything takes and returns plain ints, tuples and lists; nothing here knows about events or state.
The words are the game's words: ``open``, ``score``, ``remembered``, ``points``, ``fish_pot``,
``goats``, ``winners``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from .tiles import DOUBLE_ZERO, PIPS

__all__ = [
    "PlayerScore",
    "RoundOutcome",
    "hand_value",
    "points",
    "score_goat_round",
    "score_party_round",
    "pair_result",
    "score_fixed_round",
    "round_winners",
    "goat_game_over",
    "result_by_limit",
    "result_by_rounds",
    "result_interrupted",
    "round_half_up",
    "rating_points_finished",
    "rating_points_interrupted",
    "chips_finished",
    "chips_interrupted",
]

#: a tile's pips (``map`` over it costs no Python frame, unlike a comprehension, for the few tiles left)
_PIPS_OF = PIPS.__getitem__
#: builds a named tuple from its fields without its ``__new__`` (a Python frame per record)
_new_tuple = tuple.__new__

END_OUT = "out"
END_FISH = "fish"
FISH_FOR_ALL = "fish_for_all"
FISH_FOR_ONE = "fish_for_one"

def hand_value(hand: Sequence[int], lone_double_zero: int) -> int:
    """Pips left in a hand of tiles (§7.1); a hand of exactly the single tile ``0-0`` counts
    ``lone_double_zero``."""
    if len(hand) == 1 and hand[0] == DOUBLE_ZERO:
        return lone_double_zero
    return sum(map(_PIPS_OF, hand))


class PlayerScore(NamedTuple):
    """A player's running account between rounds (§7).

    Small immutable records built for every seat at every round end, so typed named tuples."""

    open: bool = False
    score: int = 0
    remembered: int = 0

    def points_by(self, remembered_counts: bool | None) -> int:
        """The player's points (§7, D-8): ``score + remembered``, or ``score`` alone when
        ``remembered_counts`` is false (``None``, outside goat scoring, has nothing remembered)."""
        return self.score if remembered_counts is False else self.score + self.remembered

    def to_dict(self, remembered_counts: bool | None) -> dict[str, object]:
        """The account with its ``points`` by the rule of ``remembered_counts``; ``remembered`` is shown
        either way."""
        return {"open": self.open, "score": self.score, "remembered": self.remembered,
                "points": self.points_by(remembered_counts)}


def points(players: Sequence[PlayerScore], remembered_counts: bool | None) -> list[int]:
    """Every player's points (§7, D-8): what the limit, the winners, the ratings and the ante use."""
    return [p.points_by(remembered_counts) for p in players]


class RoundOutcome(NamedTuple):
    """The accounts after a round, the final round points per seat, the carried fish pot, and whether
    the round was a fish_for_one draw."""

    players: tuple[PlayerScore, ...]
    round_points: tuple[int, ...]
    fish_pot: int
    draw: bool


def _unique_top(values: Sequence[int]) -> int | None:
    """The seat holding the strictly largest value, or ``None`` if the largest is shared."""
    top = max(values)
    holders = [seat for seat, value in enumerate(values) if value == top]
    return holders[0] if len(holders) == 1 else None


def score_goat_round(
    *,
    players: Sequence[PlayerScore],
    hand_values: Sequence[int],
    end: str,
    seat: int,
    fish_scoring: str,
    open_threshold: int,
    fish_pot: int,
) -> RoundOutcome:
    """Score one round of a goat game (§7 items 2–4).

    ``end`` is ``"out"`` or ``"fish"``; ``seat`` is the player who went out, or the fisher.
    ``fish_pot`` is the pot carried into this round.
    """
    n = len(players)
    if len(hand_values) != n:
        raise ValueError(f"{len(hand_values)} hand values for {n} players")
    if end not in (END_OUT, END_FISH):
        raise ValueError(f"unknown round end {end!r}")
    if fish_scoring not in (FISH_FOR_ALL, FISH_FOR_ONE):
        raise ValueError(f"unknown fish scoring {fish_scoring!r}")
    if not 0 <= seat < n:
        raise ValueError(f"seat {seat} out of range for {n} players")
    players = tuple(players)

    # §7.2: round points. ``keep``: the seat whose remembered points stay when the others' are wiped
    # (fish_for_one), None when every seat keeps its own.
    keep = None
    if end == END_OUT:
        rp = list(hand_values)
        rp[seat] = 0
    elif fish_scoring == FISH_FOR_ALL:
        rp = list(hand_values)
    else:
        total = sum(hand_values)
        top = _unique_top(hand_values)
        if top is None:
            # A draw: nobody scores, remembered points stay, the whole round goes into the pot.
            return _new_tuple(RoundOutcome, (players, (0,) * n, fish_pot + total, True))
        rp = [0] * n
        rp[top] = total
        keep = top

    # §7.3: a carried pot goes to the unique top scorer of a round that is not a draw [D-9].
    if fish_pot:
        top = _unique_top(rp)
        if top is not None:
            rp[top] += fish_pot
            fish_pot = 0

    went_out = seat if end == END_OUT else -1
    return _new_tuple(RoundOutcome, (_write_round(players, rp, went_out, keep, open_threshold), tuple(rp), fish_pot,
                                     False))


def _write_round(players: Sequence[PlayerScore], rp: Sequence[int], went_out: int, keep: int | None,
                 open_threshold: int) -> tuple[PlayerScore, ...]:
    """§7.4: each account after writing its final round points ``rp``. ``went_out`` is the seat that
    went out (-1 after a fish); ``keep`` the only seat whose remembered points stay (fish_for_one),
    ``None`` when every seat keeps its own."""
    written = []
    for p, before in enumerate(players):
        remembered = before.remembered if keep is None or p == keep else 0
        points = rp[p]
        if before.open:
            open_, score = True, before.score + points
        elif p == went_out:
            open_, score, remembered = False, before.score, 0
        elif points > open_threshold:
            open_, score, remembered = True, before.score + points + remembered, 0
        else:
            open_, score, remembered = False, before.score, remembered + points
        written.append(_new_tuple(PlayerScore, (open_, score, remembered)))
    return tuple(written)


def score_party_round(
    *,
    players: Sequence[PlayerScore],
    hand_values: Sequence[int],
    end: str,
    seat: int,
    fish_scoring: str,
    open_threshold: int,
    fish_pot: int,
    party_of: Sequence[int],
) -> RoundOutcome:
    """Score one round of a goat game whose seats play in parties (docs/rules.md "goat-pairs"): each
    party is one account, charged with the pips left in its members' hands, on the one path of
    :func:`score_goat_round`; every member then carries the party's account and its round points.

    ``party_of[s]`` is seat ``s``'s party (0, 1, … in order of first seat); ``players`` holds each
    seat's account, the same for the members of a party (the first member's is read)."""
    n = len(players)
    if len(party_of) != n or len(hand_values) != n:
        raise ValueError(f"{len(party_of)} parties and {len(hand_values)} hand values for {n} players")
    count = max(party_of) + 1
    first = [party_of.index(party) for party in range(count)]
    charged = [0] * count
    for s, value in enumerate(hand_values):
        charged[party_of[s]] += value
    outcome = score_goat_round(players=[players[s] for s in first], hand_values=charged, end=end,
                               seat=party_of[seat], fish_scoring=fish_scoring, open_threshold=open_threshold,
                               fish_pot=fish_pot)
    return _new_tuple(RoundOutcome, (
        tuple([outcome.players[party] for party in party_of]),
        tuple([outcome.round_points[party] for party in party_of]), outcome.fish_pot, outcome.draw,
    ))


def score_fixed_round(*, players: Sequence[PlayerScore], hand_values: Sequence[int]) -> RoundOutcome:
    """Score one round of a fixed-rounds game (§8): every player adds the pips in hand to ``score``."""
    if len(hand_values) != len(players):
        raise ValueError(f"{len(hand_values)} hand values for {len(players)} players")
    written = tuple([_new_tuple(PlayerScore, (False, p.score + h, 0))
                     for p, h in zip(players, hand_values, strict=True)])
    return _new_tuple(RoundOutcome, (written, tuple(hand_values), 0, False))


def round_winners(round_points: Sequence[int]) -> tuple[int, ...]:
    """The winners of a fixed-rounds round (§8): the seats with the fewest pips left (ties share)."""
    least = min(round_points)
    return tuple([s for s, p in enumerate(round_points) if p == least])


def goat_game_over(players: Sequence[PlayerScore], limit: int, remembered_counts: bool = True) -> bool:
    """True once any player's points reach ``limit`` (§7.5); remembered points are part of them only
    when ``remembered_counts`` (D-8)."""
    if remembered_counts:
        return max([p.score + p.remembered for p in players]) >= limit
    return max([p.score for p in players]) >= limit


def _fewest(points: Sequence[int], seats: Sequence[int]) -> list[int]:
    if not seats:
        return []
    least = min(points[s] for s in seats)
    return [s for s in seats if points[s] == least]


def result_by_limit(points: Sequence[int], limit: int) -> tuple[list[int], list[int]]:
    """``(goats, winners)`` of a goat game that reached its limit.

    Every seat at or above ``limit`` is a goat [D-10]; the winners are the other seats with the fewest
    points (ties share).  If every seat is a goat there are no winners.
    """
    goats = [s for s, p in enumerate(points) if p >= limit]
    others = [s for s in range(len(points)) if s not in goats]
    return goats, _fewest(points, others)


def result_by_rounds(points: Sequence[int]) -> tuple[list[int], list[int]]:
    """``(goats, winners)`` of a fixed-rounds game (§8): the lowest total wins, the highest is the goat [D-11].

    Ties share both places.  Decision **D-15 (ours)**: if every seat has the same total nobody lost,
    so ``goats`` is empty (and every seat is a winner) — otherwise the same seats would be both.
    """
    seats = list(range(len(points)))
    winners = _fewest(points, seats)
    if len(winners) == len(seats):
        return [], winners
    most = max(points)
    return [s for s in seats if points[s] == most], winners


def _offenders(offender: int, seats: int, party_of: Sequence[int] | None) -> list[int]:
    """The offender and, in a game of parties, the rest of its party: who answers for a timeout."""
    if party_of is None:
        return [offender]
    return [s for s in range(seats) if party_of[s] == party_of[offender]]


def result_interrupted(points: Sequence[int], offender: int,
                       party_of: Sequence[int] | None = None) -> tuple[list[int], list[int]]:
    """``(goats, winners)`` after a timeout or resignation (§9): the offender is the goat (in a game of
    parties its whole party, D-31); the winners are the other seats with the fewest points."""
    goats = _offenders(offender, len(points), party_of)
    others = [s for s in range(len(points)) if s not in goats]
    return goats, _fewest(points, others)


def round_half_up(numerator: int, denominator: int) -> int:
    """``numerator / denominator`` rounded to an int, halves away from zero (school rounding, §9).

    ``round_half_up(75, 10) == 8``, ``round_half_up(25, 10) == 3`` (``round(2.5) == 2`` is banker's
    rounding, wrong here), ``round_half_up(-25, 10) == -3``. Exact: integer arithmetic only.
    """
    if denominator == 0:
        raise ZeroDivisionError("round_half_up denominator is zero")
    quotient, remainder = divmod(abs(numerator), abs(denominator))
    if 2 * remainder >= abs(denominator):
        quotient += 1
    return quotient if (numerator < 0) == (denominator < 0) else -quotient


def rating_points_finished(points: Sequence[int], goats: Sequence[int]) -> list[int]:
    """Rating earned in a normally finished game (§9): goats 0, others ``max(1, round_half_up((100 - p) / 10))``."""
    goat_seats = set(goats)
    return [0 if s in goat_seats else max(1, round_half_up(100 - p, 10)) for s, p in enumerate(points)]


def rating_points_interrupted(points: Sequence[int], offender: int,
                              party_of: Sequence[int] | None = None) -> list[int]:
    """Rating earned after a timeout or resignation of ``offender`` (§9): the offender (and its party,
    D-31) 0, others ``max(1, round_half_up((points[offender] - p) / 10))``."""
    t = points[offender]
    out = set(_offenders(offender, len(points), party_of))
    return [0 if s in out else max(1, round_half_up(t - p, 10)) for s, p in enumerate(points)]


def _split(amount: int, recipients: Sequence[int], seats: int) -> list[int]:
    """``amount`` chips shared equally by ``recipients``; the remainder to the lowest recipient seat."""
    gains = [0] * seats
    if not recipients:
        return gains
    share, remainder = divmod(amount, len(recipients))
    for s in recipients:
        gains[s] += share
    gains[min(recipients)] += remainder
    return gains


def chips_finished(ante: int, seats: int, winners: Sequence[int]) -> list[int]:
    """Net chip change per seat after a normal end (§10): every seat staked ``ante``; the pot goes to
    the winners, split equally, any remainder to the lowest winning seat.  Sums to zero [D-14].

    With no winner at all (every seat a goat) every stake is returned: all zeros.
    """
    if not winners:
        return [0] * seats
    gains = _split(ante * seats, sorted(set(winners)), seats)
    return [g - ante for g in gains]


def chips_interrupted(ante: int, seats: int, offender: int, party_of: Sequence[int] | None = None) -> list[int]:
    """Net chip change per seat after a timeout or resignation (§10): the offender (and its party,
    D-31) loses the stake; every other seat gets its own stake back plus an equal share of the
    offenders' stakes (remainder to the lowest seat among them).  Sums to zero [D-14]."""
    out = _offenders(offender, seats, party_of)
    others = [s for s in range(seats) if s not in out]
    if not others:
        return [0] * seats
    gains = _split(ante * len(out), others, seats)
    for s in out:
        gains[s] -= ante
    return gains


class PairResult(NamedTuple):
    """How a paired game ended, for the pages (docs/rules.md "goat-pairs", D-30): the losing pair's
    seats, the winners' margin (the goats' points minus the winners'), and whether it is a dry goat
    («сухой козёл»: the winning pair has no points at all)."""

    goats: tuple[int, ...]
    margin: int
    dry: bool


def pair_result(points: Sequence[int], goats: Sequence[int], winners: Sequence[int]) -> PairResult | None:
    """The :class:`PairResult` of a finished paired game, ``None`` when there is no single losing pair
    and winning pair (both pairs at the limit at once, D-15)."""
    if not goats or not winners:
        return None
    lost, won = points[goats[0]], points[winners[0]]
    return PairResult(tuple(goats), lost - won, won == 0)
