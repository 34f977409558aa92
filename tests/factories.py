"""Shared test factories (importable as ``factories``: tests/ is on the path): players, a started game,
a game played part-way or to its end, and a tournament, all made through the services (the real write
path), so a test reads like the product.

What a command does on commit (live messages, the projections of an ended game, a computer's turn)
runs as the commit would run it, in a test's own transaction too: each command is made inside
``committed()`` (Django's captured on-commit callbacks, executed as the command returns). A test that
needs only that on-commit work therefore needs no ``transaction=True``.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.test import TestCase
from django.utils import timezone

from goat import engine
from goat.engine.tiles import tile_str
from goat.games import eventstore, services
from goat.games.models import Game

#: short games without a clock
FAST = {"limit": 25, "move_time": 0}


def committed() -> AbstractContextManager:
    """Run the on-commit work of what happens inside as it returns (inside a test's transaction, where
    nothing commits; outside one, on-commit work runs at once anyway and nothing is captured)."""
    return TestCase.captureOnCommitCallbacks(execute=True)


@contextmanager
def eager_tasks(settings) -> Iterator[None]:
    """Queued Celery tasks run in-process while inside (goat.celery reads the CELERY_* settings; the
    app's conf is set too, and restored after)."""
    from celery import current_app

    settings.CELERY_TASK_ALWAYS_EAGER = True
    settings.CELERY_TASK_EAGER_PROPAGATES = True
    conf = current_app.conf
    saved = conf.task_always_eager, conf.task_eager_propagates
    conf.task_always_eager, conf.task_eager_propagates = True, True
    try:
        yield
    finally:
        conf.task_always_eager, conf.task_eager_propagates = saved


def analysis_queue_catch(monkeypatch) -> list[int]:
    """From now on the analysis jobs a commit queues (goat.games.analysis) land in the returned list of
    analysis ids instead of the broker."""
    from goat.games import analysis

    sent: list[int] = []
    monkeypatch.setattr(analysis, "_queue", lambda analysis_id: lambda: sent.append(analysis_id))
    return sent


def make_players(*names: str, password: str = "x" * 12) -> list:
    """One user per name."""
    User = get_user_model()
    return [User.objects.create_user(username=name, password=password) for name in names]


def start_game(players: Sequence, *, ruleset: str = "goat-classic", options: dict | None = None,
               seats: int | None = None) -> Game:
    """A game created by ``players[0]`` and joined by the others (it starts when the last seat fills)."""
    seats = len(players) if seats is None else seats
    with committed():
        game = services.game_create(player=players[0], ruleset=ruleset, seats=seats, options=options).game
        for player in players[1:seats]:
            services.game_join(game_id=game.pk, player=player)
    game.refresh_from_db()
    return game


def play(game: Game, players: Sequence, *, seed: int = 0, rng: random.Random | None = None,
         max_moves: int | None = None) -> Game:
    """Random legal moves by whoever is to move until the game ends (or ``max_moves`` were made)."""
    rng = rng if rng is not None else random.Random(seed)
    moves = 0
    while True:
        game.refresh_from_db()
        if game.ended or (max_moves is not None and moves >= max_moves):
            return game
        state = eventstore.state_load(game)
        tile, end = rng.choice(engine.legal_moves(state))
        with committed():
            services.game_play_tile(game_id=game.pk, player=players[state.turn], tile=tile_str(tile), end=end)
        moves += 1


def finished_game(players: Sequence, *, ruleset: str = "goat-classic", options: dict | None = None,
                  seed: int = 0) -> Game:
    """A game of ``players`` played to its end with random legal moves."""
    return play(start_game(players, ruleset=ruleset, options=options), players, seed=seed)


def make_tournament(*, name: str = "Friday swiss", players: Sequence = (), start: bool = True,
                    starts_in: timedelta | None = None, starts_at=None, rounds: int = 1, director=None, **fields):
    """A swiss of two-seat tables of short games, its ``players`` registered, started unless ``start``
    is false (or it starts in ``starts_in``, or at ``starts_at``); ``fields`` override the settings."""
    from tournaments import services as tournaments

    if director is None:
        director, _ = get_user_model().objects.get_or_create(username="director", defaults={"is_staff": True})
    if starts_at is None:
        starts_at = timezone.now() + (starts_in if starts_in is not None else timedelta(seconds=-1))
    settings = {"ruleset": "goat-classic", "options": dict(FAST), "format": "swiss", "rounds": rounds,
                "table_size": 2, "max_players": 32, "entry_fee": 0, "duration_minutes": 0, **fields}
    with committed():
        t = tournaments.tournament_create(created_by=director, name=name, starts_at=starts_at, **settings)
        for player in players:
            tournaments.tournament_register(tournament_id=t.pk, player=player)
        if start:
            tournaments.tournaments_start_due()
    t.refresh_from_db()
    return t
