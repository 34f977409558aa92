"""Whole games played through goat.games.services with random legal moves (for the ratings tests):
the shared factories (tests/factories.py), and a game that ends by a resignation."""

from __future__ import annotations

import random

from factories import committed, play, start_game

from goat.games import services
from goat.games.eventstore import state_load
from goat.games.models import Game

__all__ = ["play_game", "play_moves", "start_game"]


def play_moves(game: Game, players, *, rng: random.Random, max_moves: int | None = None) -> Game:
    """Play random legal moves until the game ends (or ``max_moves`` were made)."""
    return play(game, players, rng=rng, max_moves=max_moves)


def play_game(players, *, ruleset="goat-classic", options=None, seed=0, resign_after=None, resigner=None) -> Game:
    """A whole game with random legal moves; with ``resign_after`` the ``resigner`` (default: the
    player to move) resigns after that many moves."""
    rng = random.Random(seed)
    game = start_game(players, ruleset=ruleset, options=options)
    game = play(game, players, rng=rng, max_moves=resign_after)
    if not game.ended:
        quitter = resigner if resigner is not None else players[state_load(game).turn]
        with committed():
            services.game_resign(game_id=game.pk, player=quitter)
    game.refresh_from_db()
    return game
