"""The OpenAPI document lists each operation's problem codes (docs/api.md "Errors"), from the one list the
operation's schema declares (``goat.web.api.schema.raises``) and the codes every request of its kind can get:
each problem response's schema names its ``code`` enum. Checked three ways: the document against itself (every
listed code is declared by an app with a title, every example's code is listed), the API against the document
(refusals provoked through the API carry a code their operation lists), and the engine against the document
(every refusal the engine gives a play is listed on the move operation)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from factories import make_players, start_game

from apitest import assert_problem, token_client
from goat import engine
from goat.engine.tiles import ALL_TILES, tile_str
from goat.games import eventstore, services
from goat.web.errors import error_code

pytestmark = pytest.mark.django_db

PROBLEM = "application/problem+json"


@pytest.fixture
def schema(api_client) -> dict[str, Any]:
    response = api_client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    return response.json()


def operations(schema: dict[str, Any]):
    for methods in schema["paths"].values():
        yield from methods.values()


def listed(schema: dict[str, Any], operation_id: str) -> dict[int, set[str]]:
    """status -> the codes ``operation_id``'s problem responses list."""
    operation = next(op for op in operations(schema) if op["operationId"] == operation_id)
    found = {}
    for status, response in operation["responses"].items():
        media = response.get("content", {}).get(PROBLEM)
        if media is not None:
            found[int(status)] = set(media["schema"]["allOf"][1]["properties"]["code"]["enum"])
    return found


def assert_listed(schema: dict[str, Any], operation_id: str, response, status: int, code: str) -> None:
    """``response`` is the problem (status, code), and ``operation_id`` lists that code at that status."""
    assert_problem(response, status, code)
    assert code in listed(schema, operation_id).get(status, set()), (operation_id, status, code)


def test_every_problem_response_lists_declared_codes_and_its_examples(schema):
    seen = 0
    for operation in operations(schema):
        name = operation["operationId"]
        for status, response in operation["responses"].items():
            media = response.get("content", {}).get(PROBLEM)
            if media is None:
                continue
            problem, codes = media["schema"]["allOf"]
            assert problem == {"$ref": "#/components/schemas/Problem"}, name
            enum = codes["properties"]["code"]["enum"]
            assert enum and enum == sorted(set(enum)), (name, status)
            for code in enum:
                assert error_code(code) is not None, f"{name} {status}: {code} is declared by no app"
            for example in media.get("examples", {}).values():
                assert example["value"]["code"] in enum, (name, status, example["value"]["code"])
            seen += 1
    assert seen > 300


def test_codes_keep_their_declared_status_unless_an_operation_says_another(schema):
    moved = set()
    for operation in operations(schema):
        for status, codes in listed(schema, operation["operationId"]).items():
            moved |= {(code, status) for code in codes if error_code(code).status != status}
    # computer_player: an opponent named in a challenge is a computer's account, 422 (docs/api.md "Challenges")
    assert moved == {("computer_player", 422)}


def test_seat_refusals_of_an_app_above_are_listed_where_a_seat_is_taken(schema):
    """ratings refuses a seat (``seat_taking``) with its codes: every operation that takes a seat lists them,
    and only a join, the one that may come back to a game, lists ``left_game``."""
    for operation_id in ("games_create", "games_join", "games_rematch", "challenges_accept"):
        assert "insufficient_chips" in listed(schema, operation_id)[422], operation_id
    assert "left_game" in listed(schema, "games_join")[409]
    assert "left_game" not in listed(schema, "games_create").get(409, set())


def test_the_join_lists_what_a_join_is_refused_with(schema):
    masha, alex, olya, petya, vasya = make_players("masha", "alex", "olya", "petya", "vasya")
    game = services.game_create(player=masha, ruleset="goat-pairs", seats=4).game
    join = f"/api/games/{game.pk}/join/"
    assert token_client(alex).post(join, {"seat": 2}, format="json").status_code == 200
    assert_listed(schema, "games_join", token_client(olya).post(join, {"seat": 2}, format="json"), 409, "seat_taken")
    assert_listed(schema, "games_join", token_client(alex).post(join, {}, format="json"), 409, "already_seated")
    two = services.game_create(player=masha, ruleset="goat-classic", seats=2).game
    assert_listed(schema, "games_join", token_client(olya).post(f"/api/games/{two.pk}/join/", {"seat": 3},
                                                                format="json"), 422, "invalid_seat")
    classic = services.game_create(player=masha, ruleset="goat-gamesburg", seats=3,
                                   options={"move_time": 0}).game  # an ante of 10
    services.game_join(game_id=classic.pk, player=alex)
    services.game_leave(game_id=classic.pk, player=alex)
    assert_listed(schema, "games_join", token_client(alex).post(f"/api/games/{classic.pk}/join/", {}, format="json"),
                  409, "left_game")
    dear = {"ruleset": "goat-gamesburg", "seats": 2, "options": {"move_time": 0, "ante": 600}}
    assert_listed(schema, "games_create", token_client(petya).post("/api/games/", {**dear, "options": {
        "move_time": 0, "ante": 5000}}, format="json"), 422, "insufficient_chips")  # 1000 chips to start with
    services.game_create(player=petya, **dear)
    rich = services.game_create(player=vasya, **dear).game
    assert_listed(schema, "games_join", token_client(petya).post(f"/api/games/{rich.pk}/join/", {}, format="json"),
                  422, "insufficient_chips")  # 400 chips left
    started = start_game([olya, petya])
    assert_listed(schema, "games_join", token_client(vasya).post(f"/api/games/{started.pk}/join/", {}, format="json"),
                  409, "game_not_waiting")


def test_the_commands_on_a_game_list_what_they_are_refused_with(schema):
    masha, alex, olya = make_players("masha", "alex", "olya")
    game = start_game([masha, alex], options={"move_time": 0})
    state = eventstore.state_load(game)
    mover, waiter = (masha, alex) if state.turn == 0 else (alex, masha)
    moves = f"/api/games/{game.pk}/moves/"
    tile = tile_str(engine.legal_moves(state)[0][0])
    assert_listed(schema, "games_move", token_client(waiter).post(moves, {"tile": tile}, format="json"), 422,
                  "not_your_turn")
    assert_listed(schema, "games_move", token_client(olya).post(moves, {"tile": tile}, format="json"), 403,
                  "not_seated")
    assert_listed(schema, "games_move", token_client(mover).post(moves, {"tile": tile}, format="json",
                                                                 HTTP_IF_MATCH='"1"'), 412, "version_mismatch")
    assert_listed(schema, "games_move", token_client(mover).post(moves, {"tile": tile}, format="json",
                                                                 HTTP_IF_MATCH="v1"), 400, "invalid_if_match")
    assert_listed(schema, "games_leave", token_client(masha).post(f"/api/games/{game.pk}/leave/"), 409,
                  "game_not_waiting")
    assert_listed(schema, "games_replay", token_client(masha).get(f"/api/games/{game.pk}/replay/"), 409,
                  "game_not_ended")
    waiting = services.game_create(player=masha, ruleset="goat-classic", seats=3).game
    assert_listed(schema, "games_resign", token_client(masha).post(f"/api/games/{waiting.pk}/resign/"), 422,
                  "game_not_running")
    assert_listed(schema, "games_move", token_client(masha).post(f"/api/games/{waiting.pk}/moves/", {"tile": tile},
                                                                 format="json"), 422, "game_not_running")
    assert_listed(schema, "games_leave", token_client(olya).post(f"/api/games/{waiting.pk}/leave/"), 403,
                  "not_seated")


def test_every_refusal_the_engine_gives_a_play_is_listed_on_the_move(schema):
    """Every tile and end (and words that are neither) tried by every seat at several points of a game: each
    code the engine refuses with is on the move operation's list, at its declared status."""
    masha, alex, olya = make_players("masha", "alex", "olya")
    game = start_game([masha, alex, olya], options={"move_time": 0})
    state = eventstore.state_load(game)
    move = listed(schema, "games_move")
    refused: set[str] = set()
    for _ in range(8):
        for seat, tile, end in itertools.product(range(3), [*map(tile_str, ALL_TILES), "3-9", "x"],
                                                 ["left", "right", None, "middle"]):
            try:
                engine.decide(state, engine.PlayTile(seat=seat, tile=tile, end=end))
            except engine.RulesError as exc:
                refused.add(exc.code)
                assert exc.code in move.get(error_code(exc.code).status, set()), exc.code
        tile, end = engine.legal_moves(state)[0]
        state, _events = engine.decide(state, engine.PlayTile(seat=state.turn, tile=tile, end=end))
    assert {"not_your_turn", "tile_not_in_hand", "tile_does_not_fit", "invalid_tile", "invalid_end"} <= refused
