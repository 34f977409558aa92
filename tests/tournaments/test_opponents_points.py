"""The ``opponents_points`` tiebreak in the standings: the projection and its rebuild compute it alike,
checked against a recount from the games' own results (its arithmetic and its place among the
tiebreaks: tests/tournaments/test_core.py)."""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal
from fractions import Fraction

import pytest

from goat.engine import deal as dealing
from goat.games.computer import stand_ins_play
from tournaments import services
from tournaments.models import Bye, Seating, Standing, Table

pytestmark = pytest.mark.django_db(transaction=True)


def recount(tournament) -> dict[int, Decimal]:
    """opponents_points from the games' results and the byes alone (not through the projection)."""
    points: dict[int, int] = defaultdict(int)
    tables = []
    for table in Table.objects.filter(tournament=tournament).select_related("game"):
        players = dict(table.game.seat_set.values_list("seat", "player_id"))
        tables.append(list(players.values()))
        for seat, player_id in players.items():
            points[player_id] += table.game.result["rating_points"][seat]
    for bye in Bye.objects.filter(tournament=tournament):
        points[bye.player_id] += bye.points
    exact: dict[int, Fraction] = defaultdict(Fraction)
    for players in tables:
        for p in players:
            others = [points[q] for q in players if q != p]
            exact[p] += Fraction(sum(others), len(others))
    return {p: Decimal(round(v * 100)) / 100 for p, v in exact.items()}


def lines(tournament):
    return list(Standing.objects.filter(tournament=tournament).order_by("rank").values_list(
        "player_id", "points", "games", "goats", "opponents_points", "game_points", "byes", "withdrawn", "rank"))


def seat_outcomes(tournament):
    return sorted(Seating.objects.filter(tournament=tournament).values_list(
        "table_id", "player_id", "rating_points", "goat", "game_points"))


def test_the_projection_and_the_rebuild_compute_it_alike(bots, make_tournament, monkeypatch):
    # 7 players at tables of 3 (3+2+2) for 3 rounds: tables of two sizes, so means of halves and whole numbers.
    # The deals come from a fixed sequence of server seeds and the stand-ins' moves from a fixed seed, so the
    # games (and whether some mean is fractional) are the same in every run.
    seeds = (f"{n:064x}" for n in range(1, 1000))
    monkeypatch.setattr(dealing, "new_server_seed", lambda: next(seeds))
    players = bots(7)
    tournament = make_tournament(rounds=3, table_size=3)
    for player in players:
        services.tournament_register(tournament_id=tournament.pk, player=player)
    services.tournaments_start_due()
    stand_ins_play(prefix="bot", until_done=True, seed=7)
    tournament.refresh_from_db()
    assert tournament.status == "finished"

    live = lines(tournament)
    expected = recount(tournament)
    assert {row[0]: row[4] for row in live} == expected
    assert any(v != v.to_integral_value() for v in expected.values())  # at least one mean was fractional
    keys = [(-p, g, -op, gp) for _, p, _, g, op, gp, *_ in live]
    assert keys == sorted(keys)
    outcomes = seat_outcomes(tournament)
    assert all(o[2] is not None and o[3] is not None and o[4] is not None for o in outcomes)

    services.standings_rebuild(tournament_id=tournament.pk)
    assert lines(tournament) == live
    Seating.objects.filter(tournament=tournament).update(rating_points=None, goat=None, game_points=None)
    services.standings_rebuild(tournament_id=tournament.pk)
    assert lines(tournament) == live
    assert seat_outcomes(tournament) == outcomes
