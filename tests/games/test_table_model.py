"""The one presenter of a table (goat.games.table.table_model): what a person sees of a game at a step,
computed once for the game page, the play page and the admin (issue 51)."""

from __future__ import annotations

import json

import pytest
from django.utils import translation
from factories import FAST, finished_game, make_players, play, start_game

from goat.games import selectors
from goat.games.table import notes, parts_text, scoresheet_model, table_model

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _english():
    """The model speaks the active language: English here, whatever an earlier test left active."""
    with translation.override("en"):
        yield


def _event(seq, kind, seat, **data):
    return {"seq": seq, "type": kind, "seat": seat, "data": data}


def test_the_model_of_a_finished_game_is_json_and_its_scoresheet_runs_totals_with_brackets():
    people = make_players("ann", "ben", "cat")
    game = finished_game(people, options={"limit": 60, "move_time": 0}, seed=3)
    model = table_model(game=game, user=people[0])
    json.dumps(model)  # plain data: the play page receives it as it stands
    sheet = model["scoresheet"]
    state = selectors.game_state(game=game)
    assert [r["round"] for r in sheet["rows"]] == [r.round for r in state.rounds]
    for s in range(3):
        running = 0
        for row in sheet["rows"]:
            cell = row["cells"][s]
            assert cell["gained"] == f"+{cell['round_points']}"
            # the written total runs on: it only grows, by at most the round's points and what was remembered
            assert cell["total"] >= running
            running = cell["total"]
            assert cell["shown_remembered"] == (f"({cell['remembered']})" if cell["remembered"] else "")
        assert sheet["totals"][s]["points"] == state.scores[s].points_by(state.options.remembered_counts)
        assert running == state.scores[s].score
    assert model["result"]["heading"] == "The game is finished"
    assert parts_text(model["result"]["reason"]) == "A player reached the point limit."
    assert model["moves"] == []


def test_the_notes_merge_draws_with_their_count_and_name_a_knock_and_a_rounds_end():
    players = ["ann", "ben", "cat"]
    rounds = [{"round": 1, "end": "out", "seat": 1, "players": [], "round_points": []}]
    events = [_event(1, "tile_played", 0, tile="1-2", end="left"),
              _event(2, "tile_drawn", 1, tile=None), _event(3, "tile_drawn", 1, tile=None),
              _event(4, "tile_played", 1, tile="2-2", end="left"),
              _event(5, "knocked", 2),
              _event(6, "tile_played", 0, tile="2-3", end="right"),
              _event(7, "tile_played", 1, tile="3-3", end="right"),
              _event(8, "round_dealt", None, round=2)]
    shown = notes(events, players=players, viewer=0, rounds=rounds, seats=3)
    texts = [parts_text(n["parts"]) for n in shown]
    # since ann's own last turn (her play at 6)
    assert texts == ["ann plays 2-3 on the right.", "ben plays 3-3 on the right.",
                     "Round 1 is over: ben goes out (domino).", "Round 2 is dealt."]
    shown = notes(events[:5], players=players, viewer=0, rounds=rounds, seats=3)
    assert [n["type"] for n in shown] == ["tile_played", "tile_drawn", "tile_played", "knocked"]
    assert shown[1]["count"] == 2 and parts_text(shown[1]["parts"]) == "ben takes 2 tiles from the bazaar."
    assert [p.get("player") for p in shown[1]["parts"]] == ["ben", None]
    assert "knocks" in parts_text(shown[3]["parts"])
    mine = notes([_event(1, "tile_drawn", 0, tile="0-3"), _event(2, "tile_drawn", 0, tile="2-2")],
                 players=players, viewer=0, rounds=[], seats=3)
    assert parts_text(mine[0]["parts"]) == "You take 2 tiles from the bazaar: 0-3, 2-2."
    with translation.override("ru"):
        shown = notes(events[:5], players=players, viewer=0, rounds=rounds, seats=3)
        assert parts_text(shown[1]["parts"]) == "ben берёт с базара 2 костяшки."


def test_a_timeout_says_whose_clock_ran_out():
    from goat.games.table import result_model

    view = {"status": "finished", "rated": True, "result": {"reason": "timeout", "goats": [1], "winners": [0],
                                                              "rating_points": [3, -3], "chips": [0, 0]}}
    model = result_model(view, [_event(40, "timed_out", 1)], ["ann", "ben"])
    assert parts_text(model["reason"]) == "ben ran out of time." and model["reason"][0]["player"] == "ben"
    assert parts_text(model["goats"]) == "Goat: ben" and parts_text(model["rating"]) == "Rating points: ann +3, ben -3"


def test_a_running_games_model_holds_only_what_its_viewer_may_see():
    people = make_players("ann", "ben")
    game = start_game(people, options=FAST)
    play(game, people, seed=4, max_moves=6)
    game.refresh_from_db()
    state = selectors.game_state(game=game)
    for viewer, other in ((0, 1), (1, 0)):
        model = table_model(game=game, user=people[viewer])
        text = json.dumps(model)
        assert model["hand"] == [f"{t}" for t in selectors.game_view(game=game, state=state, seat=viewer)["hand"]]
        for tile in selectors.game_view(game=game, state=state, seat=other)["hand"]:
            assert f'"{tile}"' not in text.replace(json.dumps(model["line"]["tiles"]), "")
    spectator = table_model(game=game, user=None)
    assert spectator["hand"] == [] and spectator["moves"] == []
    assert spectator["line"]["ends_text"] == (
        f"ends: {state.table.left} and {state.table.right}" if state.table.line else "")


def test_the_scoresheet_legend_follows_the_options():
    sheet = {"rounds": [], "fish_pot": 0, "totals": [{"seat": 0, "player": "ann", "points": 0, "score": 0,
                                                      "remembered": 0, "open": False}]}
    goat = scoresheet_model(sheet, options={"scoring": "goat", "open_threshold": 12, "limit": 125,
                                            "remembered_counts": True}, ruleset="goat-classic")
    terms = [i["term"] for i in goat["legend"]["items"]]
    assert "A number in brackets" in terms and goat["legend"]["rules"]["url"] == "/rules/goat-classic/"
    rounds = scoresheet_model(sheet, options={"scoring": "rounds"}, ruleset="domino-3rounds")
    assert "A number in brackets" not in [i["term"] for i in rounds["legend"]["items"]]
