"""Whole games played through goat.games.services with random legal moves (for the ratings tests)."""

from __future__ import annotations

import random

from goat import engine
from goat.games import services
from goat.games.eventstore import state_load
from goat.games.models import Game


def start_game(players, *, ruleset="goat-classic", options=None) -> Game:
    game = services.game_create(player=players[0], ruleset=ruleset, seats=len(players), options=options)
    for player in players[1:]:
        services.game_join(game_id=game.pk, player=player)
    game.refresh_from_db()
    return game


def play_moves(game: Game, players, *, rng: random.Random, max_moves: int | None = None) -> Game:
    """Play random legal moves until the game ends (or ``max_moves`` were made)."""
    moves = 0
    while True:
        game.refresh_from_db()
        if game.ended or (max_moves is not None and moves >= max_moves):
            return game
        state = state_load(game)
        seat = state.turn
        legal = engine.legal_moves(state)
        tile, end = rng.choice(legal)
        services.game_play_tile(game_id=game.pk, player=players[seat], tile=f"{tile[0]}-{tile[1]}", end=end)
        moves += 1


def play_game(players, *, ruleset="goat-classic", options=None, seed=0, resign_after=None, resigner=None) -> Game:
    """A whole game with random legal moves; with ``resign_after`` the ``resigner`` (default: the
    player to move) resigns after that many moves."""
    rng = random.Random(seed)
    game = start_game(players, ruleset=ruleset, options=options)
    game = play_moves(game, players, rng=rng, max_moves=resign_after)
    if not game.ended:
        quitter = resigner if resigner is not None else players[state_load(game).turn]
        services.game_resign(game_id=game.pk, player=quitter)
    game.refresh_from_db()
    return game
