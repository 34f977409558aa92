"""goat-pairs (docs/rules.md §12, decisions D-24 … D-31): two pairs, partners opposite, all 28 tiles
dealt, the losing pair charged. The worked examples P1–P7 of docs/rules.md are tests named after them;
the whole random games of the ruleset are in test_games_property.py."""

from __future__ import annotations

import random

import pytest

from goat.engine.errors import InvalidOptions
from goat.engine.replay import replay
from goat.engine.rules import PLAY, PlayTile, TimeOut, decide, legal_moves, pending
from goat.engine.rulesets import parties, partner_of, resolve_options, team_of
from goat.engine.scoring import (
    PlayerScore,
    chips_interrupted,
    pair_result,
    rating_points_finished,
    rating_points_interrupted,
    result_by_limit,
    result_interrupted,
    score_party_round,
)
from goat.engine.simulate import simulate_game
from goat.engine.tiles import tile_str
from helpers import new_game

# Masha and Olya are one pair (seats 0 and 2), Alex and Serg the other (seats 1 and 3).
MASHA, ALEX, OLYA, SERG = range(4)
PAIRS = parties("goat-pairs", 4)
NOTHING = (PlayerScore(),) * 4


def closed(remembered: int) -> PlayerScore:
    return PlayerScore(open=False, score=0, remembered=remembered)


def opened(score: int) -> PlayerScore:
    return PlayerScore(open=True, score=score, remembered=0)


def pairs_of(ours: PlayerScore, theirs: PlayerScore) -> tuple[PlayerScore, ...]:
    """The four seats' accounts when Masha and Olya hold ``ours``, Alex and Serg ``theirs``."""
    return (ours, theirs, ours, theirs)


def pair_round(players, hand_values, *, end, seat, fish_scoring="fish_for_one", fish_pot=0):
    return score_party_round(players=players, hand_values=hand_values, end=end, seat=seat,
                             fish_scoring=fish_scoring, open_threshold=12, fish_pot=fish_pot, party_of=PAIRS)


# --- seating and creation (D-24, D-25) ----------------------------------------------------------------


def test_partners_sit_opposite():
    assert PAIRS == (0, 1, 0, 1)
    assert [team_of("goat-pairs", s) for s in range(4)] == [0, 1, 0, 1]
    assert [partner_of("goat-pairs", 4, s) for s in range(4)] == [2, 3, 0, 1]
    assert parties("goat-classic", 4) == (0, 1, 2, 3)
    assert team_of("goat-classic", 1) is None and partner_of("goat-classic", 4, 1) is None


@pytest.mark.parametrize("seats", [2, 3])
def test_a_pairs_game_has_exactly_four_seats(seats):
    with pytest.raises(InvalidOptions) as caught:
        resolve_options("goat-pairs", seats)
    assert "seats must be 4" in caught.value.detail


@pytest.mark.parametrize("overrides", [
    {"hand_size": 6}, {"hand_size": 5}, {"bazaar_reserve": 1}, {"scoring": "rounds", "rounds": 3},
    {"rounds": 2}, {"hand_size": 7.0},
])
def test_options_the_ruleset_does_not_take_are_refused(overrides):
    with pytest.raises(InvalidOptions) as caught:
        resolve_options("goat-pairs", 4, overrides)
    assert "goat-pairs does not take option" in caught.value.detail


@pytest.mark.parametrize("overrides", [
    {"fish_scoring": "fish_for_all"}, {"lone_double_zero": 25}, {"open_threshold": 0},
    {"remembered_counts": True}, {"limit": 51}, {"opener": "smallest_double"}, {"later_leader": "opener"},
    {"redeal": False}, {"move_time": 0},
])
def test_the_yards_variants_are_options(overrides):
    options = resolve_options("goat-pairs", 4, overrides)
    for key, value in overrides.items():
        assert getattr(options, key) == value


def test_all_28_tiles_are_dealt_and_a_seat_without_a_fit_knocks():
    state, _ = new_game("goat-pairs", 4, seed=5)
    assert [len(hand) for hand in state.table.hands] == [7, 7, 7, 7] and state.table.bazaar == ()
    rng = random.Random(5)
    knocked = False
    while pending(state)[0] == PLAY:
        seat = pending(state)[1]
        tile, end = rng.choice(legal_moves(state))
        state, events = decide(state, PlayTile(seat=seat, tile=tile_str(tile), end=end))
        assert all(e["type"] != "tile_drawn" for e in events)  # there is no bazaar to draw from
        knocked = knocked or any(e["type"] == "knocked" for e in events)
    assert knocked


@pytest.mark.parametrize("seed", range(6))
def test_round_one_is_led_by_the_holder_of_1_1_and_later_rounds_by_the_last_winner(seed):
    """All 28 tiles are dealt, so someone always holds 1-1 and must lead it (D-26); each later round is
    led by the seat that went out or made the fish."""
    log = simulate_game(random.Random(seed), ruleset="goat-pairs", seats=4, interrupt_chance=0)
    state = replay(log).state
    first_plays = [e for i, e in enumerate(log) if e["type"] == "tile_played"
                   and log[i - 1]["type"] in ("round_dealt", "knocked") and _first_of_round(log, i)]
    assert len(first_plays) == len(state.rounds) >= 1
    assert first_plays[0]["data"]["tile"] == "1-1"
    for record, play in zip(state.rounds, first_plays[1:], strict=False):
        assert play["seat"] == record.seat


def _first_of_round(log, index) -> bool:
    """Whether the play at ``index`` is its round's first (no play since the last deal)."""
    for e in reversed(log[:index]):
        if e["type"] == "round_dealt":
            return True
        if e["type"] == "tile_played":
            return False
    return False


# --- worked examples (docs/rules.md §12) ----------------------------------------------------------------


def test_p1_out_charges_the_other_pair_both_hands():
    """Masha goes out; Alex holds 9, Olya 12, Serg 8: Alex and Serg are charged 17 and open; Olya's
    12 is not counted, her partner went out."""
    outcome = pair_round(NOTHING, [0, 9, 12, 8], end="out", seat=MASHA)
    assert outcome.round_points == (0, 17, 0, 17)
    assert outcome.players == pairs_of(closed(0), opened(17))


def test_p2_a_pair_writes_once_it_is_charged_more_than_12():
    """Alex goes out; Masha 5 and Olya 4 make 9: noted, not counted. Next round Serg goes out; Masha 10
    and Olya 6 make 16: the pair opens with 16 + 9 = 25."""
    first = pair_round(NOTHING, [5, 0, 4, 3], end="out", seat=ALEX)
    assert first.players == pairs_of(closed(9), closed(0))
    assert [p.points_by(False) for p in first.players] == [0, 0, 0, 0]
    second = pair_round(first.players, [10, 2, 6, 0], end="out", seat=SERG)
    assert second.players == pairs_of(opened(25), closed(0))


def test_p3_a_fish_charges_the_pair_holding_more_with_all_four_hands():
    """A fish: Masha 10 and Olya 3 (13), Alex 7 and Serg 7 (14): Alex and Serg are charged 27."""
    outcome = pair_round(NOTHING, [10, 7, 3, 7], end="fish", seat=OLYA)
    assert outcome.round_points == (0, 27, 0, 27)
    assert outcome.players == pairs_of(closed(0), opened(27))


def test_p3_under_fish_for_all_each_pair_is_charged_its_own():
    outcome = pair_round(NOTHING, [10, 7, 3, 7], end="fish", seat=OLYA, fish_scoring="fish_for_all")
    assert outcome.round_points == (13, 14, 13, 14)
    assert outcome.players == pairs_of(opened(13), opened(14))


def test_p4_an_even_fish_is_carried_to_the_next_round():
    """A fish at 12 against 12: nobody is charged, 24 is carried; next round Masha goes out and Alex and
    Serg, charged 20, take the 24 too: 44."""
    draw = pair_round(NOTHING, [5, 6, 7, 6], end="fish", seat=ALEX)
    assert draw.draw and draw.fish_pot == 24 and draw.round_points == (0, 0, 0, 0)
    after = pair_round(draw.players, [0, 11, 3, 9], end="out", seat=MASHA, fish_pot=draw.fish_pot)
    assert after.round_points == (0, 44, 0, 44) and after.fish_pot == 0
    assert after.players == pairs_of(closed(0), opened(44))


def test_p5_a_bare_0_0_counts_10():
    """Masha goes out; Alex holds the bare 0-0 (10), Serg 1-2 (3): the pair is charged 13 and opens."""
    from goat.engine.scoring import hand_value
    from goat.engine.tiles import parse_tile

    values = [0, hand_value([parse_tile("0-0")], 10), 4, hand_value([parse_tile("1-2")], 10)]
    assert values[ALEX] == 10 and values[SERG] == 3
    outcome = pair_round(NOTHING, values, end="out", seat=MASHA)
    assert outcome.players == pairs_of(closed(0), opened(13))
    assert hand_value([parse_tile("0-0"), parse_tile("1-2")], 10) == 3


def test_p6_the_goat_pair_and_the_dry_goat():
    """Alex and Serg stand at 95, Masha and Olya have written nothing. Masha goes out; Alex 4, Serg 3:
    Alex and Serg reach 102 and are the goats, a dry goat, by 102; Masha and Olya earn 10 each."""
    before = pairs_of(closed(0), opened(95))
    outcome = pair_round(before, [0, 4, 6, 3], end="out", seat=MASHA)
    points = [p.points_by(False) for p in outcome.players]
    assert points == [0, 102, 0, 102]
    goats, winners = result_by_limit(points, 101)
    assert goats == [ALEX, SERG] and winners == [MASHA, OLYA]
    assert pair_result(points, goats, winners) == ((ALEX, SERG), 102, True)
    assert rating_points_finished(points, goats) == [10, 0, 10, 0]


def test_p6_a_goat_pair_against_a_pair_with_points_is_not_dry():
    assert pair_result([30, 104, 30, 104], [1, 3], [0, 2]) == ((1, 3), 74, False)
    assert pair_result([104, 101, 104, 101], [0, 1, 2, 3], []) is None


def test_p7_a_timeout_loses_the_game_for_the_pair():
    """Serg times out with Alex and Serg at 50, Masha and Olya at 30: Alex and Serg are the goats, Masha
    and Olya earn 2 each (20 / 10)."""
    points = [30, 50, 30, 50]
    assert result_interrupted(points, SERG, PAIRS) == ([ALEX, SERG], [MASHA, OLYA])
    assert rating_points_interrupted(points, SERG, PAIRS) == [2, 0, 2, 0]
    assert chips_interrupted(10, 4, SERG, PAIRS) == [10, -10, 10, -10]
    assert chips_interrupted(5, 4, ALEX, PAIRS) == [5, -5, 5, -5]


def test_a_timeout_in_a_real_pairs_game_names_the_pair():
    state, _ = new_game("goat-pairs", 4, seed=3)
    seat = pending(state)[1]
    state, _ = decide(state, TimeOut(seat=seat))
    assert sorted(state.result.goats) == sorted([seat, (seat + 2) % 4])
    assert sorted(state.result.winners) == sorted([(seat + 1) % 4, (seat + 3) % 4])
