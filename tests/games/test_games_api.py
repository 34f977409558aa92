"""Games API (docs/api.md "Games and moves" and "Events and what is hidden"): every endpoint, every
refusal code, conditional requests."""

from __future__ import annotations

import random

import pytest
from rest_framework.test import APIClient

from apitest import assert_problem, token_client
from goat import engine
from goat.engine import deal as dealing
from goat.engine.tiles import tile_str
from goat.games import eventstore, services
from goat.games.models import Game, GameEvent

pytestmark = pytest.mark.django_db


# --- helpers ----------------------------------------------------------------------------------


@pytest.fixture
def players(django_user_model):
    """Four players, each with their own token client: ``[(user, client), ...]``."""
    out = []
    for name in ("ann", "ben", "cat", "dan"):
        user = django_user_model.objects.create_user(username=name, password="x" * 12)
        out.append((user, token_client(user)))
    return out


def create_game(client, ruleset="goat-classic", seats=2, **extra) -> dict:
    response = client.post("/api/games/", {"ruleset": ruleset, "seats": seats, **extra}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def started_game(players, seats=2, ruleset="goat-classic", options=None) -> int:
    view = create_game(players[0][1], ruleset=ruleset, seats=seats, options=options or {})
    for _user, client in players[1:seats]:
        assert client.post(f"/api/games/{view['id']}/join/", {}, format="json").status_code == 200
    return view["id"]


def state_of(game_id: int):
    return eventstore.state_load(Game.objects.get(pk=game_id))


def advance_until(game_id: int, players, predicate, *, seed=0, limit=500):
    """Play random legal moves through the service until ``predicate(state)`` holds; return the state."""
    rng = random.Random(seed)
    for _ in range(limit):
        state = state_of(game_id)
        if predicate(state):
            return state
        assert state.status == "running", "the game ended before the situation came up"
        seat = state.turn
        tile, end = rng.choice(engine.legal_moves(state, seat))
        services.game_play_tile(game_id=game_id, player=players[seat][0], tile=tile_str(tile), end=end)
    raise AssertionError("the situation never came up")


def move(client, game_id, tile, end=None, **headers):
    body = {"tile": tile} if end is None else {"tile": tile, "end": end}
    return client.post(f"/api/games/{game_id}/moves/", body, format="json", **headers)


# --- create -----------------------------------------------------------------------------------


def test_create_answers_201_with_the_game_view_and_seat_0(players):
    view = create_game(players[0][1], seats=3, options={"limit": 51}, client_seed="abc")

    assert view["status"] == "waiting"
    assert view["your_seat"] == 0
    assert view["options"]["limit"] == 51
    assert view["seats"][0]["player"] == "ann" and view["seats"][1]["player"] is None
    assert view["version"] == 2 and view["hand"] == [] and view["legal_moves"] == []
    assert view["server_seed"] is None and len(view["server_seed_commitment"]) == 64
    first = GameEvent.objects.filter(game_id=view["id"]).order_by("seq").first()
    assert first.type == "game_created"


@pytest.mark.parametrize(
    "body, field",
    [
        ({"seats": 2}, "ruleset"),
        ({"ruleset": "goat-classic"}, "seats"),
        ({"ruleset": "goat-classic", "seats": "2"}, "seats"),
        ({"ruleset": "goat-classic", "seats": 2.5}, "seats"),
        ({"ruleset": "goat-classic", "seats": True}, "seats"),
        ({"ruleset": "goat-classic", "seats": 5}, "seats"),
        ({"ruleset": "goat-classic", "seats": 1}, "seats"),
        ({"ruleset": 7, "seats": 2}, "ruleset"),
        ({"ruleset": "goat-classic", "seats": 2, "options": [1]}, "options"),
        ({"ruleset": "goat-classic", "seats": 2, "options": "limit=5"}, "options"),
        ({"ruleset": "goat-classic", "seats": 2, "client_seed": "x" * 256}, "client_seed"),
        ({"ruleset": "goat-classic", "seats": 2, "client_seed": 12}, "client_seed"),
        ({"ruleset": "goat-classic", "seats": 2, "sets": 2}, "sets"),
        ({"ruleset": "x" * 10_000, "seats": 2}, "ruleset"),
    ],
)
def test_create_refuses_bad_bodies_with_400_invalid(players, body, field):
    response = players[0][1].post("/api/games/", body, format="json")

    body = assert_problem(response, 400, "invalid")
    assert field in body["errors"]
    assert not Game.objects.exists()


@pytest.mark.parametrize("seed", ["<b>bold</b>", "a|b", "\u202eevil", "tab\there", "zero\u200bwidth", 'quote"'])
def test_create_and_join_refuse_a_client_seed_outside_its_characters(players, seed):
    create = {"ruleset": "goat-classic", "seats": 2, "client_seed": seed}
    body = assert_problem(players[0][1].post("/api/games/", create, format="json"), 400, "invalid_client_seed")
    assert "client_seed" in body["errors"]
    assert not Game.objects.exists()
    gid = create_game(players[0][1], seats=2)["id"]
    assert_problem(players[1][1].post(f"/api/games/{gid}/join/", {"client_seed": seed}, format="json"),
                   400, "invalid_client_seed")
    assert Game.objects.get(pk=gid).seat_set.count() == 1


@pytest.mark.parametrize("seed", ["", "x7", "карл 2026", "seed-1:2, (ok)!", "ёжик_в/тумане"])
def test_a_client_seed_of_letters_digits_and_the_documented_punctuation_is_taken(players, seed):
    assert create_game(players[0][1], seats=2, client_seed=seed)["id"]


@pytest.mark.parametrize("raw", ["[]", '"goat"', "null", "42", "[{\"ruleset\": \"goat-classic\"}]"])
def test_create_refuses_a_body_that_is_not_an_object(players, raw):
    response = players[0][1].post("/api/games/", raw, content_type="application/json")

    assert_problem(response, 400, "invalid")


def test_create_refuses_malformed_json(players):
    response = players[0][1].post("/api/games/", '{"ruleset": "goat-classic",', content_type="application/json")

    assert_problem(response, 400, "malformed_json")


def test_create_refuses_an_unknown_ruleset(players):
    response = players[0][1].post("/api/games/", {"ruleset": "chess", "seats": 2}, format="json")

    body = assert_problem(response, 400, "unknown_ruleset")
    assert "goat-classic" in body["detail"]


@pytest.mark.parametrize("options", [{"limit": 0}, {"limit": "many"}, {"colour": "red"}, {"hand_size": 14}])
def test_create_refuses_invalid_options(players, options):
    response = players[0][1].post("/api/games/", {"ruleset": "goat-classic", "seats": 4, "options": options},
                                  format="json")

    assert_problem(response, 400, "invalid_options")
    assert not Game.objects.exists()


def test_every_write_needs_authentication(players, api_client):
    game_id = started_game(players)
    calls = [
        ("post", "/api/games/"), ("post", f"/api/games/{game_id}/join/"), ("post", f"/api/games/{game_id}/moves/"),
        ("post", f"/api/games/{game_id}/resign/"), ("post", f"/api/games/{game_id}/leave/"),
        ("post", f"/api/games/{game_id}/rematch/"), ("get", "/api/players/me/games/"),
    ]
    for method, url in calls:
        response = getattr(api_client, method)(url, {}, format="json") if method == "post" else api_client.get(url)
        assert_problem(response, 401, "not_authenticated")
        assert response["WWW-Authenticate"] == "Token"


def test_the_reads_of_a_game_are_public(players, api_client):
    """Anonymous GETs (docs/api.md "Anonymous reads"); replay and verify wait for the end as for anyone."""
    game_id = started_game(players)
    for url in ("/api/games/", f"/api/games/{game_id}/", f"/api/games/{game_id}/events/",
                f"/api/games/{game_id}/scoresheet/"):
        assert api_client.get(url).status_code == 200, url
    for url in (f"/api/games/{game_id}/replay/", f"/api/games/{game_id}/verify/"):
        assert_problem(api_client.get(url), 409, "game_not_ended")


def test_a_wrong_token_is_401_authentication_failed(players, api_client):
    api_client.credentials(HTTP_AUTHORIZATION="Token " + "0" * 40)

    assert_problem(api_client.get("/api/games/"), 401, "authentication_failed")


# --- join -------------------------------------------------------------------------------------


def test_join_takes_the_next_seat_and_the_last_seat_starts_the_game(players):
    view = create_game(players[0][1], seats=3)
    gid = view["id"]

    second = players[1][1].post(f"/api/games/{gid}/join/", {"client_seed": "b"}, format="json")
    assert second.status_code == 200
    assert second.json()["your_seat"] == 1 and second.json()["status"] == "waiting"

    third = players[2][1].post(f"/api/games/{gid}/join/", format="json")
    assert third.status_code == 200
    body = third.json()
    assert body["status"] == "running" and body["your_seat"] == 2
    assert len(body["hand"]) == 7 and body["round"] == 1
    assert [s["player"] for s in body["seats"]] == ["ann", "ben", "cat"]


def test_join_refusals(players):
    gid = create_game(players[0][1], seats=2)["id"]

    assert_problem(players[0][1].post(f"/api/games/{gid}/join/", {}, format="json"), 409, "already_seated")
    assert players[1][1].post(f"/api/games/{gid}/join/", {}, format="json").status_code == 200
    assert_problem(players[2][1].post(f"/api/games/{gid}/join/", {}, format="json"), 409, "game_not_waiting")
    assert_problem(players[2][1].post("/api/games/999999/join/", {}, format="json"), 404, "not_found")
    body = assert_problem(players[2][1].post(f"/api/games/{gid}/join/", {"client_seed": ["x"]}, format="json"),
                          400, "invalid")
    assert "client_seed" in body["errors"]


def test_a_refused_precondition_is_the_engines_one_sentence_in_the_callers_language(players):
    """join, leave and resign are refused by the engine's ``decide`` (the services do not check again):
    each code says the engine's one sentence (goat/engine/errors.py), in English or Russian."""
    from django.utils import translation

    from goat.engine import errors

    gid = started_game(players)
    refusals = [(players[2][1], "join/", 409, "game_not_waiting", errors.NOT_WAITING),
                (players[0][1], "leave/", 409, "game_not_waiting", errors.STARTED),
                (players[2][1], "leave/", 403, "not_seated", errors.NOT_SEATED),
                (players[2][1], "resign/", 403, "not_seated", errors.NOT_SEATED)]
    for client, action, status, code, sentence in refusals:
        assert assert_problem(client.post(f"/api/games/{gid}/{action}", {}, format="json"), status,
                              code)["detail"] == sentence
        russian = client.post(f"/api/games/{gid}/{action}", {}, format="json", HTTP_ACCEPT_LANGUAGE="ru")
        with translation.override("ru"):
            assert russian.json()["detail"] == translation.gettext(sentence) != sentence, (action, code)
    assert Game.objects.get(pk=gid).status == "running"


def test_game_full_when_the_last_seat_was_taken_meanwhile(players):
    gid = create_game(players[0][1], seats=2)["id"]
    game = Game.objects.get(pk=gid)
    # The engine state says a seat is free but the row is taken (a racing join, every try): refused
    # after the last try, not a 500.
    from goat.games.models import Seat

    Seat.objects.create(game=game, seat=1, player=players[1][0])
    with pytest.raises(Exception) as info:
        services.game_join(game_id=gid, player=players[2][0])
    assert getattr(info.value, "code", None) == "game_full"
    assert Game.objects.get(pk=gid).version == game.version  # nothing was appended


# --- list -------------------------------------------------------------------------------------


def test_list_is_paginated_and_filtered(players):
    running = started_game(players)
    waiting = create_game(players[2][1], ruleset="domino-3rounds", seats=3)["id"]
    client = players[3][1]

    everything = client.get("/api/games/").json()
    assert everything["count"] == 2 and set(everything) == {"count", "next", "previous", "results"}
    assert [g["id"] for g in everything["results"]] == [waiting, running]
    summary = everything["results"][1]
    assert set(summary) >= {"id", "ruleset", "status", "seats", "version", "round", "turn", "created_at",
                            "ended_at", "result"}
    assert summary["seats"] == [{"seat": 0, "player": "ann", "computer": False, "bot": False},
                                {"seat": 1, "player": "ben", "computer": False, "bot": False}]

    def ids(query):
        response = client.get("/api/games/" + query)
        assert response.status_code == 200, response.content
        return [g["id"] for g in response.json()["results"]]

    assert ids("?status=running") == [running]
    assert ids("?status=waiting") == [waiting]
    assert ids("?player=ben") == [running]
    assert ids("?player=cat") == [waiting]
    assert ids("?player=nobody") == []
    assert ids("?ruleset=domino-3rounds") == [waiting]
    assert ids("?tournament=1") == []  # neither game belongs to a tournament (tests/tournaments cover the match)
    assert ids("?page_size=1&page=2") == [running]
    assert_problem(client.get("/api/games/?status=paused"), 400, "invalid")
    assert_problem(client.get("/api/games/?ruleset=chess"), 400, "invalid")
    assert_problem(client.get("/api/games/?tournament=abc"), 400, "invalid")
    assert_problem(client.get("/api/games/?page=99"), 404, "not_found")


# --- view, ETag, 404 --------------------------------------------------------------------------


def test_game_view_shows_own_hand_only_and_spectators_none(players):
    gid = started_game(players)
    state = state_of(gid)

    mine = players[0][1].get(f"/api/games/{gid}/")
    assert mine.status_code == 200
    assert mine.json()["hand"] == [tile_str(t) for t in state.hand(0)]
    assert mine["ETag"] == f'"{state.version}"'
    assert "Authorization" in mine["Vary"] and "Cookie" in mine["Vary"]

    spectator = players[3][1].get(f"/api/games/{gid}/").json()
    assert spectator["hand"] == [] and spectator["legal_moves"] == [] and spectator["your_seat"] is None
    assert spectator["bazaar"] == len(state.table.bazaar)
    assert [s["tiles"] for s in spectator["seats"]] == [7, 7]


def test_game_view_legal_moves_for_the_player_to_move(players):
    gid = started_game(players)
    state = state_of(gid)
    turn = state.turn

    view = players[turn][1].get(f"/api/games/{gid}/").json()
    other = players[1 - turn][1].get(f"/api/games/{gid}/").json()

    assert view["legal_moves"] == [{"tile": tile_str(state.table.must_lead), "end": "left"}]
    assert other["legal_moves"] == []


def test_if_none_match_gives_304_until_the_game_changes(players):
    gid = started_game(players)
    client = players[0][1]
    tag = client.get(f"/api/games/{gid}/")["ETag"]

    cached = client.get(f"/api/games/{gid}/", HTTP_IF_NONE_MATCH=tag)
    assert cached.status_code == 304 and cached.content == b"" and cached["ETag"] == tag
    assert client.get(f"/api/games/{gid}/", HTTP_IF_NONE_MATCH=f'W/{tag}, "x"').status_code == 304
    assert client.get(f"/api/games/{gid}/", HTTP_IF_NONE_MATCH='"1"').status_code == 200

    state = state_of(gid)
    lead = tile_str(state.table.must_lead)
    played = move(players[state.turn][1], gid, lead)
    assert played.status_code == 201
    fresh = client.get(f"/api/games/{gid}/", HTTP_IF_NONE_MATCH=tag)
    # The play and any draws it forced: the version moves on by at least one.
    assert fresh.status_code == 200 and fresh["ETag"] == f'"{played.json()["version"]}"' != tag
    assert played.json()["version"] > state.version


def test_unknown_game_is_404_everywhere(players):
    client = players[0][1]
    for url in ("", "events/", "scoresheet/", "replay/", "verify/"):
        assert_problem(client.get(f"/api/games/424242/{url}"), 404, "not_found")
    for url, body in (("join/", {}), ("moves/", {"tile": "1-1"}), ("resign/", {})):
        assert_problem(client.post(f"/api/games/424242/{url}", body, format="json"), 404, "not_found")
    assert_problem(client.get("/api/games/abc/"), 404, "not_found")
    assert_problem(client.get("/api/games/" + "9" * 40 + "/"), 404, "not_found")


# --- moves ------------------------------------------------------------------------------------


def test_a_move_answers_201_with_version_events_and_view(players):
    gid = started_game(players)
    state = state_of(gid)
    seat = state.turn
    lead = tile_str(state.table.must_lead)

    response = move(players[seat][1], gid, lead, HTTP_IF_MATCH=f'"{state.version}"')

    assert response.status_code == 201, response.content
    body = response.json()
    assert body["version"] == state.version + len(body["events"]) == body["game"]["version"]
    assert response["ETag"] == f'"{body["version"]}"'
    assert body["events"][0] == {**body["events"][0], "seq": state.version + 1, "type": "tile_played", "seat": seat,
                                 "data": {"tile": lead, "end": "left"}}
    assert lead not in body["game"]["hand"] and body["game"]["line"]["tiles"][0] in (lead, lead[::-1])


@pytest.mark.parametrize("seats", [2, 4])
def test_every_moves_answer_is_what_get_shows_the_mover_at_that_version(players, seats):
    """The answer is drawn from the update the command built for the streams: over a whole game (draws
    from the bazaar, new deals, the end and its revealed seed) it is what GET and the event log show the mover,
    hidden tiles of the other seats included, never more."""
    volatile = ("server_time", "remaining_ms")
    gid = started_game(players, seats=seats)
    rng = random.Random(seats)
    kinds: set[str] = set()
    while (state := state_of(gid)).status == "running":
        seat = state.turn
        tile, end = rng.choice(engine.legal_moves(state, seat))
        client = players[seat][1]
        response = move(client, gid, tile_str(tile), end, HTTP_IF_MATCH=f'"{state.version}"')
        assert response.status_code == 201, response.content
        body = response.json()
        shown = client.get(f"/api/games/{gid}/").json()
        events = client.get(f"/api/games/{gid}/events/", {"after": state.version}).json()
        assert {k: v for k, v in body["game"].items() if k not in volatile} == {
            k: v for k, v in shown.items() if k not in volatile}
        assert (body["version"], body["events"]) == (events["version"], events["events"])
        kinds.update(event["type"] for event in body["events"])
    assert {"tile_played", "round_dealt", "seed_revealed"} <= kinds
    assert seats == 4 or "tile_drawn" in kinds  # two seats draw from the bazaar


def test_must_lead_with_names_the_tile(players):
    gid = started_game(players)
    state = state_of(gid)
    seat = state.turn
    lead = tile_str(state.table.must_lead)
    other = next(tile_str(t) for t in state.hand(seat) if tile_str(t) != lead)

    body = assert_problem(move(players[seat][1], gid, other), 422, "must_lead_with")
    assert lead in body["detail"]


def test_not_your_turn_not_seated_and_tile_not_in_hand(players):
    gid = started_game(players)
    state = state_of(gid)
    seat = state.turn
    idle = 1 - seat

    assert_problem(move(players[idle][1], gid, tile_str(state.hand(idle)[0])), 422, "not_your_turn")
    assert_problem(move(players[2][1], gid, "1-1"), 403, "not_seated")
    assert_problem(move(players[seat][1], gid, tile_str(state.hand(idle)[0])), 422, "tile_not_in_hand")
    assert_problem(move(players[seat][1], gid, "3-9"), 422, "invalid_tile")
    assert state_of(gid).version == state.version


def test_tile_does_not_fit(players):
    gid = started_game(players)

    def a_tile_fits_nowhere(state):
        t = state.table
        return t is not None and t.line and state.turn is not None and any(
            t.left not in tile and t.right not in tile for tile in t.hands[state.turn])

    state = advance_until(gid, players, a_tile_fits_nowhere)
    t = state.table
    tile = next(x for x in t.hands[state.turn] if t.left not in x and t.right not in x)

    client = players[state.turn][1]
    assert_problem(move(client, gid, tile_str(tile)), 422, "tile_does_not_fit")
    assert_problem(move(client, gid, tile_str(tile), "left"), 422, "tile_does_not_fit")


def test_end_required_when_the_tile_fits_both_ends(players):
    gid = started_game(players)

    def fits_both(state):
        moves = engine.legal_moves(state) if state.status == "running" else []
        return any((tile, "right") in moves for tile, end in moves if end == "left") and state.table.line

    state = advance_until(gid, players, fits_both)
    moves = engine.legal_moves(state)
    tile = next(tile for tile, end in moves if end == "left" and (tile, "right") in moves)

    body = assert_problem(move(players[state.turn][1], gid, tile_str(tile)), 422, "end_required")
    assert tile_str(tile) in body["detail"]
    assert move(players[state.turn][1], gid, tile_str(tile), "right").status_code == 201


def test_game_not_running_before_the_start_and_after_the_end(players):
    gid = create_game(players[0][1])["id"]
    assert_problem(move(players[0][1], gid, "1-1"), 422, "game_not_running")
    assert_problem(players[0][1].post(f"/api/games/{gid}/resign/"), 422, "game_not_running")

    players[1][1].post(f"/api/games/{gid}/join/", {}, format="json")
    assert players[0][1].post(f"/api/games/{gid}/resign/").status_code == 200
    assert_problem(move(players[1][1], gid, "1-1"), 422, "game_not_running")
    assert_problem(players[1][1].post(f"/api/games/{gid}/resign/"), 422, "game_not_running")


@pytest.mark.parametrize(
    "body, field",
    [
        ({}, "tile"),
        ({"tile": 35}, "tile"),
        ({"tile": None}, "tile"),
        ({"tile": "1-1", "end": "middle"}, "end"),
        ({"tile": "1-1", "end": 1}, "end"),
        ({"tile": "1-1", "edn": "left"}, "edn"),
        ({"tile": "1-1" * 1000}, "tile"),
    ],
)
def test_a_bad_move_body_is_400_invalid(players, body, field):
    gid = started_game(players)
    response = players[state_of(gid).turn][1].post(f"/api/games/{gid}/moves/", body, format="json")

    assert field in assert_problem(response, 400, "invalid")["errors"]


def test_malformed_move_bodies(players):
    gid = started_game(players)
    client = players[0][1]

    assert_problem(client.post(f"/api/games/{gid}/moves/", "{tile", content_type="application/json"), 400,
                   "malformed_json")
    assert_problem(client.post(f"/api/games/{gid}/moves/", '["1-1"]', content_type="application/json"), 400,
                   "invalid")
    assert_problem(client.post(f"/api/games/{gid}/moves/", "tile=1-1",
                               content_type="application/x-www-form-urlencoded"), 415, "unsupported_media_type")


def test_if_match_stale_is_412_and_malformed_is_400(players):
    gid = started_game(players)
    state = state_of(gid)
    client = players[state.turn][1]
    lead = tile_str(state.table.must_lead)

    body = assert_problem(move(client, gid, lead, HTTP_IF_MATCH=f'"{state.version - 1}"'), 412, "version_mismatch")
    assert str(state.version) in body["detail"]
    for bad in ("3", '"abc"', 'W/"3"', '"1" "2"', '"' + "9" * 30 + '"'):
        assert_problem(move(client, gid, lead, HTTP_IF_MATCH=bad), 400, "invalid_if_match")
    assert state_of(gid).version == state.version
    assert move(client, gid, lead, HTTP_IF_MATCH="*").status_code == 201


# --- resign -----------------------------------------------------------------------------------


def test_resign_ends_the_game_and_reveals_everything(players):
    gid = started_game(players, seats=3)

    assert_problem(players[3][1].post(f"/api/games/{gid}/resign/"), 403, "not_seated")
    response = players[1][1].post(f"/api/games/{gid}/resign/")

    assert response.status_code == 200
    view = response.json()
    assert view["status"] == "interrupted" and view["result"]["reason"] == "resigned"
    assert view["server_seed"] and view["legal_moves"] == [] and view["turn"] is None
    events = players[3][1].get(f"/api/games/{gid}/events/").json()["events"]
    dealt = next(e for e in events if e["type"] == "round_dealt")
    assert all(isinstance(hand, list) for hand in dealt["data"]["hands"])
    assert events[-1]["type"] == "seed_revealed"


# --- events -----------------------------------------------------------------------------------


#: a server seed whose first deal of a 2-seat goat-classic game (no client seeds) has five doubles in a hand
VOID_FIRST_DEAL = f"{15:064x}"


@pytest.mark.parametrize("server_seed", [None, VOID_FIRST_DEAL], ids=["random", "redealt"])
def test_events_are_redacted_for_each_viewer_while_running(players, staff_client, django_user_model, monkeypatch,
                                                           server_seed):
    if server_seed:
        monkeypatch.setattr(dealing, "new_server_seed", lambda: server_seed)
    gid = started_game(players)
    state = state_of(gid)
    if server_seed:  # the fixed seed's first deal is void and dealt again
        assert [e.data["void"] for e in GameEvent.objects.filter(game_id=gid, type="round_dealt")] == [True, False]

    mine = players[0][1].get(f"/api/games/{gid}/events/")
    assert mine.status_code == 200 and mine["ETag"] == f'"{state.version}"'
    body = mine.json()
    assert body["version"] == state.version
    assert [e["seq"] for e in body["events"]] == list(range(1, state.version + 1))
    # the deal in force: a goat-classic hand with five doubles is dealt again, the first deal voided
    dealt = next(e for e in body["events"] if e["type"] == "round_dealt" and not e["data"]["void"])
    assert dealt["data"]["hands"][0] == [tile_str(t) for t in state.hand(0)]
    assert dealt["data"]["hands"][1] == 7 and isinstance(dealt["data"]["bazaar"], int)

    spectator = players[3][1].get(f"/api/games/{gid}/events/").json()
    dealt = next(e for e in spectator["events"] if e["type"] == "round_dealt")
    assert dealt["data"]["hands"] == [7, 7]

    staff = staff_client.get(f"/api/games/{gid}/events/").json()  # staff without goat.audit_game: a spectator
    dealt = next(e for e in staff["events"] if e["type"] == "round_dealt")
    assert dealt["data"]["hands"] == [7, 7] and isinstance(dealt["data"]["bazaar"], int)

    auditor = auditor_client(django_user_model).get(f"/api/games/{gid}/events/").json()
    dealt = next(e for e in auditor["events"] if e["type"] == "round_dealt")
    assert all(isinstance(h, list) for h in dealt["data"]["hands"]) and isinstance(dealt["data"]["bazaar"], list)


def test_events_after_and_etag(players):
    gid = started_game(players)
    client = players[0][1]
    version = state_of(gid).version

    tail = client.get(f"/api/games/{gid}/events/?after=2").json()
    assert [e["seq"] for e in tail["events"]] == list(range(3, version + 1))
    assert client.get(f"/api/games/{gid}/events/?after={version}").json() == {"version": version, "events": []}
    assert client.get(f"/api/games/{gid}/events/?after=2", HTTP_IF_NONE_MATCH=f'"{version}"').status_code == 304
    for bad in ("-1", "x", "1.5", "9" * 30):
        assert_problem(client.get(f"/api/games/{gid}/events/?after={bad}"), 400, "invalid")


# --- scoresheet, replay, verify -----------------------------------------------------------------


def finished_game(players, ruleset="domino-3rounds", seats=2) -> int:
    gid = started_game(players, seats=seats, ruleset=ruleset)
    advance_until(gid, players, lambda s: s.ended, limit=2000)
    return gid


def test_scoresheet(players):
    gid = finished_game(players)

    response = players[3][1].get(f"/api/games/{gid}/scoresheet/")

    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"rounds", "fish_pot", "totals"}
    assert len(body["rounds"]) == 3
    assert [t["player"] for t in body["totals"]] == ["ann", "ben"]


def test_replay_and_verify_are_for_ended_games_or_auditors(players, staff_client, django_user_model):
    gid = started_game(players)

    assert_problem(players[0][1].get(f"/api/games/{gid}/replay/"), 409, "game_not_ended")
    assert_problem(players[0][1].get(f"/api/games/{gid}/verify/"), 409, "game_not_ended")
    assert_problem(staff_client.get(f"/api/games/{gid}/replay/"), 409, "game_not_ended")  # staff are not auditors
    auditor = auditor_client(django_user_model)
    replay = auditor.get(f"/api/games/{gid}/replay/?at=1")
    assert replay.status_code == 200 and replay.json()["status"] == "waiting"
    assert auditor.get(f"/api/games/{gid}/verify/").json()["hash_chain"] is True


def auditor_client(django_user_model, username="auditor", **extra) -> APIClient:
    """A client of a staff user with the goat.audit_game permission."""
    from django.contrib.auth.models import Permission

    user = django_user_model.objects.create_user(username=username, password="x" * 12, is_staff=True, **extra)
    user.user_permissions.add(Permission.objects.get(codename="audit_game"))
    client = APIClient()
    client.force_authenticate(user)
    client.user = user
    return client


def test_replay_of_an_ended_game(players):
    gid = finished_game(players)
    game = Game.objects.get(pk=gid)
    client = players[3][1]

    last = client.get(f"/api/games/{gid}/replay/").json()
    assert last["version"] == game.version and last["status"] == "finished"
    assert last["result"] == game.result and last["server_seed"] == game.server_seed

    dealt = GameEvent.objects.filter(game=game, type="round_dealt").order_by("seq").first()
    after_deal = client.get(f"/api/games/{gid}/replay/?at={dealt.seq}").json()
    assert after_deal["version"] == dealt.seq and after_deal["status"] == "running"
    assert [sorted(h) for h in after_deal["hands"]] == [sorted(h) for h in dealt.data["hands"]]
    assert len(after_deal["bazaar_tiles"]) == len(dealt.data["bazaar"])
    for bad in ("0", str(game.version + 1), "x", "-3"):
        assert_problem(client.get(f"/api/games/{gid}/replay/?at={bad}"), 400, "invalid")


def test_verify_of_an_ended_game(players):
    gid = finished_game(players, ruleset="goat-gamesburg", seats=3)

    response = players[3][1].get(f"/api/games/{gid}/verify/")

    assert response.status_code == 200
    assert response.json() == {"hash_chain": True, "deals": True, "replay": True, "detail": "all checks passed",
                               "seq": None}


def test_schema_describes_every_games_endpoint(api_client):
    schema = api_client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()

    for path, method in [
        ("/api/games/", "get"), ("/api/games/", "post"), ("/api/games/{game_id}/", "get"),
        ("/api/games/{game_id}/join/", "post"), ("/api/games/{game_id}/moves/", "post"),
        ("/api/games/{game_id}/resign/", "post"), ("/api/games/{game_id}/events/", "get"),
        ("/api/games/{game_id}/scoresheet/", "get"), ("/api/games/{game_id}/replay/", "get"),
        ("/api/games/{game_id}/verify/", "get"),
    ]:
        operation = schema["paths"][path][method]
        assert "200" in operation["responses"] or "201" in operation["responses"]
        assert "application/problem+json" in operation["responses"]["401"]["content"]
    moves = schema["paths"]["/api/games/{game_id}/moves/"]["post"]
    examples = moves["responses"]["422"]["content"]["application/problem+json"]["examples"].values()
    codes = {example["value"]["code"] for example in examples}
    assert {"not_your_turn", "game_not_running", "tile_not_in_hand", "tile_does_not_fit", "end_required",
            "must_lead_with"} <= codes


@pytest.mark.django_db
def test_an_auditor_reading_a_running_game_unredacted_is_recorded(django_user_model):
    """Who looked: auditors' reads of a running game's hidden information through the API are logged."""
    from goat.games.models import HiddenInfoView

    a = django_user_model.objects.create_user(username="rec-a", password="x")
    b = django_user_model.objects.create_user(username="rec-b", password="x")
    game = services.game_create(player=a, ruleset="goat-classic", seats=2).game
    services.game_join(game_id=game.pk, player=b)
    client = auditor_client(django_user_model, username="rec-staff")
    staff = client.user
    events = client.get(f"/api/games/{game.pk}/events/").json()["events"]
    dealt = next(e for e in events if e["type"] == "round_dealt")
    assert all(isinstance(h, list) for h in dealt["data"]["hands"])  # auditors see the hands
    assert client.get(f"/api/games/{game.pk}/replay/").status_code == 200
    seen = list(HiddenInfoView.objects.filter(user=staff, game=game).values_list("what", flat=True))
    assert sorted(seen) == ["api_events", "api_replay"]
    player = APIClient()
    player.force_authenticate(a)
    player.get(f"/api/games/{game.pk}/events/")
    assert HiddenInfoView.objects.filter(user=a).count() == 0


@pytest.mark.parametrize("superuser", [False, True])
def test_an_auditor_who_holds_a_seat_sees_what_any_player_sees(django_user_model, superuser):
    """docs/api.md: an auditor (a superuser too) seated at a running game sees no other hand."""
    from goat.games.models import HiddenInfoView

    seated = auditor_client(django_user_model, username="judge-player", is_superuser=superuser)
    b = django_user_model.objects.create_user(username="rec-b", password="x")
    game = services.game_create(player=seated.user, ruleset="goat-classic", seats=2).game
    services.game_join(game_id=game.pk, player=b)

    events = seated.get(f"/api/games/{game.pk}/events/").json()["events"]

    dealt = next(e for e in events if e["type"] == "round_dealt")
    assert isinstance(dealt["data"]["hands"][0], list) and dealt["data"]["hands"][1] == 7
    assert isinstance(dealt["data"]["bazaar"], int)
    assert_problem(seated.get(f"/api/games/{game.pk}/replay/"), 409, "game_not_ended")
    assert_problem(seated.get(f"/api/games/{game.pk}/verify/"), 409, "game_not_ended")
    assert not HiddenInfoView.objects.filter(user=seated.user).exists()


def test_a_move_runs_the_token_lookup_the_load_and_the_append_and_no_permission_query(players):
    """The move's statements, by design (docs/architecture.md "optimistic append"): the token lookup, the
    game load and the append. A seated player's redaction needs no permission query
    (selectors.sees_everything decides by the seat first), and the seats of a running game are known."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    gid = started_game(players)
    for _ in range(2):  # the second move: the seats of the running game are known by then
        state = state_of(gid)
        seat = state.turn
        tile, end = engine.legal_moves(state, seat)[0]
        with CaptureQueriesContext(connection) as queries:
            response = move(players[seat][1], gid, tile_str(tile), end, HTTP_IF_MATCH=f'"{state.version}"')
        assert response.status_code == 201, response.content
    statements = [q["sql"] for q in queries.captured_queries if not q["sql"].startswith(("SAVEPOINT", "RELEASE"))]
    assert not any("auth_permission" in sql for sql in statements), statements
    # On PostgreSQL the three are goat's fixed statements on psycopg's own cursor (goat.web.db.fixed_sql.fixed_cursor),
    # which Django's capture does not see: no ORM statement is left. On SQLite all run through Django's
    # cursor, and the append is an UPDATE of the head and an INSERT.
    assert len(statements) == (0 if connection.vendor == "postgresql" else 4), statements


def test_a_join_answers_with_what_it_committed_and_reads_the_callers_seat_no_more(players):
    """The joiner's view comes from the join's own result (the row, the state and the seat it took): no
    statement reads the caller's seat again. The answer is the seat's view as GET shows it: the last
    joiner of a 3-seat game sees their dealt hand."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    view = create_game(players[0][1], seats=3)
    assert players[1][1].post(f"/api/games/{view['id']}/join/", {}, format="json").status_code == 200
    with CaptureQueriesContext(connection) as queries:
        response = players[2][1].post(f"/api/games/{view['id']}/join/", {}, format="json")
    assert response.status_code == 200, response.content
    statements = [q["sql"] for q in queries.captured_queries]
    assert not any('FROM "goat_seat" INNER JOIN "goat_game"' in sql for sql in statements), statements
    clock = ("server_time", "remaining_ms")
    body = {k: v for k, v in response.json().items() if k not in clock}
    assert body == {k: v for k, v in players[2][1].get(f"/api/games/{view['id']}/").json().items() if k not in clock}
    assert body["status"] == "running" and body["your_seat"] == 2 and len(body["hand"]) == 7


def test_a_create_and_a_rematch_answer_with_what_they_committed_and_read_no_seat_again(players):
    """The creator's view (seat 0) comes from what the create committed, and a rematch's from the offer
    it made or found, with the caller's seat read in the same query as the offer: no statement reads
    the caller's seat on its own. Each answer is what GET then shows the caller."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    alone = 'FROM "goat_seat" INNER JOIN "goat_game"'  # goat.games.viewer.viewer_seat's read
    clock = ("server_time", "remaining_ms")

    def answered(client, path, expected):
        with CaptureQueriesContext(connection) as queries:
            response = client.post(path, {"ruleset": "goat-classic", "seats": 3} if path == "/api/games/" else {},
                                   format="json")
        assert response.status_code == expected, response.content
        assert not any(alone in q["sql"] for q in queries.captured_queries), queries.captured_queries
        body = {k: v for k, v in response.json().items() if k not in clock}
        assert body == {k: v for k, v in client.get(f"/api/games/{body['id']}/").json().items() if k not in clock}
        return body

    created = answered(players[0][1], "/api/games/", 201)
    assert created["your_seat"] == 0 and created["status"] == "waiting"
    gid = started_game(players)
    assert players[0][1].post(f"/api/games/{gid}/resign/", {}, format="json").status_code == 200
    offered = answered(players[1][1], f"/api/games/{gid}/rematch/", 201)
    assert offered["your_seat"] == 0
    found = answered(players[0][1], f"/api/games/{gid}/rematch/", 200)
    assert found["id"] == offered["id"] and found["your_seat"] is None  # not joined yet
    assert players[0][1].post(f"/api/games/{offered['id']}/join/", {}, format="json").status_code == 200
    again = answered(players[0][1], f"/api/games/{gid}/rematch/", 200)
    assert again["id"] == offered["id"] and again["your_seat"] == 1 and again["status"] == "running"
    assert len(again["hand"]) == 7
