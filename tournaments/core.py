"""The tournaments' pure core: table sizes, swiss pairing and the bye, prizes, the opponents_points
tiebreak and the standings order. Plain values in, plain values out: no database, no Django, so each
rule is tested alone (tests/tournaments/test_core.py) and the services (tournaments.services) apply
them to the rows. docs/tournaments.md describes them."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import Any, Protocol

#: rating points a swiss bye scores (about what a middling non-goat finish earns, docs/rules.md §9)
BYE_POINTS = 5
#: prize shares of the pool for places 1, 2, 3 (percent); what is not given goes to first place
PRIZE_SHARES = (50, 30, 20)
#: how many candidates past the first free one the swiss pairing looks at to avoid repeat opponents
PAIRING_LOOKAHEAD = 6
CENT = Decimal("0.01")
ZERO = Decimal("0.00")


def table_sizes(players: int, table_size: int) -> list[int]:
    """Split ``players`` into as few tables of at most ``table_size`` as possible, as evenly as possible
    (sizes differ by at most one; larger tables first). A "table" of 1 is a bye (at most one)."""
    if players <= 0:
        return []
    tables = -(-players // table_size)
    base, extra = divmod(players, tables)
    return [base + 1] * extra + [base] * (tables - extra)


def opponents_met(tables: Iterable[Sequence[int]]) -> dict[int, set[int]]:
    """Player id -> ids of everyone they sat with, over ``tables`` (the player ids at each table)."""
    met: dict[int, set[int]] = defaultdict(set)
    for players in tables:
        for p in players:
            met[p].update(q for q in players if q != p)
    return met


def swiss_pairing(order: Sequence[int], sizes: Sequence[int], met: dict[int, set[int]],
                  lookahead: int = PAIRING_LOOKAHEAD) -> list[list[int]]:
    """Fill tables in standings order: each table takes the best-placed free player, then, seat by seat,
    the free player among the next ``lookahead + 1`` who has met the fewest of those already seated
    (ties: the better placed). Neighbours in the standings meet, repeats are avoided where the
    window allows."""
    free = list(order)
    tables = []
    for size in sizes:
        table = [free.pop(0)]
        while len(table) < size:
            window = free[:lookahead + 1]
            best = min(window, key=lambda p: (sum(q in met.get(p, ()) for q in table), window.index(p)))
            free.remove(best)
            table.append(best)
        tables.append(table)
    return tables


def bye_player(order: Sequence[int], had: set[int]) -> int:
    """Who gets a round's bye: the lowest-placed player in ``order`` who has had none yet (``had``),
    else the lowest-placed."""
    return next((p for p in reversed(order) if p not in had), order[-1])


def prize_amounts(pool: int, places: int) -> list[int]:
    """Shares of ``pool`` for the first ``min(places, 3)`` places: 50/30/20 % rounded down; whatever is
    left (rounding, and the shares of places nobody holds) goes to first place."""
    shares = [pool * pct // 100 for pct in PRIZE_SHARES[:max(0, min(places, len(PRIZE_SHARES)))]]
    if shares:
        shares[0] += pool - sum(shares)
    return shares


def opponents_points(*, points: dict[int, int], tables: Iterable[Sequence[int]]) -> dict[int, Decimal]:
    """Buchholz for tables: for each player, over their ``tables`` (the player ids at each recorded
    table), Σ the mean of the others' standings ``points``; rounded half up to two places.

    With 1 to 3 others at a table every term is a multiple of 1/6, so two sums that differ differ by
    at least 1/6 and the rounded values order the players exactly as the exact ones would."""
    exact: dict[int, Fraction] = defaultdict(Fraction)
    for players in tables:
        for p in players:
            others = [points.get(q, 0) for q in players if q != p]
            if others:
                exact[p] += Fraction(sum(others), len(others))
    return {p: (Decimal(v.numerator) / Decimal(v.denominator)).quantize(CENT, rounding=ROUND_HALF_UP)
            for p, v in exact.items()}


class StandingLine(Protocol):
    """What the standings order reads of a line (a ``Standing`` row, or any object with these)."""

    points: int
    goats: int
    opponents_points: Decimal
    game_points: int
    registration_order: int


def standings_key(s: StandingLine) -> tuple[Any, ...]:
    """Rating points (more is better), then fewer goats, higher opponents_points, lower total game points,
    earlier registration (docs/tournaments.md)."""
    return (-s.points, s.goats, -s.opponents_points, s.game_points, s.registration_order)
