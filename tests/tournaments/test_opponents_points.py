"""The ``opponents_points`` tiebreak (docs/tournaments.md has the worked
example): its arithmetic, its place among the tiebreaks, and the standings projection and its rebuild
computing it alike, checked against a recount from the games' own results."""

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


def test_the_worked_example_of_the_docs():
    # final points: A 12, B 12, C 7, D 3, E 5; round 1 A B C | D E, round 2 A D | B C E
    a, b, c, d, e = 1, 2, 3, 4, 5
    points = {a: 12, b: 12, c: 7, d: 3, e: 5}
    got = services.opponents_points(points=points, tables=[[a, b, c], [d, e], [a, d], [b, c, e]])
    assert got == {a: Decimal("12.50"), b: Decimal("15.50"), c: Decimal("20.50"), d: Decimal("17.00"),
                   e: Decimal("12.50")}


def test_thirds_are_rounded_half_up_and_keep_the_order():
    # at a table of four each mean has a denominator of 3: 22/3 = 7.33, 23/3 = 7.67
    got = services.opponents_points(points={1: 12, 2: 7, 3: 3, 4: 4}, tables=[[1, 2, 3, 4]])
    assert got == {1: Decimal("4.67"), 2: Decimal("6.33"), 3: Decimal("7.67"), 4: Decimal("7.33")}
    # a half: (7 + 4) / 2 = 5.5 exactly
    assert services.opponents_points(points={1: 0, 2: 7, 3: 4}, tables=[[1, 2, 3]])[1] == Decimal("5.50")


def test_a_player_alone_at_no_table_has_none():
    assert services.opponents_points(points={1: 5}, tables=[]) == {}


def test_the_order_is_points_goats_opponents_points_game_points_registration():
    def line(order, points=10, goats=0, opp="0", gp=50):
        return Standing(points=points, goats=goats, opponents_points=Decimal(opp), game_points=gp,
                        registration_order=order)

    rows = [line(1, opp="3"), line(2, opp="9", gp=90), line(3, opp="9", gp=40), line(4, points=11, opp="0"),
            line(5, goats=1, opp="50"), line(6, opp="9", gp=40)]
    ranked = [r.registration_order for r in sorted(rows, key=services.standings_key)]
    # more points first; then fewer goats; higher opponents_points; lower game points; registration
    assert ranked == [4, 3, 6, 2, 1, 5]


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
