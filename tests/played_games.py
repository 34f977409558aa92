"""Games played through the services with random legal moves, for tests that need one part-way."""

from __future__ import annotations

from factories import play, start_game


def played_game(users, moves: int, *, seed: int):
    """A goat-classic game of ``users[0]`` and ``users[1]`` after up to ``moves`` random legal moves."""
    return play(start_game(users[:2]), users, seed=seed, max_moves=moves)
