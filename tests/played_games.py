"""Games played through the services with random legal moves, for tests that need one part-way."""

from __future__ import annotations

import random

from goat import engine
from goat.engine.tiles import tile_str
from goat.games import eventstore, services


def played_game(users, moves: int, *, seed: int):
    """A goat-classic game of ``users[0]`` and ``users[1]`` after up to ``moves`` random legal moves."""
    game = services.game_create(player=users[0], ruleset="goat-classic", seats=2)
    services.game_join(game_id=game.pk, player=users[1])
    rng = random.Random(seed)
    for _ in range(moves):
        game.refresh_from_db()
        state = eventstore.state_load(game)
        if state.turn is None:
            break
        tile, end = rng.choice(engine.legal_moves(state))
        services.game_play_tile(game_id=game.pk, player=users[state.turn], tile=tile_str(tile), end=end)
    game.refresh_from_db()
    return game
