"""A stalled player is timed out by the one ticker (beat, every second) with a real worker and beat."""

from __future__ import annotations

import pytest

from goat.games import services
from goat.games.models import Game, GameEvent

pytestmark = [pytest.mark.realprocess, pytest.mark.database]  # a real Celery worker, on PostgreSQL + Redis


def _stalled_game(django_user_model, names, move_time):
    players = [django_user_model.objects.create_user(username=n, password="x") for n in names]
    game = services.game_create(player=players[0], ruleset="goat-classic", seats=2,
                                options={"move_time": move_time}).game
    services.game_join(game_id=game.pk, player=players[1])
    game.refresh_from_db()
    return game


def test_stalled_player_is_timed_out_by_the_ticker(live_celery, django_user_model, wait_for):
    live_celery(beat=True)
    game = _stalled_game(django_user_model, ["stall-a", "stall-b"], move_time=2)
    offender, deadline = game.turn, game.deadline
    wait_for(lambda: Game.objects.get(pk=game.pk).status == "interrupted", timeout=2 + 20, what="the timeout")
    game.refresh_from_db()
    assert game.result["reason"] == "timeout" and game.result["goats"] == [offender]
    timed_out = GameEvent.objects.get(game=game, type="timed_out")
    assert timed_out.at >= deadline  # never before the deadline


def test_no_message_is_queued_per_turn_and_a_late_ticker_still_times_out_once(live_celery, django_user_model,
                                                                              wait_for):
    from goat.celery import app

    game = _stalled_game(django_user_model, ["late-a", "late-b"], move_time=1)
    assert app.control.purge() == 0  # the turn queued nothing: the deadline is a column
    live_celery(beat=True)  # the ticker starts after the deadline has passed
    wait_for(lambda: Game.objects.get(pk=game.pk).status == "interrupted", timeout=1 + 1 + 20, what="the ticker")
    assert GameEvent.objects.filter(game=game, type="timed_out").count() == 1
    assert GameEvent.objects.filter(game=game).order_by("-seq").first().type == "seed_revealed"
