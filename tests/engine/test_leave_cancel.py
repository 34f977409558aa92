"""Leaving a waiting game and cancelling it (docs/api.md: ``seat_left``, ``game_cancelled``)."""

from __future__ import annotations

import pytest

from goat.engine import verify_log
from goat.engine.errors import NOT_RUNNING, IllegalMove, InvalidEvent
from goat.engine.fold import apply
from goat.engine.json_form import state_from_json, state_to_json
from goat.engine.replay import replay
from goat.engine.rules import CancelGame, CreateGame, LeaveSeat, TakeSeat, decide, pending
from goat.engine.status import CANCELLED, RUNNING, WAITING
from helpers import new_game, numbered, seed_hex


def _waiting(seats: int = 3, players=("alice",)):
    state, log = decide(None, CreateGame(ruleset="goat-classic", seats=seats, server_seed_hex=seed_hex(7)))
    log = list(log)
    for name in players:
        state, events = decide(state, TakeSeat(player=name))
        log.extend(events)
    return state, log


def test_leaving_frees_only_that_seat_and_a_new_player_may_take_it():
    state, _ = _waiting(3, ("alice", "bob"))
    state, events = decide(state, LeaveSeat(player="alice"))
    assert [e["type"] for e in events] == ["seat_left"]
    assert events[0]["data"] == {"seat": 0, "player": "alice"} and events[0]["seat"] == 0
    assert state.players == (None, "bob", None) and state.status == WAITING  # bob keeps seat 1
    state, events = decide(state, TakeSeat(player="carol"))
    assert events[0]["data"]["seat"] == 0  # the lowest free seat: the one alice left
    state, events = decide(state, TakeSeat(player="alice"))  # and alice may come back, to seat 2
    assert state.status == RUNNING and state.players == ("carol", "bob", "alice")


def test_the_last_player_out_cancels_the_game_and_the_seed_is_revealed():
    state, log = _waiting(2, ("alice",))
    state, events = decide(state, LeaveSeat(player="alice"))
    assert [e["type"] for e in events] == ["seat_left", "game_cancelled", "seed_revealed"]
    assert events[1]["data"] == {"reason": "left"}
    assert state.status == CANCELLED and state.ended and state.result is None and state.round_no == 0
    assert pending(state) == ("done", None)
    report = verify_log(numbered([*log, *events]))
    assert report == {"valid": True, "result": None, "rounds": []}


def test_an_expired_game_is_cancelled_with_its_players_seated():
    state, log = _waiting(3, ("alice", "bob"))
    state, events = decide(state, CancelGame(reason="expired"))
    assert [e["type"] for e in events] == ["game_cancelled", "seed_revealed"]
    assert state.status == CANCELLED and state.players == ("alice", "bob", None)
    assert verify_log(numbered([*log, *events]))["valid"] is True
    assert state_from_json(state_to_json(state)) == state  # the JSON form keeps the new status


@pytest.mark.parametrize("command", [LeaveSeat(player="p0"), CancelGame(reason="expired")])
def test_a_running_game_can_be_neither_left_nor_cancelled(command):
    state, _ = new_game("goat-classic", 2)
    with pytest.raises(IllegalMove) as excinfo:
        decide(state, command)
    assert excinfo.value.code == "game_not_waiting"


def test_a_cancelled_game_cannot_be_left_joined_or_cancelled_again():
    state, _ = _waiting(2, ("alice",))
    state, _ = decide(state, CancelGame())
    for command in (LeaveSeat(player="alice"), CancelGame(), TakeSeat(player="bob")):
        with pytest.raises(IllegalMove) as excinfo:
            decide(state, command)
        assert excinfo.value.code == "game_not_waiting"


def test_only_a_seated_player_may_leave():
    state, _ = _waiting(3, ("alice",))
    with pytest.raises(IllegalMove) as excinfo:
        decide(state, LeaveSeat(player="bob"))
    assert excinfo.value.code == "not_seated"


@pytest.mark.parametrize(("event", "code"), [
    ({"type": "seat_left", "seat": 1, "data": {"seat": 1, "player": "alice"}}, "not_seated"),  # alice holds 0
    ({"type": "seat_left", "seat": 5, "data": {"seat": 5, "player": "alice"}}, "invalid_seat"),
    ({"type": "seat_left", "seat": 0, "data": {"seat": "0", "player": "alice"}}, "invalid_seat"),
    ({"type": "game_cancelled", "seat": None, "data": {"reason": "left"}}, "seats_taken"),  # alice is seated
    ({"type": "game_cancelled", "seat": None, "data": {"reason": "bored"}}, "malformed_event"),
    ({"type": "game_cancelled", "seat": None, "data": {}}, "malformed_event"),
])
def test_a_forged_leave_or_cancel_is_refused(event, code):
    state, _ = _waiting(3, ("alice",))
    with pytest.raises((IllegalMove, InvalidEvent)) as excinfo:
        apply(state, event)
    assert excinfo.value.code == code


def test_replay_refuses_a_cancel_after_the_game_started_and_a_deal_after_a_cancel():
    state, log = new_game("goat-classic", 2)
    forged = numbered([*log, {"type": "game_cancelled", "seat": None, "data": {"reason": "expired"}}])
    result = replay(forged)
    assert (result.code, result.seq) == ("game_not_waiting", len(forged))
    _, log = _waiting(2, ("alice",))
    cancelled = [*log, {"type": "game_cancelled", "seat": None, "data": {"reason": "expired"}}]
    late_join = numbered([*cancelled, {"type": "seat_taken", "seat": 1, "data": {"seat": 1, "player": "bob"}}])
    assert replay(late_join).code == "game_not_waiting"
    # and verify wants the reveal that the rules force after the cancel
    assert verify_log(numbered(cancelled))["code"] == "seed_not_revealed"


def test_a_running_game_of_a_cancelled_tournament_is_cancelled_without_a_result():
    state, log = new_game("goat-classic", 3)
    assert state.status == RUNNING
    state, events = decide(state, CancelGame(reason="tournament_cancelled"))
    assert [e["type"] for e in events] == ["game_cancelled", "seed_revealed"]
    assert events[0]["data"] == {"reason": "tournament_cancelled"}
    assert state.status == CANCELLED and state.ended and state.result is None
    assert pending(state) == ("done", None)
    report = verify_log(numbered([*log, *events]))
    assert report["valid"] is True and report["result"] is None
    assert state_from_json(state_to_json(state)) == state
    with pytest.raises(IllegalMove) as excinfo:  # once only
        decide(state, CancelGame(reason="tournament_cancelled"))
    assert (excinfo.value.code, excinfo.value.detail) == ("game_not_running", NOT_RUNNING)  # the code's one sentence
    waiting, _ = _waiting(2, ("alice",))  # a waiting game of the tournament too
    assert decide(waiting, CancelGame(reason="tournament_cancelled"))[0].status == CANCELLED
