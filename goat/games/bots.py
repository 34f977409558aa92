"""Bots: random legal moves for chosen players, through goat.games.services (the real write path).

Used by ``manage.py play_bots``, the tournament tests, demos and load runs.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable

from goat import engine
from goat.engine.tiles import tile_str
from goat.games import selectors, services
from goat.games.models import Game, GameStatus, Seat
from goat.web.errors import ServiceError


def bot_games(*, prefix: str | None = "bot", everyone: bool = False, game_ids: Iterable[int] | None = None):
    """Waiting or running games with at least one bot seat."""
    games = Game.objects.open()
    if game_ids:
        games = games.filter(pk__in=list(game_ids))
    if not everyone:
        games = games.filter(seat_set__player__username__startswith=prefix)
    return games.distinct().order_by("id")


def bot_move(*, game_id: int, rng: random.Random, is_bot: Callable[[object], bool]) -> bool:
    """Play one random legal move in the game if a bot is to move. Returns whether a move was made."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None or game.status != GameStatus.RUNNING or game.turn is None:
        return False
    seat = Seat.objects.filter(game=game, seat=game.turn).select_related("player").first()
    if seat is None or not is_bot(seat.player):
        return False
    state = selectors.game_state(game=game)
    legal = engine.legal_moves(state)
    if not legal:
        return False
    tile, end = rng.choice(legal)
    try:
        services.game_play_tile(game_id=game.pk, player=seat.player, tile=tile_str(tile), end=end,
                                expected_version=game.version)
    except ServiceError as exc:  # someone else moved first (version_mismatch): try again next pass
        if exc.code != "version_mismatch":
            raise
        return False
    return True


def bots_play(*, prefix: str = "bot", everyone: bool = False, game_ids: Iterable[int] | None = None,
              until_done: bool = False, max_moves: int | None = None, seed: int | None = None,
              on_move: Callable[[], None] | None = None) -> int:
    """Pass over the bot games, one move per game where a bot is to move, until no bot can move (or,
    with ``until_done``, until no chosen game is waiting or running any more — new games of a
    tournament included, unless ``game_ids`` pins them). Returns the number of moves made."""
    rng = random.Random(seed)
    game_ids = list(game_ids) if game_ids else None

    def is_bot(player) -> bool:
        return everyone or player.get_username().startswith(prefix)

    moves = 0
    while max_moves is None or moves < max_moves:
        ids = list(bot_games(prefix=prefix, everyone=everyone, game_ids=game_ids).values_list("pk", flat=True))
        moved = False
        for game_id in ids:
            if max_moves is not None and moves >= max_moves:
                break
            if bot_move(game_id=game_id, rng=rng, is_bot=is_bot):
                moves += 1
                moved = True
                if on_move:
                    on_move()
        if not moved and (not until_done or not ids):
            break
        if not moved and until_done:
            # humans (or the clock) must move in the games that remain: wait a little for them
            import time

            time.sleep(0.2)
    return moves


__all__ = ["bot_games", "bot_move", "bots_play"]
