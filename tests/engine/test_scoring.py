"""Goat and fixed-rounds scoring, results, ratings and chips (docs/rules.md §7–§10)."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, localcontext

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goat.engine.scoring import (
    PlayerScore,
    RoundOutcome,
    chips_finished,
    chips_interrupted,
    goat_game_over,
    hand_value,
    points,
    rating_points_finished,
    rating_points_interrupted,
    result_by_limit,
    result_by_rounds,
    result_interrupted,
    round_half_up,
    round_winners,
    score_fixed_round,
    score_goat_round,
)
from goat.engine.tiles import parse_tile

MASHA, ALEX, OLYA, SERG = range(4)


def closed(remembered: int) -> PlayerScore:
    return PlayerScore(open=False, score=0, remembered=remembered)


def opened(score: int) -> PlayerScore:
    return PlayerScore(open=True, score=score, remembered=0)


# The "before" of the worked examples: Masha +19, Alex 0, Olya +7, Serg +4 (nobody open).
BEFORE = (closed(19), closed(0), closed(7), closed(4))


def goat(players, hand_values, *, end, seat, fish_scoring="fish_for_all", fish_pot=0, open_threshold=12):
    return score_goat_round(
        players=players,
        hand_values=hand_values,
        end=end,
        seat=seat,
        fish_scoring=fish_scoring,
        open_threshold=open_threshold,
        fish_pot=fish_pot,
    )


def hand(text: str):
    return [parse_tile(t) for t in text.split()]


# --- worked examples of docs/rules.md §7 ------------------------------------------------------------------

def test_e1_out_resets_winner_remembered_and_opens_olya():
    outcome = goat(BEFORE, [0, 3, 13, 5], end="out", seat=MASHA)
    assert outcome.players == (closed(0), closed(3), opened(20), closed(9))
    assert outcome.round_points == (0, 3, 13, 5)
    assert outcome.fish_pot == 0 and not outcome.draw


def test_e2_fish_for_one_gives_pot_to_top_scorer():
    outcome = goat(BEFORE, [2, 3, 13, 5], end="fish", seat=ALEX, fish_scoring="fish_for_one")
    assert outcome.round_points == (0, 0, 23, 0)
    assert outcome.players == (closed(0), closed(0), opened(30), closed(0))
    assert not outcome.draw and outcome.fish_pot == 0


def test_e3_fish_for_one_draw_carries_pot_to_next_round():
    draw = goat(BEFORE, [3, 14, 14, 4], end="fish", seat=MASHA, fish_scoring="fish_for_one")
    assert draw.draw
    assert draw.fish_pot == 35
    assert draw.round_points == (0, 0, 0, 0)
    assert draw.players == BEFORE  # nobody scores, remembered points stay

    nxt = goat(draw.players, [0, 5, 9, 20], end="out", seat=MASHA, fish_scoring="fish_for_one",
               fish_pot=draw.fish_pot)
    assert nxt.round_points[SERG] == 55
    assert nxt.round_points == (0, 5, 9, 55)
    assert nxt.fish_pot == 0 and not nxt.draw
    assert nxt.players == (closed(0), closed(5), closed(16), opened(59))


def test_e4_lone_double_zero_counts_ten():
    assert hand_value(hand("0-0"), 10) == 10
    assert hand_value(hand("0-0 1-2"), 10) == 3


def test_lone_double_zero_counts_zero_in_domino_3rounds():
    assert hand_value(hand("0-0"), 0) == 0


def test_hand_value_is_sum_of_pips_and_empty_hand_is_zero():
    assert hand_value(hand("6-6 5-4 0-1"), 10) == 22
    assert hand_value([], 10) == 0


# --- rules and decisions ----------------------------------------------------------------------------

def test_d3_twelve_exactly_is_remembered():
    outcome = goat((closed(5), closed(0)), [0, 12], end="out", seat=0)
    assert outcome.players[1] == closed(12)


def test_d3_thirteen_opens_the_account():
    outcome = goat((closed(0), closed(5)), [0, 13], end="out", seat=0)
    assert outcome.players[1] == opened(18)


def test_d8_points_are_score_plus_remembered_when_remembered_points_count():
    p = PlayerScore(open=True, score=40, remembered=3)
    assert p.points_by(True) == 43
    assert not hasattr(p, "points")  # the game's points are asked of the game (GameState.points), by its rule
    assert p.to_dict(True) == {"open": True, "score": 40, "remembered": 3, "points": 43}
    assert PlayerScore().to_dict(True) == {"open": False, "score": 0, "remembered": 0, "points": 0}


def test_d8_points_are_the_score_alone_when_remembered_points_do_not_count():
    p = closed(9)
    assert p.points_by(False) == 0
    assert p.to_dict(False) == {"open": False, "score": 0, "remembered": 9, "points": 0}  # remembered still shown
    assert points((opened(30), closed(9)), False) == [30, 0]
    assert points((opened(30), closed(9)), True) == [30, 9]


def test_d8_remembered_points_count_toward_the_limit():
    assert goat_game_over((opened(90), PlayerScore(open=False, score=0, remembered=101)), 101)
    assert not goat_game_over((opened(100), closed(12)), 101)


def test_d8_remembered_points_do_not_count_toward_the_limit_when_remembered_counts_is_false():
    assert not goat_game_over((opened(90), PlayerScore(open=False, score=0, remembered=130)), 125, False)
    assert goat_game_over((opened(125), closed(3)), 125, False)


def test_section_8_round_winners_are_the_fewest_pips_and_ties_share():
    assert round_winners((0, 7, 3)) == (0,)
    assert round_winners((5, 2, 2, 9)) == (1, 2)


def test_d9_shared_top_round_points_keep_the_pot_carried():
    outcome = goat((closed(0), closed(0), closed(0)), [0, 8, 8], end="out", seat=0, fish_pot=20)
    assert outcome.fish_pot == 20
    assert outcome.round_points == (0, 8, 8)
    assert not outcome.draw


def test_d9_pot_goes_to_the_unique_top_of_a_later_round():
    outcome = goat((closed(0), closed(0), closed(0)), [0, 8, 9], end="out", seat=0, fish_pot=20)
    assert outcome.fish_pot == 0
    assert outcome.round_points == (0, 8, 29)
    assert outcome.players[2] == opened(29)


def test_a_draw_round_keeps_the_carried_pot_and_adds_to_it():
    outcome = goat(BEFORE, [5, 5, 1, 2], end="fish", seat=0, fish_scoring="fish_for_one", fish_pot=30)
    assert outcome.draw and outcome.fish_pot == 43
    assert outcome.players == BEFORE


def test_pot_added_on_top_for_an_out_round():
    outcome = goat((opened(20), closed(2)), [0, 4], end="out", seat=0, fish_pot=11)
    assert outcome.round_points == (0, 15)
    assert outcome.players == (opened(20), opened(17))
    assert outcome.fish_pot == 0


def test_d21_a_carried_pot_is_round_points_an_unopened_receiver_may_remember():
    """D-21: the pot joins the receiver's round points and is written like them: 4 + 5 stays under the
    threshold, so the receiver who has not opened remembers 9."""
    outcome = goat((closed(0), closed(0)), [0, 4], end="out", seat=0, fish_pot=5)
    assert outcome.round_points == (0, 9) and outcome.fish_pot == 0
    assert outcome.players[1] == closed(9)


def test_pot_added_on_top_for_a_fish_for_all_round():
    outcome = goat((closed(0), closed(0)), [3, 4], end="fish", seat=0, fish_pot=10)
    assert outcome.round_points == (3, 14)


def test_fish_for_all_every_player_scores_their_hand():
    outcome = goat(BEFORE, [2, 3, 13, 5], end="fish", seat=SERG, fish_scoring="fish_for_all")
    assert outcome.round_points == (2, 3, 13, 5)
    # The fisher is not "out": Serg keeps his remembered points and adds to them.
    assert outcome.players == (closed(21), closed(3), opened(20), closed(9))


def test_already_open_player_scores_even_small_round_points():
    outcome = goat((opened(30), closed(0)), [1, 0], end="out", seat=1)
    assert outcome.players[0] == opened(31)


def test_open_player_who_goes_out_keeps_their_score():
    outcome = goat((opened(30), closed(0)), [0, 4], end="out", seat=0)
    assert outcome.players == (opened(30), closed(4))


def test_open_player_with_fish_for_one_loss_gets_zero():
    outcome = goat((opened(30), closed(6), closed(2)), [4, 3, 9], end="fish", seat=0, fish_scoring="fish_for_one")
    assert outcome.round_points == (0, 0, 16)
    assert outcome.players == (opened(30), closed(0), opened(18))


def test_fish_for_one_winner_under_threshold_keeps_remembering():
    outcome = goat((closed(3), closed(5)), [2, 4], end="fish", seat=0, fish_scoring="fish_for_one")
    assert outcome.players == (closed(0), closed(11))


def test_score_goat_round_refuses_unknown_end_and_fish_scoring():
    with pytest.raises(ValueError):
        goat(BEFORE, [0, 1, 2, 3], end="blocked", seat=0)
    with pytest.raises(ValueError):
        goat(BEFORE, [0, 1, 2, 3], end="fish", seat=0, fish_scoring="fish_for_two")


def test_fixed_round_adds_pips_to_penalty_totals():
    before = (PlayerScore(score=4), PlayerScore(score=0), PlayerScore(score=10))
    outcome = score_fixed_round(players=before, hand_values=[0, 7, 3])
    assert outcome == RoundOutcome(
        players=(PlayerScore(score=4), PlayerScore(score=7), PlayerScore(score=13)),
        round_points=(0, 7, 3),
        fish_pot=0,
        draw=False,
    )
    assert not any(p.open or p.remembered for p in outcome.players)


def test_game_over_when_any_player_reaches_the_limit():
    assert goat_game_over((opened(101), closed(0)), 101)
    assert not goat_game_over((opened(100), closed(0)), 101)


# --- results ----------------------------------------------------------------------------------------

def test_d10_every_player_at_or_above_the_limit_is_a_goat():
    goats, winners = result_by_limit([101, 40, 130, 35], 101)
    assert goats == [0, 2]
    assert winners == [3]


def test_result_by_limit_winners_share_the_fewest_points():
    assert result_by_limit([120, 30, 30], 101) == ([0], [1, 2])


def test_result_by_limit_every_seat_a_goat_has_no_winner():
    assert result_by_limit([101, 110], 101) == ([0, 1], [])


def test_d11_fixed_rounds_highest_total_is_the_goat_lowest_wins():
    assert result_by_rounds([20, 7, 33]) == ([2], [1])
    assert result_by_rounds([20, 7, 33, 7, 33]) == ([2, 4], [1, 3])


def test_d15_fixed_rounds_with_all_totals_equal_has_no_goat():
    assert result_by_rounds([12, 12, 12]) == ([], [0, 1, 2])


def test_interrupted_result_names_the_offender_and_the_lowest_others():
    assert result_interrupted([32, 30, 13, 13], 0) == ([0], [2, 3])
    assert result_interrupted([5, 30], 0) == ([0], [1])


# --- rounding and ratings ---------------------------------------------------------------------------

@pytest.mark.parametrize("num, den, expected", [(75, 10, 8), (65, 10, 7), (5, 10, 1), (4, 10, 0), (19, 10, 2),
                                                (2, 10, 0), (-25, 10, -3), (-24, 10, -2), (0, 10, 0)])
def test_round_half_up_is_school_rounding(num, den, expected):
    assert round_half_up(num, den) == expected


def test_round_half_up_where_pythons_round_is_wrong():
    assert round(2.5) == 2
    assert round_half_up(25, 10) == 3


def test_round_half_up_with_huge_numbers_stays_exact():
    big = 10**40
    assert round_half_up(big * 10 + 5, 10) == big + 1
    assert round_half_up(big * 10 + 4, 10) == big


@settings(max_examples=500, deadline=None)
@given(num=st.integers(-10**30, 10**30), den=st.integers(-10**6, 10**6).filter(bool))
def test_round_half_up_in_integers_agrees_with_decimal(num, den):
    """docs/rules.md §9 defines the rounding by ``decimal`` with ``ROUND_HALF_UP``: the reference here."""
    with localcontext() as ctx:
        ctx.prec = len(str(abs(num))) + len(str(abs(den))) + 8
        expected = int((Decimal(num) / Decimal(den)).quantize(Decimal(1), rounding=ROUND_HALF_UP))
    assert round_half_up(num, den) == expected


def test_rating_points_25_earns_8():
    assert rating_points_finished([25], []) == [8]


def test_rating_points_35_earns_7():
    assert rating_points_finished([35], []) == [7]


def test_rating_points_goats_earn_zero_and_over_100_earns_one():
    assert rating_points_finished([101, 25, 99, 140], [0, 3]) == [0, 8, 1, 0]


def test_timeout_formula_32_vs_30_earns_1_and_vs_13_earns_2():
    assert rating_points_interrupted([32, 30, 13], 0) == [0, 1, 2]


def test_timeout_player_with_more_points_than_offender_still_earns_one():
    assert rating_points_interrupted([10, 50], 0) == [0, 1]


# --- chips ------------------------------------------------------------------------------------------

def test_ante_timeout_three_players_seat1():
    assert chips_interrupted(10, 3, 1) == [5, -10, 5]


def test_ante_normal_end_won_by_seat2():
    assert chips_finished(10, 3, [2]) == [-10, -10, 20]


def test_ante_shared_win_remainder_to_the_lowest_winner_seat():
    assert chips_finished(5, 3, [1, 2]) == [-5, 3, 2]
    assert chips_finished(10, 4, [0, 1, 3]) == [4, 3, -10, 3]


def test_ante_timeout_remainder_to_the_lowest_other_seat():
    assert chips_interrupted(10, 4, 0) == [-10, 4, 3, 3]
    assert chips_interrupted(10, 4, 2) == [4, 3, -10, 3]


def test_ante_zero_changes_nothing():
    assert chips_finished(0, 4, [1]) == [0, 0, 0, 0]
    assert chips_interrupted(0, 3, 2) == [0, 0, 0]


def test_ante_with_no_winner_returns_every_stake():
    assert chips_finished(10, 2, []) == [0, 0]


@settings(max_examples=150, deadline=None)
@given(
    ante=st.integers(0, 1000),
    seats=st.integers(2, 4),
    data=st.data(),
)
def test_d14_chips_always_sum_to_zero_and_a_winner_never_loses(ante, seats, data):
    winners = data.draw(st.lists(st.integers(0, seats - 1), min_size=1, max_size=seats, unique=True))
    offender = data.draw(st.integers(0, seats - 1))
    finished = chips_finished(ante, seats, winners)
    assert sum(finished) == 0
    assert all(finished[w] >= 0 for w in winners)
    assert all(finished[s] == -ante for s in range(seats) if s not in winners)
    interrupted = chips_interrupted(ante, seats, offender)
    assert sum(interrupted) == 0
    assert interrupted[offender] == -ante
    assert all(interrupted[s] >= 0 for s in range(seats) if s != offender)


# --- properties of ratings and goat rounds ----------------------------------------------------------

point_lists = st.lists(st.integers(0, 250), min_size=2, max_size=4)


@settings(max_examples=100, deadline=None)
@given(points=point_lists, limit=st.integers(50, 150))
def test_non_goats_always_earn_at_least_one(points, limit):
    goats, winners = result_by_limit(points, limit)
    earned = rating_points_finished(points, goats)
    assert all(earned[s] >= 1 for s in range(len(points)) if s not in goats)
    assert all(earned[s] == 0 for s in goats)
    assert set(winners).isdisjoint(goats)


@settings(max_examples=100, deadline=None)
@given(points=point_lists, data=st.data())
def test_interrupted_non_offenders_always_earn_at_least_one(points, data):
    offender = data.draw(st.integers(0, len(points) - 1))
    earned = rating_points_interrupted(points, offender)
    assert earned[offender] == 0
    assert all(e >= 1 for s, e in enumerate(earned) if s != offender)
    goats, winners = result_interrupted(points, offender)
    assert goats == [offender] and offender not in winners and winners


@settings(max_examples=100, deadline=None)
@given(points=point_lists)
def test_fixed_rounds_winners_and_goats_never_overlap(points):
    goats, winners = result_by_rounds(points)
    assert winners and set(goats).isdisjoint(winners)


@st.composite
def player_scores(draw):
    if draw(st.booleans()):
        return PlayerScore(open=True, score=draw(st.integers(13, 200)), remembered=0)
    return PlayerScore(open=False, score=0, remembered=draw(st.integers(0, 60)))


@st.composite
def goat_rounds(draw, end=None, fish_scoring=None):
    end = end if end is not None else st.sampled_from(["out", "fish"])
    fish_scoring = fish_scoring if fish_scoring is not None else st.sampled_from(["fish_for_all", "fish_for_one"])
    n = draw(st.integers(2, 4))
    players = tuple(draw(st.lists(player_scores(), min_size=n, max_size=n)))
    end = draw(end)
    seat = draw(st.integers(0, n - 1))
    hands = draw(st.lists(st.integers(0, 60), min_size=n, max_size=n))
    if end == "out":
        hands[seat] = 0
    return dict(
        players=players,
        hand_values=hands,
        end=end,
        seat=seat,
        fish_scoring=draw(fish_scoring),
        open_threshold=12,
        fish_pot=draw(st.one_of(st.just(0), st.integers(1, 80))),
    )


def _total(account) -> int:
    """An account's score and remembered points together (what goat scoring carries from round to round)."""
    return account.score + account.remembered


def _resets_remembered(args, outcome, p):
    """Whether the rules take player p's remembered points away this round."""
    before = args["players"][p]
    if before.open:
        return False
    if args["end"] == "out":
        return p == args["seat"]
    return args["fish_scoring"] == "fish_for_one" and not outcome.draw and outcome.round_points[p] == 0


@settings(max_examples=150, deadline=None)
@given(goat_rounds())
def test_goat_round_never_lowers_points_except_by_resetting_remembered(args):
    outcome = score_goat_round(**args)
    for p, (before, after) in enumerate(zip(args["players"], outcome.players, strict=True)):
        assert after.score >= before.score
        assert after.open or not before.open  # an open account never closes
        if after.open:
            assert after.remembered == 0
        if _resets_remembered(args, outcome, p):
            assert _total(after) == before.score
        else:
            assert _total(after) == _total(before) + outcome.round_points[p]


@settings(max_examples=150, deadline=None)
@given(goat_rounds())
def test_goat_round_conserves_points_and_pot(args):
    outcome = score_goat_round(**args)
    n = len(args["players"])
    hands = args["hand_values"]
    gained = sum(hands[p] for p in range(n) if not (args["end"] == "out" and p == args["seat"]))
    lost = sum(
        args["players"][p].remembered for p in range(n) if _resets_remembered(args, outcome, p)
    )
    before = sum(_total(p) for p in args["players"]) + args["fish_pot"]
    after = sum(_total(p) for p in outcome.players) + outcome.fish_pot
    assert after == before + gained - lost
    if outcome.draw:
        assert outcome.players == args["players"]
        assert outcome.round_points == (0,) * n
    else:
        assert sum(outcome.round_points) + outcome.fish_pot == gained + args["fish_pot"]
        assert outcome.fish_pot in (0, args["fish_pot"])


@settings(max_examples=100, deadline=None)
@given(goat_rounds(end=st.just("fish"), fish_scoring=st.just("fish_for_one")))
def test_fish_for_one_has_a_single_scorer_or_is_a_draw(args):
    outcome = score_goat_round(**args)
    top = max(args["hand_values"])
    shared = args["hand_values"].count(top) > 1
    assert outcome.draw == shared
    if not shared:
        assert sum(1 for rp in outcome.round_points if rp) <= 1
