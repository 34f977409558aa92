"""Computer players' moves (docs/computer.md).

A game created with ``computer_players`` seats built-in accounts (goat.players.services.computer_accounts)
and records their seats on the game row (``Game.computers``). When a command leaves the turn at a
computer's seat, its commit queues ONE task, ``goat.tasks.computer_move(game_id, version)``, run
after the think time (``services.computer_move_queue``). The task calls ``computer_move`` here: it
reads what that seat may see, exactly as a human client gets it (the game view and the redacted
events of the selectors), lets the pure player (goat.engine.computer) choose among the legal moves
the view lists, and plays through ``services.game_play_tile`` naming the version it was queued at.

A stale task (the game moved on: a timeout, a resignation, its own earlier delivery) and a
redelivered one find another version and do nothing; of a task and a timeout racing at the deadline
exactly one lands (the append names the version). Nothing polls.
"""

from __future__ import annotations

import logging
import random

from goat.engine import computer as players
from goat.games import selectors, services
from goat.games.models import Game, GameStatus, Seat
from goat.web import metrics
from goat.web.errors import ServiceError

logger = logging.getLogger(__name__)

_rng = random.SystemRandom()


def computer_move(*, game_id: int, version: int, rng: random.Random | None = None) -> bool:
    """Play the computer's move of ``game_id`` if the game is still at ``version`` with a computer to
    move; returns whether it played."""
    game = Game.objects.filter(pk=game_id).first()
    if (game is None or game.version != version or game.status != GameStatus.RUNNING
            or not game.computer_seat(game.turn)):
        return False
    seat = game.turn
    player = Seat.objects.select_related("player").get(game=game, seat=seat).player
    state = selectors.game_state(game=game)
    view = selectors.game_view(game=game, state=state, seat=seat)
    events = selectors.events_for(game=game, user=player, seat=seat)
    tile, end = players.choose(players.seat_view(view, events), game.computer_level, rng or _rng)
    try:
        services.game_play_tile(game_id=game_id, player=player, tile=tile, end=end, expected_version=version,
                                computer=True)
    except ServiceError as exc:  # (StreamConflict is one: another append landed between the read and ours)
        if exc.code != "version_mismatch":
            raise
        return False  # a timeout (or a repeat of this task) landed first
    metrics.COMPUTER_MOVES.labels(game.computer_level).inc()
    logger.debug("game %s: computer seat %s played %s at version %s", game_id, seat, tile, version)
    return True
