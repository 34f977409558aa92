"""Fixtures of the site's page tests: players, finished and running games, tournaments."""

from __future__ import annotations

import factories
import pytest

from goat.games import services as games
from goat.games.computer import stand_ins_play

FAST = factories.FAST


@pytest.fixture
def players(db):
    """``players("a", "b")``: one user per name (the shared factory)."""
    return factories.make_players


@pytest.fixture
def finished_game():
    """``finished_game(a, b, seed=...)``: a short goat-classic game of ``a`` and ``b`` played to its end."""

    def make(*seated, seed: int = 1, ruleset: str = "goat-classic"):
        game = games.game_create(player=seated[0], ruleset=ruleset, seats=len(seated), options=dict(FAST)).game
        for player in seated[1:]:
            games.game_join(game_id=game.pk, player=player)
        stand_ins_play(everyone=True, game_ids=[game.pk], until_done=True, seed=seed)
        game.refresh_from_db()
        assert game.ended
        return game

    return make


@pytest.fixture
def tournament(db):
    """``tournament(name=..., players=[...], start=True)``: a swiss of two-seat tables (the shared factory)."""
    return factories.make_tournament
