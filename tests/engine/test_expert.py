"""The expert (goat.engine.expert, docs/computer.md): its samples are consistent with the seat view,
its objective scores the round's end by the ruleset, and its choice is reproducible from a seed."""

from __future__ import annotations

import random

import pytest

from goat.engine import computer, expert
from goat.engine.machine import GameMachine
from goat.engine.moves import legal_moves
from goat.engine.rulesets import Options, resolve_options
from goat.engine.sampling import NoDeal
from goat.engine.scoring import PlayerScore
from goat.engine.seat import SeatView, choices, is_forced
from goat.engine.state import Result
from goat.engine.tiles import BIT, PARSE, SHOWS


def _view(**changes) -> SeatView:
    """Two-seat domino-3rounds, seat 0 to move with ends 2 and 5; seat 1 drew on 2 and 5."""
    line = {PARSE["2-3"], PARSE["3-5"]}
    fields = dict(
        seat=0, seats=2, hand=(PARSE["1-2"], PARSE["5-5"], PARSE["0-6"]),
        legal=((PARSE["1-2"], "left"), (PARSE["5-5"], "right")), left=2, right=5,
        on_line=sum(BIT[t] for t in line), counts=(3, 4), points=(0, 10), bazaar=19, bazaar_reserve=2,
        lacks=(0, 1 << 2 | 1 << 5), options=resolve_options("domino-3rounds", 2).to_dict(),
        scores=((False, 0, 0), (False, 10, 0)), fish_pot=0, round=2, last_player=0,
    )
    fields.update(changes)
    return SeatView(**fields)


def test_a_sampled_deal_gives_each_seat_its_count_of_unseen_tiles_and_none_it_showed_it_lacks():
    view = _view()
    rng = random.Random(3)
    forbidden = SHOWS[2] | SHOWS[5]
    for _ in range(200):
        hands, bazaar = expert.sample_hands(view, rng)
        assert tuple(hands[0]) == view.hand
        assert len(hands[1]) == 4 and len(bazaar) == 19
        dealt = [*hands[1], *bazaar]
        assert len(set(dealt)) == 23 and sum(BIT[t] for t in dealt) == view.unseen
        assert not any(forbidden & BIT[t] for t in hands[1])


def test_lacks_that_admit_no_deal_are_an_error_with_its_code_not_a_guess():
    # seat 1 "lacks" every value: no hand could be dealt (a corrupted log), so the decision is refused
    with pytest.raises(NoDeal) as caught:
        expert.evaluate(_view(lacks=(0, 0b1111111)), random.Random(1), 5)
    assert caught.value.code == "no_consistent_deal"


def test_the_choice_is_the_same_for_the_same_seed_and_a_legal_move():
    view = _view()
    first = [computer.choose(view, "expert", random.Random(seed)) for seed in range(5)]
    again = [computer.choose(view, "expert", random.Random(seed)) for seed in range(5)]
    assert first == again
    assert all((PARSE[tile], end) in view.legal for tile, end in first)


def test_a_forced_move_is_played_without_sampling():
    view = _view(legal=((PARSE["5-5"], "right"),), counts=(3, 99))  # counts no deal could meet
    assert computer.choose(view, "expert", random.Random(0)) == ("5-5", "right")


def _machine(scoring: str, scores, result=None, fish_pot=0, round_no=1, ruleset=None) -> GameMachine:
    g = GameMachine()
    g.ruleset = ruleset or ("goat-classic" if scoring == "goat" else "domino-3rounds")
    g.options = resolve_options(g.ruleset, len(scores))
    g.seats, g.scores, g.result, g.fish_pot, g.round_no = len(scores), tuple(scores), result, fish_pot, round_no
    return g


def test_the_goat_objective_pays_rating_points_at_the_end_and_fears_the_limit_before_it():
    ended = _machine("goat", [PlayerScore(True, 40, 0), PlayerScore(True, 101, 0)],
                     Result("limit", (1,), (0,), (6, 0), (0, 0)))
    assert expert.objective(ended, 0) == 60.0 and expert.objective(ended, 1) == 0.0
    # the same 20 points are worth less near the limit than far from it, and remembered points count
    near = _machine("goat", [PlayerScore(True, 80, 0), PlayerScore(True, 20, 0)])
    far = _machine("goat", [PlayerScore(True, 40, 0), PlayerScore(True, 20, 0)])
    remembered = _machine("goat", [PlayerScore(False, 0, 40), PlayerScore(True, 20, 0)])
    assert expert.objective(near, 0) < expert.objective(far, 0) / 2
    assert expert.objective(remembered, 0) == expert.objective(far, 0)
    # a carried fish pot is a share of points to come for everyone
    assert expert.objective(_machine("goat", [PlayerScore(True, 40, 0), PlayerScore(True, 20, 0)], fish_pot=30),
                            0) < expert.objective(far, 0)


def test_the_fixed_rounds_objective_counts_the_lead_and_at_the_end_the_win():
    behind = _machine("rounds", [PlayerScore(False, 30, 0), PlayerScore(False, 10, 0)])
    ahead = _machine("rounds", [PlayerScore(False, 10, 0), PlayerScore(False, 30, 0)])
    assert expert.objective(ahead, 0) > 0 > expert.objective(behind, 0)
    won = _machine("rounds", [PlayerScore(False, 29, 0), PlayerScore(False, 30, 0)],
                   Result("rounds", (1,), (0,), (7, 0), (0, 0)), round_no=3)
    lost = _machine("rounds", [PlayerScore(False, 31, 0), PlayerScore(False, 30, 0)],
                    Result("rounds", (0,), (1,), (0, 7), (0, 0)), round_no=3)
    assert expert.objective(won, 0) - expert.objective(lost, 0) > expert.objective(ahead, 0) - expert.objective(
        behind, 0)


def _playout_table(following: list[str]) -> GameMachine:
    """The sampled table of :func:`_view` with seat 0 holding 2-4 and 5-6 (ends 2 and 5) and seat 1
    holding ``following``."""
    view = _view(hand=(PARSE["2-4"], PARSE["5-6"]), counts=(2, len(following)))
    hands = [list(view.hand), [PARSE[text] for text in following]]
    return expert._machine(view, Options.from_dict(view.options), hands, [], None)


def test_the_playout_policy_sheds_the_heaviest_tile_unless_the_record_shows_the_next_seat_blocked():
    # 2-4 on the left leaves 4 and 5, 5-6 on the right leaves 2 and 6; nothing is known of seat 1
    for following in (["0-2", "4-4", "1-3"], ["0-2", "0-6", "1-3"]):
        g = _playout_table(following)
        # whatever seat 1's sampled hand holds: the policy does not read it
        assert expert.PublicPolicy([0, 0], 0).choose(g, 0, legal_moves(g)) == (PARSE["5-6"], "right")
    # seat 1 showed it lacks 4 and 5 (it knocked on them): the lighter 2-4 blocks it and is played
    g = _playout_table(["0-2", "0-6", "1-3"])
    assert expert.PublicPolicy([0, 1 << 4 | 1 << 5], 0).choose(g, 0, legal_moves(g)) == (PARSE["2-4"], "left")


def test_the_playout_policy_learns_the_lacks_from_the_playout_s_draws_and_knocks():
    g = _playout_table(["0-2", "0-6", "1-3"])  # ends 2 and 5
    policy = expert.PublicPolicy([0, 1 << 3], 0)
    policy.forced(g, "knock", 1)
    assert policy.lacks == [0, 1 << 2 | 1 << 3 | 1 << 5]
    policy.forced(g, "draw", 1)  # a draw brings unseen tiles: only the ends drawn for are known
    assert policy.lacks == [0, 1 << 2 | 1 << 5]


def _double_five(**changes) -> SeatView:
    """Only 5-5 on the line (both ends 5): 1-5 and 5-6 each fit on either end, the same move twice."""
    hand = (PARSE["1-5"], PARSE["5-6"], PARSE["0-6"])
    legal = ((PARSE["1-5"], "left"), (PARSE["1-5"], "right"), (PARSE["5-6"], "left"), (PARSE["5-6"], "right"))
    fields = dict(hand=hand, legal=legal, left=5, right=5, on_line=BIT[PARSE["5-5"]], counts=(3, 4), bazaar=20,
                  lacks=(0, 0), last_player=1)
    return _view(**{**fields, **changes})


def test_one_tile_on_two_ends_showing_the_same_value_is_one_choice():
    view = _double_five()
    assert choices(view.legal, 5, 5) == [0, 0, 2, 2]
    assert not is_forced(view.legal, 5, 5)
    assert is_forced(view.legal[:2], 5, 5) and is_forced(view.legal[:1], 5, 5)
    # on ends 5 and 6 the same tile on either end leaves different values: two choices
    assert not is_forced(((PARSE["5-6"], "left"), (PARSE["5-6"], "right")), 5, 6)
    # the equivalent moves get one value, so neither can lose against the other
    scored = expert.evaluate(view, random.Random(4), 20)
    assert scored[0][1] == scored[1][1] and scored[2][1] == scored[3][1]
    # and a choice among equivalent moves is played at once, without sampling (no deal could be drawn)
    forced = _double_five(legal=view.legal[:2], counts=(3, 99))
    assert computer.choose(forced, "expert", random.Random(0)) == ("1-5", "left")


def test_the_judgement_samples_until_its_interval_settles_the_label_within_the_budget():
    view = _view()
    thresholds = (15.0, 10.0, 5.0)
    for played in view.legal:
        found = expert.judge(view, played, random.Random(7), 600, thresholds, batch=50)
        assert 0 <= found.low <= found.loss <= found.high and found.best in view.legal
        assert 50 <= found.samples <= 600 and found.samples % 50 == 0
        settled = all(found.low >= t or found.high < t for t in thresholds)
        assert settled or found.samples == 600
        if found.samples < 600:  # it stopped only because the label was settled
            assert settled
    # a budget smaller than a batch is one batch of the budget
    assert expert.judge(view, view.legal[0], random.Random(7), 6, thresholds).samples == 6
    # equivalent moves only: no sampling, no loss
    double = _double_five(legal=_double_five().legal[:2])
    assert expert.judge(double, double.legal[1], random.Random(1), 100, thresholds) == expert.Judgement(
        double.legal[1], 0.0, 0.0, 0.0, 0)


def test_the_judged_loss_is_the_difference_of_the_means_on_the_same_tables():
    view = _view()
    found = expert.judge(view, view.legal[1], random.Random(9), 200, (), batch=200)
    scored = dict(expert.evaluate(view, random.Random(9), 200))
    assert found.samples == 200
    assert found.loss == pytest.approx(max(scored.values()) - scored[view.legal[1]], abs=1e-9)


class _Scripted:
    """Playouts whose tables give each distinct move a scripted value (the race's bookkeeping alone)."""

    def __init__(self, view: SeatView, script) -> None:
        self.legal = list(view.legal)
        self.distinct = list(range(len(self.legal)))
        self.script, self.tables, self.playouts = script, 0, 0

    def sample(self, rng, places=None):
        places = self.distinct if places is None else places
        self.tables += 1
        self.playouts += len(places)
        return [self.script(place, self.tables) for place in places]


def _three_moves() -> SeatView:
    hand = (PARSE["1-2"], PARSE["2-2"], PARSE["5-5"])
    return _view(hand=hand, legal=((PARSE["1-2"], "left"), (PARSE["2-2"], "left"), (PARSE["5-5"], "right")))


def test_the_race_drops_a_move_clearly_behind_and_gives_the_close_ones_the_rest_of_the_budget(monkeypatch):
    # move 1 is 10 points behind on every table: dropped after the first round; moves 0 and 2 differ by
    # noise around the same mean, so they race on to the budget (150 tables for each of 4 moves: 600 playouts)
    scripted = _Scripted(_three_moves(), lambda place, n: 0.0 if place == 1 else float(n * (1 + place) % 7))
    monkeypatch.setattr(expert, "Playouts", lambda view, plies=0: scripted)
    monkeypatch.setattr(expert, "RACE_FLOOR", 4)
    move, tables = expert.race(_three_moves(), random.Random(1), 150)
    assert move in (_three_moves().legal[0], _three_moves().legal[2])
    assert scripted.playouts <= 150 * 4 and scripted.playouts > 150 * 4 - 2
    assert tables == scripted.tables == expert.RACE_ROUND + (600 - 3 * expert.RACE_ROUND) // 2


def test_the_race_ends_when_one_move_is_clearly_ahead(monkeypatch):
    scripted = _Scripted(_three_moves(), lambda place, n: 5.0 * (place == 2) + (n % 3))
    monkeypatch.setattr(expert, "Playouts", lambda view, plies=0: scripted)
    assert expert.race(_three_moves(), random.Random(1), 150) == (_three_moves().legal[2], expert.RACE_ROUND)


def test_a_move_is_kept_while_its_paired_difference_to_the_leader_is_within_the_race_s_bound():
    # over the same 4 tables: move 1 trails move 0 by 1 every time (no spread: dropped); move 2 by 1 on
    # average, with a spread the 4 tables cannot settle (kept); the leader is kept
    values = [[3.0, 5.0, 4.0, 6.0], [2.0, 4.0, 3.0, 5.0], [5.0, 1.0, 6.0, 2.0]]
    sums = [sum(row) for row in values]
    products = [[sum(a * b for a, b in zip(x, y, strict=True)) for y in values] for x in values]
    assert expert._survivors([0, 1, 2], sums, products, 4) == [0, 2]
    assert expert._survivors([0, 1, 2], sums, products, 1) == [0, 1, 2]  # one table settles nothing


def test_the_expert_s_race_is_reproducible_and_plays_a_legal_move():
    view = _view()
    first = expert.race(view, random.Random(5), 60)
    assert first == expert.race(view, random.Random(5), 60)
    assert first[0] in view.legal and 1 <= first[1] <= 60 * expert.RACE_FLOOR // 2

def test_in_pairs_the_goat_objective_is_the_pairs_chance():
    """Partners carry one account; the objective fears the pair's limit, not the seat's: two seats with
    the same points are worth the same to their pair, and a pair near the limit is worth less to both
    partners alike (docs/computer.md "Partners")."""
    near, far = PlayerScore(True, 90, 0), PlayerScore(True, 20, 0)
    g = _machine("goat", [near, far, near, far], ruleset="goat-pairs")
    assert expert.objective(g, 0) == expert.objective(g, 2) < expert.objective(g, 1) == expert.objective(g, 3)
    solo = _machine("goat", [near, far, near, far])
    # as a pair, 90 and 90 are one account near the limit, not two seats sharing the goat's place
    assert expert.objective(g, 0) < expert.objective(solo, 0)
    ended = _machine("goat", [near, PlayerScore(True, 101, 0), near, PlayerScore(True, 101, 0)],
                     Result("limit", (1, 3), (0, 2), (1, 0, 1, 0), (0, 0, 0, 0)), ruleset="goat-pairs")
    assert expert.objective(ended, 0) == expert.objective(ended, 2) == 10.0


def test_the_tree_s_reply_reads_the_node_s_statistics_not_the_table_s_hidden_hand():
    """Once every legal reply was tried at a node, a seat's choice there is the same on every sampled
    table where those replies are legal, whatever else its sampled hand holds (information-set MCTS:
    no seat of the tree plays with open cards)."""
    tables = [_playout_table(["0-2", "4-4", "1-3"]), _playout_table(["0-2", "4-4", "6-6"])]
    legal = legal_moves(tables[0])
    tree: dict = {(): {move: [10.0, 10.0 * value, 10.0] for move, value in zip(legal, (9.0, 1.0), strict=True)}}
    picked = [expert.TreeWalk(tree, expert.PublicPolicy([0, 0], 0), 2).choose(g, 0, legal) for g in tables]
    assert picked == [legal[0], legal[0]]  # the higher mean, not what the policy would play (the heavier 5-6)
    assert expert.PublicPolicy([0, 0], 0).choose(tables[0], 0, legal) != legal[0]


def test_the_tree_tries_every_reply_first_then_explores_by_availability():
    g = _playout_table(["0-2", "4-4", "1-3"])
    legal = legal_moves(g)
    tree: dict = {}
    walk = expert.TreeWalk(tree, expert.PublicPolicy([0, 0], 0), 1)
    first = walk.choose(g, 0, legal)
    assert first == expert.PublicPolicy([0, 0], 0).choose(g, 0, legal)  # untried: the policy's pick
    assert tree[()][first] == [0.0, 0.0, 1.0] and walk.left == 0
    # past the tree's plies the policy plays and the node is not touched
    assert walk.choose(g, 0, legal) == first and tree[()][first][2] == 1.0
    # UCB1 over availability: a reply legal in 10 of 100 visits (and tried in each) is not explored for
    # the node's 100 visits, only for its own 10: the common reply with the better mean is played; once
    # the rare one has been legal as often, its fewer tries make it the one explored
    rare, common = legal
    tree = {(): {rare: [10.0, 20.0, 10.0], common: [90.0, 720.0, 100.0]}}
    assert expert.TreeWalk(tree, expert.PublicPolicy([0, 0], 0), 1).choose(g, 0, legal) == common
    tree = {(): {rare: [10.0, 20.0, 100.0], common: [90.0, 720.0, 100.0]}}
    assert expert.TreeWalk(tree, expert.PublicPolicy([0, 0], 0), 1).choose(g, 0, legal) == rare


def test_the_tree_backs_up_each_seat_s_own_objective():
    g = _machine("rounds", [PlayerScore(False, 10, 0), PlayerScore(False, 30, 0)])
    mine, theirs = [0.0, 0.0, 1.0], [0.0, 0.0, 1.0]
    walk = expert.TreeWalk({}, expert.PublicPolicy([0, 0], 0), 2)
    walk.path = [(mine, 0), (theirs, 1)]
    walk.back_up(g)
    assert mine == [1.0, expert.objective(g, 0), 1.0] and theirs == [1.0, expert.objective(g, 1), 1.0]
    assert expert.objective(g, 0) > 0 > expert.objective(g, 1)


def test_with_the_tree_the_race_is_reproducible_and_plays_a_legal_move(monkeypatch):
    monkeypatch.setattr(expert, "TREE_PLIES", 2)
    view = _view()
    first = expert.race(view, random.Random(5), 60)
    assert first == expert.race(view, random.Random(5), 60)
    assert first[0] in view.legal


def test_the_analysis_s_judgement_plays_no_tree(monkeypatch):
    """The judgement's interval needs tables drawn alike (a tree learning over them would not give that):
    it plays every table with the policy alone, whatever the expert's own tree."""
    view = _view()
    monkeypatch.setattr(expert, "TREE_PLIES", 0)
    before = expert.judge(view, view.legal[0], random.Random(2), 60, (5.0,), batch=30)
    monkeypatch.setattr(expert, "TREE_PLIES", 3)
    assert expert.judge(view, view.legal[0], random.Random(2), 60, (5.0,), batch=30) == before
    # the race's playouts, on the same tables, do change with the tree
    values = []
    for plies in (0, 3):
        playouts, rng = expert.Playouts(view, plies), random.Random(4)
        values.append([playouts.sample(rng) for _ in range(40)])
    assert values[0] != values[1]
