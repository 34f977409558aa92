"""Limits on games against the computer (issue 35 item 5): a player holds a seat in at most
GOAT_COMPUTER_GAMES_PER_PLAYER open games with a computer (409 ``too_many_computer_games``), and an
unclocked game with a computer in which nothing happens for GOAT_COMPUTER_GAME_IDLE_HOURS ends by the
engine's timeout of the player to move, unrated."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from apitest import assert_problem, token_client
from computer_play import queue_catch
from goat import engine
from goat.games import eventstore, services, tasks
from goat.games.models import Game, GameStatus

pytestmark = pytest.mark.django_db

PASSWORD = "x" * 12


@pytest.fixture
def queued(monkeypatch):
    return queue_catch(monkeypatch)


@pytest.fixture
def hana(django_user_model):
    return django_user_model.objects.create_user(username="hana", password=PASSWORD)


def create(client, **body):
    return client.post("/api/games/", {"ruleset": "goat-classic", "seats": 2, "computer_players": 1,
                                       "options": {"move_time": 0}, **body}, format="json")


def test_a_player_holds_at_most_the_limit_of_open_computer_games(hana, queued, settings, django_user_model):
    settings.GOAT_COMPUTER_GAMES_PER_PLAYER = 3
    client = token_client(hana)
    assert [create(client).status_code for _ in range(3)] == [201] * 3
    body = assert_problem(create(client), 409, "too_many_computer_games")
    assert "3" in body["detail"]
    assert_problem(create(client, seats=4, computer_players=2), 409, "too_many_computer_games")  # a waiting one too
    assert create(client, computer_players=0).status_code == 201  # games with people only are not counted
    other = token_client(django_user_model.objects.create_user(username="olga", password=PASSWORD))
    assert create(other).status_code == 201  # the limit is each player's

    first = Game.objects.filter(computers__gt=0, seat_set__player=hana).order_by("id").first()
    services.game_resign(game_id=first.pk, player=hana)  # an ended game frees its place
    assert create(client).status_code == 201


def test_joining_a_game_with_a_computer_counts_too(hana, queued, settings, django_user_model):
    settings.GOAT_COMPUTER_GAMES_PER_PLAYER = 1
    olga = django_user_model.objects.create_user(username="olga", password=PASSWORD)
    waiting = create(token_client(olga), seats=3, computer_players=1).json()
    assert create(token_client(hana)).status_code == 201
    joined = token_client(hana).post(f"/api/games/{waiting['id']}/join/", {}, format="json")
    assert_problem(joined, 409, "too_many_computer_games")


def _idle_game(player, hours_ago: float, options=None) -> Game:
    game = services.game_create(player=player, ruleset="goat-classic", seats=2, computer_players=1,
                                options=options or {"move_time": 0}).game
    Game.objects.filter(pk=game.pk).update(updated_at=timezone.now() - timedelta(hours=hours_ago))
    return Game.objects.get(pk=game.pk)


def test_a_move_after_the_idle_read_wins_over_the_idle_end(hana, queued):
    game = _idle_game(hana, 48)
    cutoff = timezone.now() - timedelta(hours=24)
    Game.objects.filter(pk=game.pk).update(updated_at=timezone.now())  # a command landed meanwhile
    assert services.game_end_idle(game_id=game.pk, idle_before=cutoff) is False
    game.refresh_from_db()
    assert game.status == GameStatus.RUNNING


def test_an_idle_unclocked_computer_game_is_cancelled_by_the_engine_unrated(hana, queued, settings):
    settings.GOAT_COMPUTER_GAME_IDLE_HOURS = 24
    idle = _idle_game(hana, 25)
    fresh = _idle_game(hana, 1)
    clocked = _idle_game(hana, 25, options={"move_time": 30})
    people = services.game_create(player=hana, ruleset="goat-classic", seats=2, options={"move_time": 0}).game
    services.game_join(game_id=people.pk, player=type(hana).objects.create_user(username="olga", password=PASSWORD))
    Game.objects.filter(pk=people.pk).update(updated_at=timezone.now() - timedelta(hours=25))

    assert tasks.games_end_idle() == 1
    assert tasks.games_end_idle() == 0  # idempotent

    idle.refresh_from_db()
    assert idle.status == GameStatus.CANCELLED and idle.result is None  # no result: unrated
    stored = eventstore.events_load(game_id=idle.pk, after=0)
    assert (stored[-2].type, stored[-2].data) == ("game_cancelled", {"reason": "idle"})
    assert stored[-1].type == "seed_revealed"
    log = [{"seq": e.seq, "type": e.type, "seat": e.seat, "data": e.data} for e in stored]
    assert engine.verify_log(log)["valid"] is True  # the engine's own path: the log replays
    for other in (fresh, clocked, people):  # active, clocked, or without a computer: left alone
        other.refresh_from_db()
        assert other.status == GameStatus.RUNNING
    assert create(token_client(hana)).status_code == 201  # and the cancelled game frees its place


def test_the_play_pages_session_meets_the_same_limit(hana, queued, settings):
    """The play page creates games through the API with the session (request.user is Django's lazy user)."""
    from django.test import Client

    settings.GOAT_COMPUTER_GAMES_PER_PLAYER = 1
    browser = Client()
    browser.force_login(hana)
    browser.get("/play/")
    csrf = {"HTTP_X_CSRFTOKEN": browser.cookies["csrftoken"].value}
    body = {"ruleset": "goat-classic", "seats": 2, "computer_players": 1, "options": {"move_time": 0}}
    first = browser.post("/api/games/", body, content_type="application/json", **csrf)
    second = browser.post("/api/games/", body, content_type="application/json", **csrf)
    assert first.status_code == 201
    assert_problem(second, 409, "too_many_computer_games")
