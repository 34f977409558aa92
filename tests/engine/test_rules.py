"""The rules of play (docs/rules.md §1, §4, §5, §6, §9 endings, §10 ante) on exact, hand-built positions."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from goat.engine import deal as dealing
from goat.engine.errors import IllegalMove, InvalidEvent, RulesError
from goat.engine.rules import (
    DOUBLES_FROM_ONE_BY_SUM_ORDER,
    DOUBLES_FROM_ONE_ORDER,
    PLAY,
    SMALLEST_DOUBLE_ORDER,
    PlayTile,
    Resign,
    TimeOut,
    apply,
    decide,
    legal_moves,
    pending,
)
from goat.engine.scoring import PlayerScore
from goat.engine.simulate import simulate_game
from goat.engine.status import FINISHED, INTERRUPTED, RUNNING
from goat.engine.tiles import parse_tile, tile_str
from helpers import dealt, new_game, play, seed_hex, set_table, tiles, types, waiting_game


@pytest.fixture
def classic():
    state, _ = new_game("goat-classic", 2)
    return state


@pytest.fixture
def classic3():
    state, _ = new_game("goat-classic", 3)
    return state


@pytest.fixture
def rounds3():
    state, _ = new_game("domino-3rounds", 2)
    return state


def _code(excinfo) -> str:
    return excinfo.value.code


# --- §1 tiles, line of play ---------------------------------------------------------------------


def test_first_tile_is_laid_low_half_left(classic):
    state = set_table(classic, hands=["6-3 0-0", "1-1 2-2"], turn=0)
    new, events = play(state, 0, "6-3")
    assert events[0] == {"type": "tile_played", "seat": 0, "data": {"tile": "3-6", "end": "left"}}
    assert new.table.line == ((3, 6),)
    assert (new.table.left, new.table.right) == (3, 6)


def test_tile_is_turned_so_matching_half_touches_the_end(classic):
    state = set_table(classic, hands=["5-6 1-2 0-0", "3-3 4-4"], line="2-5", turn=0)
    new, _ = play(state, 0, "6-5", "right")
    assert new.table.line == ((2, 5), (5, 6))
    assert (new.table.left, new.table.right) == (2, 6)
    state = set_table(classic, hands=["5-6 1-2 0-0", "3-3 4-4"], line="2-5", turn=0)
    new, _ = play(state, 0, "1-2", "left")
    assert new.table.line == ((1, 2), (2, 5))
    assert (new.table.left, new.table.right) == (1, 5)


def test_double_on_end_keeps_value(classic):
    state = set_table(classic, hands=["5-5 0-0", "3-3 4-4"], line="2-5", turn=0)
    new, _ = play(state, 0, "5-5")
    assert new.table.line == ((2, 5), (5, 5))
    assert (new.table.left, new.table.right) == (2, 5)


def test_tile_matching_both_ends_requires_end(classic):
    state = set_table(classic, hands=["2-5 0-0", "3-3 4-4"], line="2-3 3-5", turn=0)
    with pytest.raises(IllegalMove) as exc:
        play(state, 0, "2-5")
    assert _code(exc) == "end_required"
    new, events = play(state, 0, "2-5", "right")
    assert events[0]["data"] == {"tile": "2-5", "end": "right"}
    assert new.table.line[-1] == (5, 2) and new.table.right == 2


def test_tile_matching_one_end_may_omit_end(classic):
    state = set_table(classic, hands=["2-6 0-0", "3-3 4-4"], line="2-3 3-5", turn=0)
    new, events = play(state, 0, "2-6")
    assert events[0]["data"] == {"tile": "2-6", "end": "left"}
    assert new.table.line[0] == (6, 2) and new.table.left == 6
    state = set_table(classic, hands=["5-6 0-0", "3-3 4-4"], line="2-3 3-5", turn=0)
    new, events = play(state, 0, "6-5")
    assert events[0]["data"] == {"tile": "5-6", "end": "right"}
    assert new.table.line[-1] == (5, 6) and new.table.right == 6


def test_same_value_on_both_ends_placements_differ_only_in_position(classic):
    state = set_table(classic, hands=["4-6 0-0", "3-3 1-1"], line="4-4", turn=0)
    assert sorted(legal_moves(state)) == [(parse_tile("4-6"), "left"), (parse_tile("4-6"), "right")]
    left, _ = play(state, 0, "4-6", "left")
    right, _ = play(state, 0, "4-6", "right")
    assert left.table.line == ((6, 4), (4, 4)) and right.table.line == ((4, 4), (4, 6))
    assert {left.table.left, left.table.right} == {right.table.left, right.table.right} == {4, 6}


def test_input_tile_either_order_is_normalised(classic):
    state = set_table(classic, hands=["5-6 0-0", "3-3 1-1"], line="2-5", turn=0)
    _, events = play(state, 0, "6-5")
    assert events[0]["data"]["tile"] == "5-6"
    assert parse_tile("5-2") == parse_tile("2-5") and tuple(parse_tile("2-5")) == (2, 5)
    assert tile_str(parse_tile("2-5")) == "2-5"


def test_play_passes_clockwise(classic3):
    state = set_table(classic3, hands=["2-6 0-0", "6-6 3-3", "1-1 4-4"], line="2-5", turn=2,
                      bazaar="")
    state = replace(state, table=replace(state.table, turn=0))
    new, _ = play(state, 0, "2-6")
    assert pending(new) == (PLAY, 1)
    state = set_table(classic3, hands=["1-1 0-0", "6-6 3-3", "2-6 4-4"], line="2-5", turn=2, bazaar="")
    new, events = play(state, 2, "2-6")
    assert new.table.turn in (0, 1) and types(events)[0] == "tile_played"
    assert events[1:] == [{"type": "knocked", "seat": 0, "data": {}}]  # seat 0 has no 6 nor 5
    assert pending(new) == (PLAY, 1)


# --- §4 who leads ---------------------------------------------------------------------------------


def test_doubles_from_one_leader_must_lead_with_1_1():
    state = dealt("goat-classic", ["0-0 2-2 3-3 0-1 0-2 0-3 0-4", "1-1 0-5 0-6 1-2 1-3 1-4 1-5"])
    assert pending(state) == (PLAY, 1)
    assert state.table.must_lead == parse_tile("1-1")
    assert legal_moves(state) == [(parse_tile("1-1"), "left")]


def test_doubles_from_one_prefers_2_2_over_0_0():
    state = dealt("goat-classic", ["0-0 0-1 0-2 0-3 0-4 0-5 0-6", "2-2 6-6 1-2 1-3 1-4 1-5 1-6"],
                  options={"redeal": False})
    assert pending(state) == (PLAY, 1) and state.table.must_lead == parse_tile("2-2")


def test_doubles_from_one_takes_0_0_only_after_6_6():
    state = dealt("goat-classic", ["6-6 0-1 0-2 0-3 0-4 0-5 0-6", "0-0 1-2 1-3 1-4 1-5 1-6 2-3"],
                  options={"redeal": False})
    assert pending(state) == (PLAY, 0) and state.table.must_lead == parse_tile("6-6")
    assert DOUBLES_FROM_ONE_ORDER[:7] == tiles("1-1 2-2 3-3 4-4 5-5 6-6 0-0")


FIRST_EDITION = {"opener": "doubles_from_one"}


def test_no_double_highest_non_double_leads_5_6_first():
    """The first edition's order (``doubles_from_one``): ``(high, low)`` descending (docs/rules.md §4)."""
    assert DOUBLES_FROM_ONE_ORDER[7:] == tiles(
        "5-6 4-6 3-6 2-6 1-6 0-6 4-5 3-5 2-5 1-5 0-5 3-4 2-4 1-4 0-4 2-3 1-3 0-3 1-2 0-2 0-1"
    )
    state = dealt("goat-classic", ["0-1 0-2 0-3 0-4 0-5 3-5 1-2", "5-6 1-3 1-4 1-5 1-6 2-3 2-4"], FIRST_EDITION)
    assert pending(state) == (PLAY, 1) and state.table.must_lead == parse_tile("5-6")
    # 5-6 in the bazaar: the holder of 4-6 leads with it.
    state = dealt("goat-classic", ["0-1 0-2 0-3 0-4 0-5 2-5 4-6", "3-6 1-3 1-4 1-5 1-6 2-3 2-4"], FIRST_EDITION)
    assert pending(state) == (PLAY, 0) and legal_moves(state) == [(parse_tile("4-6"), "left")]


def test_worked_example_no_double_order_by_sum_is_the_one_listed_in_section_4():
    """D-5, second edition (``doubles_from_one_by_sum``): the same doubles, then pip sum descending,
    ties by the higher half, exactly the list of docs/rules.md §4."""
    assert DOUBLES_FROM_ONE_BY_SUM_ORDER[:7] == tiles("1-1 2-2 3-3 4-4 5-5 6-6 0-0")
    assert DOUBLES_FROM_ONE_BY_SUM_ORDER[7:] == tiles(
        "5-6 4-6 3-6 4-5 2-6 3-5 1-6 2-5 3-4 0-6 1-5 2-4 0-5 1-4 2-3 0-4 1-3 0-3 1-2 0-2 0-1"
    )


def test_goat_presets_lead_by_pip_sum_when_nobody_holds_a_double():
    # 4-5 (9 pips) comes before 2-6 (8): the second edition's leader; the first edition's is 2-6.
    hands = ["2-6 0-1 0-2 0-3 0-4 0-5 1-2", "4-5 1-3 1-4 1-5 1-6 2-3 2-4"]
    for ruleset in ("goat-classic", "goat-gamesburg"):
        state = dealt(ruleset, hands)
        assert state.options.opener == "doubles_from_one_by_sum"
        assert pending(state) == (PLAY, 1) and legal_moves(state) == [(parse_tile("4-5"), "left")]
    state = dealt("goat-classic", hands, FIRST_EDITION)
    assert pending(state) == (PLAY, 0) and state.table.must_lead == parse_tile("2-6")
    # A tie on 8 pips goes to the higher half: 2-6 before 3-5.
    state = dealt("goat-gamesburg", ["3-5 0-1 0-2 0-3 0-4 0-5 1-2", "2-6 1-3 1-4 1-5 1-6 2-3 2-4"])
    assert pending(state) == (PLAY, 1) and state.table.must_lead == parse_tile("2-6")
    # Doubles still come first, from 1-1.
    state = dealt("goat-gamesburg", ["5-6 0-1 0-2 0-3 0-4 0-5 1-2", "3-3 1-3 1-4 1-5 1-6 2-3 2-4"])
    assert pending(state) == (PLAY, 1) and state.table.must_lead == parse_tile("3-3")


def test_smallest_double_leads_0_0_first():
    state = dealt("domino-3rounds", ["1-1 2-3 2-4 2-5 2-6", "0-0 3-4 3-5 3-6 4-5"])
    assert pending(state) == (PLAY, 1) and legal_moves(state) == [(parse_tile("0-0"), "left")]
    state = dealt("domino-3rounds", ["6-6 2-3 2-4 2-5 2-6", "3-3 3-4 3-5 3-6 4-5"])
    assert pending(state) == (PLAY, 1) and state.table.must_lead == parse_tile("3-3")


def test_smallest_double_without_doubles_smallest_pip_sum_ties_by_low_half():
    assert SMALLEST_DOUBLE_ORDER[7:12] == tiles("0-1 0-2 0-3 1-2 0-4")
    state = dealt("domino-3rounds", ["1-2 2-3 2-4 2-5 2-6", "0-3 3-4 3-5 3-6 4-5"])
    assert pending(state) == (PLAY, 1) and state.table.must_lead == parse_tile("0-3")
    with pytest.raises(IllegalMove) as exc:
        play(state, 1, "3-4")
    assert _code(exc) == "must_lead_with"


def test_later_round_last_winner_leads_with_any_tile(classic):
    state = set_table(classic, hands=["0-0 3-3", "2-6"], line="2-5", turn=1)
    new, events = play(state, 1, "2-6")  # seat 1 goes out
    assert types(events) == ["tile_played", "round_dealt"]
    assert new.round_no == 2 and new.table.must_lead is None
    assert pending(new) == (PLAY, 1)
    assert sorted(t for t, _ in legal_moves(new)) == sorted(new.table.hands[1])


def test_domino_3rounds_every_round_decided_by_new_deal(rounds3):
    from goat.engine.rules import opening_tile

    for winner in (0, 1):
        hands = ["0-0 3-3", "1-1 4-4"]
        hands[winner] = "2-6"
        state = set_table(rounds3, hands=hands, line="2-5", turn=winner)
        new, _ = play(state, winner, "2-6")
        assert new.round_no == 2
        leader, tile = opening_tile("smallest_double", new.table.hands)
        assert pending(new) == (PLAY, leader)
        assert legal_moves(new) == [(tile, "left")]


# --- §5 a turn ------------------------------------------------------------------------------------


def test_passing_with_playable_tile_is_impossible(classic):
    state = set_table(classic, hands=["2-6 0-0", "1-1 3-3"], line="2-5", turn=0)
    assert legal_moves(state) == [(parse_tile("2-6"), "left")]
    assert pending(state) == (PLAY, 0)
    with pytest.raises(InvalidEvent) as exc:
        apply(state, {"type": "knocked", "seat": 0, "data": {}})
    assert _code(exc) == "unforced_knock"
    with pytest.raises(InvalidEvent) as exc:
        apply(state, {"type": "tile_drawn", "seat": 0, "data": {"tile": tile_str(state.table.bazaar[0])}})
    assert _code(exc) == "unforced_draw"


def test_forced_draws_until_tile_fits_then_same_player_plays(classic):
    state = set_table(classic, hands=["0-0 1-1 5-5", "3-4 6-6 2-5"], line="2-3", turn=1,
                      bazaar="0-1 1-5 4-6 0-2 3-3")
    new, events = play(state, 1, "3-4")
    assert types(events) == ["tile_played", "tile_drawn", "tile_drawn", "tile_drawn"]
    assert [e["data"]["tile"] for e in events[1:]] == ["0-1", "1-5", "4-6"]  # from the front
    assert all(e["seat"] == 0 for e in events[1:])
    assert new.table.hands[0] == tiles("0-0 1-1 5-5 0-1 1-5 4-6")  # drawn tiles stay in hand
    assert new.table.bazaar == tiles("0-2 3-3")
    assert pending(new) == (PLAY, 0)
    assert legal_moves(new) == [(parse_tile("4-6"), "right")]


def test_draw_stops_at_bazaar_reserve_of_two(rounds3):
    state = set_table(rounds3, hands=["0-0 1-1 5-5 1-6", "3-4 2-5 6-6"], line="2-3", turn=1,
                      bazaar="0-1 5-6 0-6")
    new, events = play(state, 1, "3-4")
    assert types(events) == ["tile_played", "tile_drawn", "knocked"]
    assert len(new.table.bazaar) == 2
    assert pending(new) == (PLAY, 1)


def test_knock_when_nothing_fits_and_no_draw(classic):
    state = set_table(classic, hands=["0-0 1-1 5-5 1-6", "3-4 2-5 6-6"], line="2-3", turn=1, bazaar="")
    new, events = play(state, 1, "3-4")
    assert events[1:] == [{"type": "knocked", "seat": 0, "data": {}}]
    assert new.table.hands[0] == tiles("0-0 1-1 5-5 1-6")
    assert pending(new) == (PLAY, 1)


def test_forced_actions_are_server_events(classic):
    state = set_table(classic, hands=["0-0 1-1", "3-4 2-5 6-6"], line="2-3", turn=1, bazaar="0-1 5-6")
    new, events = play(state, 1, "3-4")
    # The client sent one command; the server added the draws and the knock itself (D-7).
    assert events[1:] == [
        {"type": "tile_drawn", "seat": 0, "data": {"tile": "0-1"}},
        {"type": "tile_drawn", "seat": 0, "data": {"tile": "5-6"}},
        {"type": "knocked", "seat": 0, "data": {}},
    ]
    assert new.version == state.version + 4
    # Replaying the same events one by one through the checked path gives the same state.
    s = state
    for e in events:
        s = apply(s, e)
    assert s == new


# --- §6 end of a round ----------------------------------------------------------------------------


def test_out_ends_round(classic):
    state = set_table(classic, hands=["2-6", "1-1 3-3 4-5"], line="2-5", turn=0)
    new, events = play(state, 0, "2-6")
    assert types(events) == ["tile_played", "round_dealt"]
    record = new.rounds[-1]
    assert (record.round, record.end, record.seat) == (1, "out", 0)
    assert record.hands == (0, 2 + 6 + 9)
    assert new.round_no == 2 and new.status == RUNNING


def _seed_example_line(double_on_table: bool) -> str:
    line = "2-4 4-1 1-2 2-6 6-0 0-2 2-3 3-5"
    return line.replace("1-2 2-6", "1-2 2-2 2-6") if double_on_table else line


def test_positional_fish_seed_example(classic):
    # Table 1-2, 2-6, 0-2, 2-3; one end 2-4, the other 5-2 (docs/rules.md §6): the last 5-2 makes the fish.
    state = set_table(classic, hands=["2-5 0-0 1-1", "2-2 3-3 6-6"], line=_seed_example_line(False), turn=0,
                      bazaar="4-4 5-5")
    new, events = play(state, 0, "2-5", "right")
    assert types(events) == ["tile_played", "round_dealt"]
    record = new.rounds[-1]
    assert (record.end, record.seat) == ("fish", 0)
    assert record.hand_tiles[1] == tiles("2-2 3-3 6-6")  # 2-2 still in a hand
    # The fisher leads the next round with any tile.
    assert pending(new) == (PLAY, 0) and new.table.must_lead is None


@pytest.mark.parametrize("where", ["line", "hand", "bazaar"])
def test_positional_fish_whether_or_not_double_on_table(classic, where):
    hands = ["2-5 0-0 1-1", "3-3 6-6" + (" 2-2" if where == "hand" else "")]
    bazaar = "4-4 5-5" + (" 2-2" if where == "bazaar" else "")
    state = set_table(classic, hands=hands, line=_seed_example_line(where == "line"), turn=0, bazaar=bazaar)
    new, _ = play(state, 0, "2-5", "right")
    assert new.rounds and new.rounds[-1].end == "fish" and new.rounds[-1].seat == 0


def test_same_ends_without_all_six_tiles_is_no_fish(classic):
    # Ends 2 and 2 but 2-3 and 2-4 are not on the table: play goes on.
    state = set_table(classic, hands=["2-5 0-0 1-1", "2-4 3-3 6-6"], line="2-1 1-0 0-2 2-6 6-3 3-5",
                      turn=0, bazaar="4-4 5-5")
    new, _ = play(state, 0, "2-5", "right")
    assert not new.rounds and pending(new) == (PLAY, 1)


def test_d23_seed_001s_example_without_0_1_is_no_fish(classic):
    """D-23: seed 001's example (1-1 … 1-6 on the table, both ends 1) omits 0-1: a positional fish
    needs all six non-doubles of the value, so that table is no fish (and no play can even lay it
    out: with five non-doubles showing 1 both ends cannot show 1)."""
    from goat.engine.machine import thaw
    from goat.engine.rounds import END_FISH, round_end
    from goat.engine.tiles import BIT

    state = set_table(classic, hands=["3-3 0-0", "4-4 6-6"], line="2-4", turn=0, bazaar="5-5")
    t = thaw(state).table
    t.left = t.right = 1
    t.on_line = 0
    for text in ("1-1", "1-2", "1-3", "1-4", "1-5", "1-6"):
        t.on_line |= BIT[parse_tile(text)]
    assert round_end(state.options, t, list(t.hands[0])) is None
    t.on_line |= BIT[parse_tile("0-1")]
    assert round_end(state.options, t, list(t.hands[0])) == END_FISH


def test_blocked_fish_after_play(classic):
    state = set_table(classic, hands=["4-5 0-0", "1-1 6-6"], line="3-4", turn=0, bazaar="")
    new, events = play(state, 0, "4-5")
    assert types(events) == ["tile_played", "round_dealt"]  # no knock recorded
    assert (new.rounds[-1].end, new.rounds[-1].seat) == ("fish", 0)


def test_blocked_fish_after_forced_draw_exhausts_bazaar_no_knock_recorded(classic):
    state = set_table(classic, hands=["1-1 6-6", "4-5 0-0"], line="3-4", turn=1, bazaar="0-1")
    new, events = play(state, 1, "4-5")
    assert types(events) == ["tile_played", "tile_drawn", "round_dealt"]
    record = new.rounds[-1]
    assert (record.end, record.seat) == ("fish", 1)  # the fisher made the last play
    assert record.hand_tiles[0] == tiles("1-1 6-6 0-1")


def test_blocked_fish_after_forced_draw_reaches_reserve(rounds3):
    state = set_table(rounds3, hands=["1-1 6-6", "4-5 0-0"], line="3-4", turn=1, bazaar="0-1 0-2 2-2")
    new, events = play(state, 1, "4-5")
    assert types(events) == ["tile_played", "tile_drawn", "round_dealt"]
    assert new.rounds[-1].end == "fish"


def test_domino_3rounds_has_no_positional_fish(rounds3):
    state = set_table(rounds3, hands=["2-5 0-0 1-1", "2-2 3-3 6-6"], line=_seed_example_line(False), turn=0,
                      bazaar="4-4 5-5")
    new, events = play(state, 0, "2-5", "right")
    assert types(events) == ["tile_played"]
    assert not new.rounds and pending(new) == (PLAY, 1)


def test_round_end_reveals_and_scores_every_hand(classic3):
    state = set_table(classic3, hands=["2-6", "1-1 3-4", "0-0"], line="2-5", turn=0)
    new, _ = play(state, 0, "2-6")
    record = new.rounds[-1]
    assert record.hand_tiles == ((), tiles("1-1 3-4"), tiles("0-0"))
    assert record.hands == (0, 9, 10)  # a lone 0-0 counts 10


# --- illegal commands -----------------------------------------------------------------------------


def test_not_your_turn(classic):
    state = set_table(classic, hands=["2-6 0-0", "2-3 1-1"], line="2-5", turn=0)
    with pytest.raises(IllegalMove) as exc:
        play(state, 1, "2-3")
    assert _code(exc) == "not_your_turn"


def test_tile_not_in_hand(classic):
    state = set_table(classic, hands=["2-6 0-0", "2-3 1-1"], line="2-5", turn=0)
    with pytest.raises(IllegalMove) as exc:
        play(state, 0, "2-3")
    assert _code(exc) == "tile_not_in_hand" and "2-3" in exc.value.detail


def test_tile_does_not_fit(classic):
    state = set_table(classic, hands=["2-6 0-0", "2-3 1-1"], line="2-5", turn=0)
    with pytest.raises(IllegalMove) as exc:
        play(state, 0, "0-0")
    assert _code(exc) == "tile_does_not_fit"
    with pytest.raises(IllegalMove) as exc:
        play(state, 0, "2-6", "right")
    assert _code(exc) == "tile_does_not_fit"


def test_end_required(classic):
    state = set_table(classic, hands=["2-5 0-0", "1-1"], line="2-3 3-5", turn=0)
    with pytest.raises(IllegalMove) as exc:
        play(state, 0, "5-2")
    assert _code(exc) == "end_required"


def test_must_lead_with_names_the_tile():
    state = dealt("goat-classic", ["0-0 2-2 3-3 0-1 0-2 0-3 0-4", "1-1 0-5 0-6 1-2 1-3 1-4 1-5"])
    with pytest.raises(IllegalMove) as exc:
        play(state, 1, "1-2")
    assert _code(exc) == "must_lead_with"
    assert "1-1" in exc.value.detail and exc.value.context["tile"] == "1-1"


def test_game_not_running_before_the_start():
    state = waiting_game()
    with pytest.raises(IllegalMove) as exc:
        play(state, 0, "1-1")
    assert _code(exc) == "game_not_running"


def test_game_not_running_after_the_end(classic):
    ended, events = decide(classic, TimeOut(seat=classic.table.turn))
    assert ended.status == INTERRUPTED
    tile = tile_str(ended.table.hands[0][0])
    with pytest.raises(IllegalMove) as exc:
        play(ended, 0, tile)
    assert _code(exc) == "game_not_running"
    with pytest.raises(IllegalMove) as exc:
        decide(ended, Resign(seat=0))
    assert _code(exc) == "game_not_running"


@pytest.mark.parametrize("tile", ["7-1", "x", "", "1-", (9, 9), (2, 1)])
def test_invalid_tile(classic, tile):
    with pytest.raises(RulesError) as exc:
        decide(classic, PlayTile(seat=classic.table.turn, tile=tile))
    assert _code(exc) == "invalid_tile"


def test_invalid_end(classic):
    state = set_table(classic, hands=["2-6 0-0", "2-3 1-1"], line="2-5", turn=0)
    with pytest.raises(IllegalMove) as exc:
        play(state, 0, "2-6", "middle")
    assert _code(exc) == "invalid_end"


def test_refused_command_leaves_the_state_unchanged(classic):
    state = set_table(classic, hands=["2-6 0-0", "2-3 1-1"], line="2-5", turn=0)
    before = replace(state)
    with pytest.raises(IllegalMove):
        play(state, 0, "0-0")
    assert state == before


# --- §3 redeal ------------------------------------------------------------------------------------


def _first_redeal_seed(seats: int = 4, limit: int = 500) -> int:
    for n in range(limit):
        _, log = new_game("goat-classic", seats, seed=n)
        if any(e["type"] == "round_dealt" and e["data"]["void"] for e in log):
            return n
    raise AssertionError("no seed needing a redeal")


def test_redeal_void_deal_recorded_then_next_attempt():
    n = _first_redeal_seed()
    state, log = new_game("goat-classic", 4, seed=n)
    deals = [e["data"] for e in log if e["type"] == "round_dealt"]
    assert [(d["round"], d["attempt"], d["void"]) for d in deals[:2]] == [(1, 0, True), (1, 1, False)]
    assert dealing.needs_redeal([tiles(" ".join(h)) for h in deals[0]["hands"]])
    assert state.round_no == 1 and state.next_attempt == 0
    assert [list(map(tile_str, h)) for h in state.table.hands] == deals[-1]["hands"]


def test_gamesburg_never_redeals():
    n = _first_redeal_seed()
    _, classic_log = new_game("goat-classic", 4, seed=n)
    state, log = new_game("goat-gamesburg", 4, seed=n)
    deals = [e["data"] for e in log if e["type"] == "round_dealt"]
    assert [(d["attempt"], d["void"]) for d in deals] == [(0, False)]
    void_deal = next(e["data"] for e in classic_log if e["type"] == "round_dealt")
    assert deals[0]["hands"] == void_deal["hands"]  # the same deal, played as dealt (D-2)
    assert pending(state)[0] == PLAY


# --- §9 timeouts, resignations --------------------------------------------------------------------


def test_timeout_ends_game_interrupted_and_reveals_seed(classic):
    seat = classic.table.turn
    with pytest.raises(IllegalMove) as exc:
        decide(classic, TimeOut(seat=1 - seat))
    assert _code(exc) == "not_your_turn"
    new, events = decide(classic, TimeOut(seat=seat))
    assert types(events) == ["timed_out", "seed_revealed"]
    assert events[-1]["data"] == {"server_seed": seed_hex(0)}
    assert new.status == INTERRUPTED and new.result.reason == "timeout"
    assert new.result.goats == (seat,) and new.result.winners == (1 - seat,)
    assert new.result.rating_points[seat] == 0 and new.result.rating_points[1 - seat] == 1
    assert pending(new)[0] == "done"


def test_resign_treated_as_timeout(classic3):
    scores = (PlayerScore(score=40, open=True), PlayerScore(remembered=5), PlayerScore(score=15, open=True))
    state = replace(classic3, scores=scores)
    seat = state.table.turn
    timed_out, _ = decide(state, TimeOut(seat=seat))
    resigned, events = decide(state, Resign(seat=seat))
    assert types(events) == ["resigned", "seed_revealed"]
    assert resigned.status == INTERRUPTED and resigned.result.reason == "resigned"
    assert resigned.result._replace(reason="timeout") == timed_out.result
    # Any seated player may resign, not only the one to move.
    other = (seat + 1) % 3
    new, _ = decide(state, Resign(seat=other))
    assert new.result.goats == (other,)


def test_interrupted_round_does_not_count(classic):
    # Round 1 ends by out: seat 1 keeps 1-1 3-4 -> 9 remembered.
    state = set_table(classic, hands=["2-6", "1-1 3-4"], line="2-5", turn=0)
    after_round, _ = play(state, 0, "2-6")
    points = after_round.points
    assert points == [0, 9]
    # Round 2 is cut short with heavy hands: the result uses the points after round 1 (D-13).
    heavy = set_table(after_round, hands=["6-6 5-5 4-6 2-3", "0-1"], line="1-2", turn=0, bazaar="")
    ended, _ = decide(heavy, TimeOut(seat=0))
    assert ended.points == points
    assert ended.rounds == after_round.rounds
    assert ended.result.rating_points == (0, 1)  # max(1, round_half_up((0 - 9) / 10))
    ended, _ = decide(heavy, Resign(seat=1))
    assert ended.result.rating_points == (1, 0)  # (9 - 0) / 10 = 0.9 -> 1


def test_no_clock_refuses_timeout():
    state, _ = new_game("goat-classic", 2, {"move_time": 0})
    with pytest.raises(IllegalMove) as exc:
        decide(state, TimeOut(seat=state.table.turn))
    assert _code(exc) == "no_clock"
    new, _ = decide(state, Resign(seat=0))  # resigning needs no clock
    assert new.result.reason == "resigned"


# --- §10 ante -------------------------------------------------------------------------------------


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_ante_chips_sum_to_zero_finished_and_interrupted(seats):
    from goat.engine.replay import replay

    reasons = set()
    for n in range(12):
        log = simulate_game(random.Random(n), ruleset="goat-gamesburg", seats=seats, interrupt_chance=0.5)
        result = replay(log).state.result
        reasons.add(result.reason)
        assert sum(result.chips) == 0
        if result.reason in ("timeout", "resigned"):
            assert result.chips[result.goats[0]] == -10
        else:
            assert all(result.chips[w] > 0 for w in result.winners)
    assert "limit" in reasons and reasons & {"timeout", "resigned"}


def test_ante_interrupted_three_players_seat1_times_out():
    state, _ = new_game("goat-gamesburg", 3)
    state = replace(state, table=replace(state.table, turn=1))
    state = set_table(state, hands=["0-0 1-1", "2-6 3-3", "4-4 5-5"], line="2-5", turn=1)
    new, _ = decide(state, TimeOut(seat=1))
    assert new.result.chips == (5, -10, 5)


# --- game end -------------------------------------------------------------------------------------


def test_limit_reached_everyone_at_or_above_is_a_goat(classic3):
    scores = (PlayerScore(open=True, score=95), PlayerScore(open=True, score=96), PlayerScore(open=True, score=50))
    state = replace(classic3, scores=scores)
    state = set_table(state, hands=["4-2", "3-3", "2-6"], line="2-5", turn=2)  # seat 0: 6 -> 101
    new, events = play(state, 2, "2-6")
    assert types(events) == ["tile_played", "seed_revealed"]
    assert new.status == FINISHED and new.result.reason == "limit"
    assert new.points == [101, 102, 50]
    assert new.result.goats == (0, 1) and new.result.winners == (2,)
    assert new.result.rating_points == (0, 0, 5)


def test_d8_gamesburg_remembered_points_do_not_reach_the_limit():
    """goat-gamesburg (``remembered_counts: false``): 130 remembered points are not points, so the game
    goes on; the same position with remembered points counting ends it with that player the goat."""
    for counts, over in ((False, False), (True, True)):
        state, _ = new_game("goat-gamesburg", 3, {"remembered_counts": counts})
        scores = (PlayerScore(remembered=120), PlayerScore(open=True, score=50), PlayerScore(open=True, score=10))
        state = replace(state, scores=scores)
        state = set_table(state, hands=["4-2", "0-0 0-1", "2-6"], line="2-5", turn=2)  # seat 0: 6 -> 126 remembered
        new, events = play(state, 2, "2-6")
        assert new.scores[0] == PlayerScore(remembered=126)
        assert new.public_dict()["seats"][0]["points"] == (126 if counts else 0)
        assert new.public_dict()["seats"][0]["remembered"] == 126
        if over:
            assert new.status == FINISHED and new.result.goats == (0,) and new.result.winners == (2,)
        else:
            assert types(events) == ["tile_played", "round_dealt"] and new.status == RUNNING
            assert new.points == [0, 51, 10]


def test_d8_gamesburg_interrupted_game_uses_the_score_alone():
    state, _ = new_game("goat-gamesburg", 3)
    scores = (PlayerScore(remembered=12), PlayerScore(open=True, score=40), PlayerScore(open=True, score=20))
    state = replace(state, scores=scores)
    new, _ = decide(state, Resign(seat=1))
    # (40 - 0) / 10 = 4 for seat 0 (it would be (40 - 12) / 10 -> 3 with remembered points counting)
    assert new.result.goats == (1,) and new.result.winners == (0,)
    assert new.result.rating_points == (4, 0, 2)


def test_below_the_limit_the_game_goes_on(classic3):
    scores = (PlayerScore(open=True, score=94), PlayerScore(open=True, score=50), PlayerScore(open=True, score=50))
    state = replace(classic3, scores=scores)
    state = set_table(state, hands=["4-2", "0-0 0-1", "2-6"], line="2-5", turn=2)  # seat 0: 100
    new, events = play(state, 2, "2-6")
    assert types(events) == ["tile_played", "round_dealt"] and new.status == RUNNING


def test_carried_pot_is_void_at_game_end():
    state, _ = new_game("goat-classic", 3, {"fish_scoring": "fish_for_one"})
    scores = (PlayerScore(open=True, score=95), PlayerScore(open=True, score=95), PlayerScore(open=True, score=0))
    state = replace(state, scores=scores, fish_pot=30)
    # Seat 2 goes out; seats 0 and 1 share the top round points (6 each): the pot stays carried (D-9)...
    state = set_table(state, hands=["2-4", "3-3", "2-6"], line="2-5", turn=2)
    new, _ = play(state, 2, "2-6")
    # ...and the game ends with both at 101: the pot is void.
    assert new.status == FINISHED and new.fish_pot == 0
    assert new.points == [101, 101, 0]
    assert new.rounds[-1].fish_pot == 30


def test_fixed_rounds_end_after_round_3(rounds3):
    state = rounds3
    for number in (1, 2, 3):
        state = replace(state, round_no=number)
        state = set_table(state, hands=["2-6", "1-1 3-4"], line="2-5", turn=0)
        state = replace(state, table=replace(state.table, number=number))
        state, events = play(state, 0, "2-6")
        if number < 3:
            assert types(events) == ["tile_played", "round_dealt"] and state.status == RUNNING
    assert types(events) == ["tile_played", "seed_revealed"]
    assert state.status == FINISHED and state.result.reason == "rounds"
    assert state.points == [0, 27]
    assert state.result.winners == (0,) and state.result.goats == (1,)
    assert state.result.rating_points == (10, 0)


def test_commands_are_immutable_values_of_their_own_class():
    """Commands are named tuples for speed, with what the frozen dataclasses they were promised."""
    play_ = PlayTile(seat=1, tile="1-2", end="left")
    assert play_ == PlayTile(1, "1-2", "left") and (play_ != PlayTile(1, "1-2", "left")) is False
    assert hash(play_) == hash(PlayTile(1, "1-2", "left")) and len({play_, PlayTile(1, "1-2", "left")}) == 1
    assert PlayTile(1, "1-2").end is None and (play_.seat, play_.tile, play_.end) == (1, "1-2", "left")
    assert play_ != PlayTile(1, "1-2", "right")
    # Equal fields of another class, or a plain tuple, are not the same command (either side of ==).
    assert Resign(0) != TimeOut(0) and (Resign(0) == TimeOut(0)) is False and TimeOut(0) != Resign(0)
    assert play_ != (1, "1-2", "left") and ((1, "1-2", "left") == play_) is False
    assert repr(play_) == "PlayTile(seat=1, tile='1-2', end='left')"
    with pytest.raises(AttributeError):
        play_.seat = 0
    with pytest.raises(TypeError):
        play_ < PlayTile(2, "1-2")  # noqa: B015 - unordered, like the dataclasses
