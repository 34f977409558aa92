"""Bots (docs/api.md "Bots"): the upgrade, the mark on profiles, seats and lists, challenges only,
the rulesets a bot plays, its rate limit, and its stream's refusals and messages."""

from __future__ import annotations

import asyncio
import json

import pytest
from django.test import Client, RequestFactory
from factories import committed, finished_game, make_players
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from apitest import assert_problem, token_client
from challenges import streams
from challenges.models import Challenge
from goat.games import services as games
from goat.games.models import Game
from goat.games.table import table_model

pytestmark = pytest.mark.django_db

FAST = {"limit": 25, "move_time": 0}


@pytest.fixture
def people():
    return make_players("masha", "goatbot", "petya")


def upgrade(user, **body):
    return token_client(user).post("/api/bot/account/upgrade/", body, format="json")


def test_an_account_without_games_becomes_a_bot_for_good(people):
    masha, bot, petya = people
    answer = upgrade(bot, rulesets=["goat-classic"])
    assert answer.status_code == 200, answer.content
    assert answer.json()["username"] == "goatbot" and answer.json()["bot"] is True
    assert answer.json()["rulesets"] == ["goat-classic"]
    assert token_client(masha).get("/api/players/goatbot/").json()["bot"] is True
    assert token_client(bot).get("/api/players/me/").json()["bot"] is True
    assert token_client(masha).get("/api/players/masha/").json()["bot"] is False
    again = upgrade(bot)  # a repeat: still a bot, its rulesets kept
    assert again.status_code == 200 and again.json()["rulesets"] == ["goat-classic"]
    assert "bot" in Client().get("/players/goatbot/").content.decode()
    finished_game([masha, petya], options=FAST)
    assert_problem(upgrade(masha), 409, "account_has_games")
    assert_problem(upgrade(petya, rulesets=["chess"]), 400, "invalid")
    assert_problem(APIClient().post("/api/bot/account/upgrade/", {}, format="json"), 401, "not_authenticated")


def test_a_bot_plays_only_through_challenges(people):
    masha, bot, _ = people
    upgrade(bot)
    assert_problem(token_client(bot).post("/api/games/", {"ruleset": "goat-classic", "seats": 2}, format="json"),
                   403, "bot_account")
    game = games.game_create(player=masha, ruleset="goat-classic", seats=2, options=FAST).game
    assert_problem(token_client(bot).post(f"/api/games/{game.pk}/join/", {}, format="json"), 403, "bot_account")
    assert_problem(token_client(bot).post("/api/games/", {"ruleset": "goat-classic", "seats": 2,
                                                         "computer_players": 1}, format="json"), 403, "bot_account")


def test_a_bot_is_challenged_for_its_rulesets_only_and_marked_everywhere(people):
    masha, bot, _ = people
    upgrade(bot, rulesets=["goat-classic"])
    refused = token_client(masha).post("/api/challenges/", {"opponents": ["goatbot"], "ruleset": "domino-3rounds"},
                                       format="json")
    assert_problem(refused, 422, "bot_declines_ruleset")
    assert Challenge.objects.count() == 0
    with committed():
        body = token_client(masha).post("/api/challenges/", {"opponents": ["goatbot"], "ruleset": "goat-classic",
                                                             "options": FAST, "seating": "fixed"},
                                        format="json").json()
    assert body["opponents"][0]["bot"] is True and body["challenger_bot"] is False
    with committed():
        game_id = token_client(bot).post(f"/api/challenges/{body['id']}/accept/", {}, format="json").json()["game"]
    view = token_client(masha).get(f"/api/games/{game_id}/").json()
    assert [(s["player"], s["bot"]) for s in view["seats"]] == [("masha", False), ("goatbot", True)]
    listed = token_client(masha).get("/api/players/me/games/").json()["results"][0]
    assert [(s["player"], s["bot"]) for s in listed["seats"]] == [("masha", False), ("goatbot", True)]
    assert Game.objects.get(pk=game_id).bots == 0b10
    assert 'class="badge bot"' in Client().get("/players/masha/").content.decode()
    game = Game.objects.get(pk=game_id)
    seats = table_model(game=game, user=masha)["seats"]  # the play page's and the game page's table
    assert [(s["player"], s["bot"], s["tags"]) for s in seats] == [("masha", False, "you"), ("goatbot", True, "bot")]


def test_a_bots_posts_on_challenges_are_rate_limited(people, settings):
    masha, bot, petya = people
    upgrade(bot)
    from rest_framework import throttling

    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "bot_challenges": "2/min"}
    saved = throttling.SimpleRateThrottle.THROTTLE_RATES
    throttling.SimpleRateThrottle.THROTTLE_RATES = rates
    try:
        answers = [token_client(bot).post("/api/challenges/", {"opponents": ["masha"], "ruleset": "goat-classic"},
                                          format="json").status_code for _ in range(3)]
        assert answers == [201, 201, 429]
        people_answers = [token_client(petya).post("/api/challenges/", {"opponents": ["masha"],
                                                                        "ruleset": "goat-classic"},
                                                   format="json").status_code for _ in range(3)]
        assert people_answers == [201, 201, 201]
    finally:
        throttling.SimpleRateThrottle.THROTTLE_RATES = saved


def _stream_request(user):
    token, _ = Token.objects.get_or_create(user=user)
    return RequestFactory().get("/api/bot/stream/events/", HTTP_AUTHORIZATION=f"Token {token.key}")


@pytest.mark.django_db(transaction=True)
def test_the_bot_stream_is_for_bots_and_starts_with_what_waits(people):
    masha, bot, _ = people
    refused = asyncio.run(streams.bot_stream(_stream_request(masha)))
    assert refused.status_code == 403 and json.loads(refused.content)["code"] == "not_a_bot"
    request = RequestFactory().get("/api/bot/stream/events/")

    async def nobody():
        from django.contrib.auth.models import AnonymousUser

        return AnonymousUser()

    request.auser = nobody
    anonymous = asyncio.run(streams.bot_stream(request))
    assert anonymous.status_code == 401
    upgrade(bot)
    token_client(masha).post("/api/challenges/", {"opponents": ["goatbot"], "ruleset": "goat-classic"}, format="json")
    hello = [streams.bot_message(item) for item in streams._hello(bot)]
    assert [(kind, data["event"], data["challenge"]["challenger"]) for kind, data in hello] == \
        [("challenge", "created", "masha")]
    assert streams.bot_message({"kind": "game_started", "data": {"game": 5}}) == ("game_start", {"game": 5})
    assert streams.bot_message({"kind": "game_ended", "data": {"game": 5, "result": {}}}) == \
        ("game_finish", {"game": 5, "result": {}})
    assert streams.bot_message({"kind": "your_turn", "data": {"game": 5}}) is None
    response = asyncio.run(streams.bot_stream(_stream_request(bot)))
    assert response.status_code == 200 and response["Content-Type"] == "application/x-ndjson"

    async def first_line():
        iterator = response.streaming_content.__aiter__()
        try:
            return await asyncio.wait_for(iterator.__anext__(), 10)
        finally:
            await iterator.aclose()

    line = json.loads(asyncio.run(first_line()))
    assert line["kind"] == "challenge" and line["event"] == "created" and line["challenge"]["code"] is None


def test_leaderboards_mark_bots(people, client):
    from django.db import transaction

    from ratings import leaderboards

    masha, bot, _ = people
    upgrade(bot)
    with transaction.atomic():
        for points, user in ((40, bot), (30, masha)):
            leaderboards._bump_boards(["ratings:all:*"], [(user.pk, user.username, points, False)])
    rows = Client().get("/api/leaderboards/ratings/").json()["results"]
    assert [(r["player"], r["bot"]) for r in rows] == [("goatbot", True), ("masha", False)]
    assert 'class="badge bot"' in Client().get("/leaderboards/").content.decode()


def test_a_list_items_errors_are_a_flat_list_of_messages(people):
    masha, bot, _ = people
    body = assert_problem(upgrade(bot, rulesets=[3]), 400, "invalid")
    assert body["errors"] == {"rulesets": ["item 1: Must be a string."]}
    body = assert_problem(token_client(masha).post("/api/challenges/", {"opponents": ["petya", 7],
                                                                        "ruleset": "goat-classic"}, format="json"),
                          400, "invalid")
    assert body["errors"] == {"opponents": ["item 2: Must be a string."]}
