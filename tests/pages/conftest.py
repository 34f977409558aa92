"""Fixtures of the site's page tests: players, finished and running games, tournaments."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from goat.games import services as games
from goat.games.bots import bots_play

FAST = {"limit": 25, "move_time": 0}


@pytest.fixture
def players(django_user_model):
    def make(*names: str):
        return [django_user_model.objects.create_user(username=n, password="x") for n in names]

    return make


@pytest.fixture
def finished_game():
    """``finished_game(a, b, seed=...)``: a short goat-classic game of ``a`` and ``b`` played to its end."""

    def make(*seated, seed: int = 1, ruleset: str = "goat-classic"):
        game = games.game_create(player=seated[0], ruleset=ruleset, seats=len(seated), options=dict(FAST))
        for player in seated[1:]:
            games.game_join(game_id=game.pk, player=player)
        bots_play(everyone=True, game_ids=[game.pk], until_done=True, seed=seed)
        game.refresh_from_db()
        assert game.ended
        return game

    return make


@pytest.fixture
def tournament(django_user_model):
    """``tournament(name=..., players=[...], start=True)``: a swiss of two-seat tables."""
    from tournaments import services

    def make(*, name: str = "Friday swiss", players=(), start: bool = True, starts_in: timedelta | None = None,
             rounds: int = 1):
        director, _ = django_user_model.objects.get_or_create(username="director", defaults={"is_staff": True})
        starts_at = timezone.now() + (starts_in if starts_in is not None else timedelta(seconds=-1))
        t = services.tournament_create(created_by=director, name=name, ruleset="goat-classic", options=dict(FAST),
                                       format="swiss", rounds=rounds, table_size=2, starts_at=starts_at,
                                       max_players=32, entry_fee=0, duration_minutes=0)
        for player in players:
            services.tournament_register(tournament_id=t.pk, player=player)
        if start:
            services.tournaments_start_due()
        t.refresh_from_db()
        return t

    return make
