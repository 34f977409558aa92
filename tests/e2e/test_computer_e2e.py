"""Computer players with a real worker on Redis (issue 27: "a worker that is down delays computer
moves and loses none"; computers obey the clock): the computer's move is a task on the broker, it
waits while no worker runs and is played when one comes back; a lost task is covered by the clock;
a whole game against a computer ends and verifies."""

from __future__ import annotations

import time

import pytest

from goat import engine
from goat.engine.tiles import tile_str
from goat.games import services, verification
from goat.games.eventstore import state_load
from goat.games.models import Game, GameEvent

pytestmark = [pytest.mark.realprocess, pytest.mark.database]  # a real Celery worker, on PostgreSQL + Redis


def _computer_to_move(user, *, move_time: int) -> Game:
    """A two-seat domino-3rounds game against one computer (seat 1) where the computer is to move."""
    for _ in range(40):
        game = services.game_create(player=user, ruleset="domino-3rounds", seats=2, computer_players=1,
                                    options={"move_time": move_time}).game
        game.refresh_from_db()
        if game.turn == 0:
            tile, end = engine.legal_moves(state_load(game), 0)[0]
            services.game_play_tile(game_id=game.pk, player=user, tile=tile_str(tile), end=end)
            game.refresh_from_db()
        if game.turn == 1:
            return game
        if not game.ended:  # frees its place (GOAT_COMPUTER_GAMES_PER_PLAYER)
            services.game_resign(game_id=game.pk, player=user)
    raise AssertionError("the computer never got the turn")


def test_a_computer_move_waits_for_a_worker_and_is_played_when_one_comes(live_celery, django_user_model,
                                                                        wait_for, settings):
    settings.GOAT_COMPUTER_THINK_SECONDS = 0
    user = django_user_model.objects.create_user(username="comp-a", password="x")
    game = _computer_to_move(user, move_time=0)  # no clock: only the task can move the computer
    time.sleep(1.5)
    assert Game.objects.get(pk=game.pk).version == game.version  # no worker: nothing moved, nothing lost
    live_celery(beat=False)
    wait_for(lambda: Game.objects.get(pk=game.pk).version > game.version, timeout=30, what="the computer's move")
    played = GameEvent.objects.get(game=game, seq=game.version + 1)
    assert (played.type, played.seat) == ("tile_played", 1)


def test_a_lost_computer_move_is_timed_out_by_the_clock(live_celery, django_user_model, wait_for, settings):
    from goat.celery import app

    settings.GOAT_COMPUTER_THINK_SECONDS = 0
    user = django_user_model.objects.create_user(username="comp-b", password="x")
    game = _computer_to_move(user, move_time=2)
    assert app.control.purge() >= 1  # the computer's move is lost with the queue
    live_celery(beat=True)
    wait_for(lambda: Game.objects.get(pk=game.pk).status == "interrupted", timeout=2 + 20, what="the timeout")
    ended = Game.objects.get(pk=game.pk)
    assert ended.result["reason"] == "timeout" and ended.result["goats"] == [1]


def test_a_whole_game_against_a_computer_on_redis(live_celery, django_user_model, wait_for, settings):
    settings.GOAT_COMPUTER_THINK_SECONDS = 0
    live_celery(beat=True)
    user = django_user_model.objects.create_user(username="comp-c", password="x")
    game = services.game_create(player=user, ruleset="domino-3rounds", seats=2, computer_players=1,
                                options={"move_time": 60}).game
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        game.refresh_from_db()
        if game.ended:
            break
        if game.turn == 0:
            tile, end = engine.legal_moves(state_load(game), 0)[0]
            services.game_play_tile(game_id=game.pk, player=user, tile=tile_str(tile), end=end,
                                    expected_version=game.version)
        else:
            time.sleep(0.02)
    game.refresh_from_db()
    assert game.status == "finished" and game.result is not None
    assert verification.game_verify(game=game).ok
