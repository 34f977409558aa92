"""A stalled player times out within deadline + sweep interval, with a real worker and beat."""

from __future__ import annotations

import time

from goat.games import services
from goat.games.models import Game, GameEvent


def _stalled_game(django_user_model, names, move_time):
    players = [django_user_model.objects.create_user(username=n, password="x") for n in names]
    game = services.game_create(player=players[0], ruleset="goat-classic", seats=2, options={"move_time": move_time})
    services.game_join(game_id=game.pk, player=players[1])
    game.refresh_from_db()
    return game


def test_stalled_player_times_out_by_the_countdown(live_celery, django_user_model, wait_for):
    live_celery(beat=False)  # no sweep: the countdown queued on commit does it alone
    game = _stalled_game(django_user_model, ["stall-a", "stall-b"], move_time=2)
    offender = game.turn
    started = time.monotonic()
    wait_for(lambda: Game.objects.get(pk=game.pk).status == "interrupted", timeout=2 + 15, what="the timeout")
    elapsed = time.monotonic() - started
    game.refresh_from_db()
    assert game.result["reason"] == "timeout" and game.result["goats"] == [offender]
    assert GameEvent.objects.filter(game=game, type="timed_out").count() == 1
    assert elapsed >= 1.5  # not before the deadline


def test_sweep_times_out_a_game_whose_countdown_was_lost(live_celery, django_user_model, wait_for):
    from goat.celery import app

    game = _stalled_game(django_user_model, ["lost-a", "lost-b"], move_time=1)
    app.control.purge()  # the countdown task is lost (as with a broker restart)
    live_celery(beat=True)  # the beat's sweep runs every second
    wait_for(lambda: Game.objects.get(pk=game.pk).status == "interrupted", timeout=1 + 1 + 20, what="the sweep")
    assert GameEvent.objects.filter(game=game, type="timed_out").count() == 1
    assert GameEvent.objects.filter(game=game).order_by("-seq").first().type == "seed_revealed"
