"""The tournaments' pure core (tournaments.core) without a database: table sizes, swiss pairing and
the bye, prizes, the opponents_points tiebreak (docs/tournaments.md has the worked example) and the
standings order."""

from __future__ import annotations

from decimal import Decimal
from types import SimpleNamespace

from tournaments import core


def test_table_sizes_split_evenly_with_at_most_one_bye():
    assert core.table_sizes(10, 4) == [4, 3, 3]
    assert core.table_sizes(8, 4) == [4, 4]
    assert core.table_sizes(5, 4) == [3, 2]
    assert core.table_sizes(5, 2) == [2, 2, 1]
    assert core.table_sizes(1, 3) == [1]
    assert core.table_sizes(0, 3) == []
    for k in (2, 3, 4):
        for n in range(1, 40):
            sizes = core.table_sizes(n, k)
            assert sum(sizes) == n and max(sizes) <= k and sizes.count(1) <= 1
            assert max(sizes) - min(sizes) <= 1


def test_swiss_pairing_avoids_repeat_opponents_within_the_window():
    met = {1: {2}, 2: {1}, 3: {4}, 4: {3}}
    assert core.swiss_pairing([1, 2, 3, 4], [2, 2], met) == [[1, 3], [2, 4]]
    assert core.swiss_pairing([1, 2, 3, 4], [2, 2], {}) == [[1, 2], [3, 4]]


def test_swiss_pairing_looks_no_further_than_its_window():
    # 1 has met 2 and 3; with a window of one candidate past the first free one, 1 still meets 2
    met = {1: {2, 3}, 2: {1}, 3: {1}}
    assert core.swiss_pairing([1, 2, 3, 4], [2, 2], met, lookahead=1) == [[1, 2], [3, 4]]
    assert core.swiss_pairing([1, 2, 3, 4], [2, 2], met, lookahead=2) == [[1, 4], [2, 3]]


def test_opponents_met_are_everyone_at_the_same_tables():
    met = core.opponents_met([[1, 2, 3], [1, 4], [5]])
    assert met == {1: {2, 3, 4}, 2: {1, 3}, 3: {1, 2}, 4: {1}, 5: set()}


def test_the_bye_goes_to_the_lowest_placed_without_one():
    assert core.bye_player([1, 2, 3, 4, 5], had=set()) == 5
    assert core.bye_player([1, 2, 3, 4, 5], had={5, 4}) == 3
    assert core.bye_player([1, 2, 3], had={1, 2, 3}) == 3  # everyone had one: the lowest-placed again


def test_prizes_are_fifty_thirty_twenty_and_the_rest_to_first():
    assert core.prize_amounts(1000, 3) == [500, 300, 200]
    assert core.prize_amounts(1000, 10) == [500, 300, 200]
    assert core.prize_amounts(1000, 2) == [700, 300]  # third place's share goes to first
    assert core.prize_amounts(1000, 1) == [1000]
    assert core.prize_amounts(101, 3) == [51, 30, 20]  # rounding down, the remainder to first
    assert core.prize_amounts(0, 3) == [0, 0, 0]
    assert core.prize_amounts(500, 0) == []
    for pool in range(0, 300, 7):
        for places in range(1, 5):
            assert sum(core.prize_amounts(pool, places)) == pool  # nothing created, nothing lost


def test_the_worked_example_of_the_docs():
    # final points: A 12, B 12, C 7, D 3, E 5; round 1 A B C | D E, round 2 A D | B C E
    a, b, c, d, e = 1, 2, 3, 4, 5
    points = {a: 12, b: 12, c: 7, d: 3, e: 5}
    got = core.opponents_points(points=points, tables=[[a, b, c], [d, e], [a, d], [b, c, e]])
    assert got == {a: Decimal("12.50"), b: Decimal("15.50"), c: Decimal("20.50"), d: Decimal("17.00"),
                   e: Decimal("12.50")}


def test_thirds_are_rounded_half_up_and_keep_the_order():
    # at a table of four each mean has a denominator of 3: 22/3 = 7.33, 23/3 = 7.67
    got = core.opponents_points(points={1: 12, 2: 7, 3: 3, 4: 4}, tables=[[1, 2, 3, 4]])
    assert got == {1: Decimal("4.67"), 2: Decimal("6.33"), 3: Decimal("7.67"), 4: Decimal("7.33")}
    # a half: (7 + 4) / 2 = 5.5 exactly
    assert core.opponents_points(points={1: 0, 2: 7, 3: 4}, tables=[[1, 2, 3]])[1] == Decimal("5.50")


def test_a_player_alone_at_no_table_has_none():
    assert core.opponents_points(points={1: 5}, tables=[]) == {}


def test_the_order_is_points_goats_opponents_points_game_points_registration():
    def line(order, points=10, goats=0, opp="0", gp=50):
        return SimpleNamespace(points=points, goats=goats, opponents_points=Decimal(opp), game_points=gp,
                               registration_order=order)

    rows = [line(1, opp="3"), line(2, opp="9", gp=90), line(3, opp="9", gp=40), line(4, points=11, opp="0"),
            line(5, goats=1, opp="50"), line(6, opp="9", gp=40)]
    ranked = [r.registration_order for r in sorted(rows, key=core.standings_key)]
    # more points first; then fewer goats; higher opponents_points; lower game points; registration
    assert ranked == [4, 3, 6, 2, 1, 5]


def test_the_core_is_pure():
    """No database and no Django: the core imports only the standard library."""
    import ast
    from pathlib import Path

    tree = ast.parse(Path(core.__file__).read_text(encoding="utf-8"))
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {(node.module or "").split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert imported <= {"__future__", "collections", "decimal", "fractions", "typing"}, imported
