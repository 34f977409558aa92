"""Automated moves: the computer players', and the computer standing in for ordinary accounts
(docs/computer.md). There is one way a move is made for a seat nobody is playing by hand:
:func:`seat_move` reads what that seat may see, exactly as a human client gets it (the game view and
the redacted events of the selectors), lets the pure player (goat.engine.computer) choose among the
legal moves the view lists at a level, and plays through ``services.game_play_tile`` naming the
version it read.

Computer players: a game created with ``computer_players`` seats built-in accounts
(goat.players.services.computer_accounts) and records their seats on the game row
(``Game.computers``). When a command leaves the turn at a computer's seat, its commit queues ONE task,
``goat.tasks.computer_move(game_id, version)``, run after the think time
(``services.computer_move_queue``). The task calls :func:`computer_move` here, which plays the seat at
the game's ``computer_level``. A stale task (the game moved on: a timeout, a resignation, its own
earlier delivery) and a redelivered one find another version and do nothing; of a task and a timeout
racing at the deadline exactly one lands (the append names the version). Nothing polls.

Stand-ins: in tests, demos, load runs and ``manage.py play_bots``, the computer plays for ordinary
accounts (e.g. a tournament's entrants, whose games are rated) at a chosen level (``random`` by
default): :func:`stand_in_move` plays one game's move, :func:`stand_ins_play` passes over the games
until the stand-ins cannot move (or the games are done). They are ordinary seats: their moves are a
person's moves, not a computer's.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Iterable

from goat.engine import computer as players
from goat.games import selectors, services
from goat.games.models import Game, GameStatus, Seat
from goat.games.viewer import Viewer
from goat.web.errors import ServiceError
from goat.web.observe import metrics

logger = logging.getLogger(__name__)

_rng = random.SystemRandom()

#: the usernames that stand-ins have unless told otherwise (``manage.py play_bots --prefix``)
STAND_IN_PREFIX = "bot"


def seat_move(*, game: Game, player, level: str, rng: random.Random, computer: bool = False) -> str | None:
    """Play the move of the seat to move in ``game`` (as read, at its version) for ``player``, the
    account in that seat: the computer's choice at ``level`` from that seat's view. Returns the tile
    played, or ``None`` when the seat has no move to choose or another command landed first (the
    version moved on). ``computer``: the seat is a computer player's (only its own task moves it)."""
    seat = game.turn
    state = selectors.game_state(game=game)
    view = selectors.game_view(game=game, state=state, seat=seat)
    if not view["legal_moves"]:
        return None
    events = selectors.events_for(game=game, viewer=Viewer.seated(seat))
    tile, end = players.choose(players.seat_view(view, events), level, rng)
    try:
        services.game_play_tile(game_id=game.pk, player=player, tile=tile, end=end,
                                expected_version=game.version, computer=computer)
    except ServiceError as exc:  # (StreamConflict is one: another append landed between the read and ours)
        if exc.code != "version_mismatch":
            raise
        return None  # a timeout, a person or a repeat of this task landed first
    return tile


def computer_move(*, game_id: int, version: int, rng: random.Random | None = None) -> bool:
    """Play the computer's move of ``game_id`` if the game is still at ``version`` with a computer to
    move; returns whether it played."""
    game = Game.objects.filter(pk=game_id).first()
    if (game is None or game.version != version or game.status != GameStatus.RUNNING
            or not game.computer_seat(game.turn)):
        return False
    seat = game.turn
    player = Seat.objects.select_related("player").get(game=game, seat=seat).player
    tile = seat_move(game=game, player=player, level=game.computer_level, rng=rng or _rng, computer=True)
    if tile is None:
        return False
    metrics.COMPUTER_MOVES.labels(game.computer_level).inc()
    logger.debug("game %s: computer seat %s played %s at version %s", game_id, seat, tile, version)
    return True


def stand_in_move(*, game_id: int, level: str, rng: random.Random, stands_in: Callable[[object], bool]) -> bool:
    """Play the move of ``game_id`` if the account to move is one the computer stands in for
    (``stands_in(player)``; a computer player's seat is left to its own task). Returns whether it played."""
    game = Game.objects.filter(pk=game_id).first()
    if (game is None or game.status != GameStatus.RUNNING or game.turn is None
            or game.computer_seat(game.turn)):
        return False
    seat = Seat.objects.filter(game=game, seat=game.turn).select_related("player").first()
    if seat is None or not stands_in(seat.player):
        return False
    return seat_move(game=game, player=seat.player, level=level, rng=rng) is not None


def stand_in_games(*, prefix: str = STAND_IN_PREFIX, everyone: bool = False, game_ids: Iterable[int] | None = None):
    """The waiting or running games with a seat of a stand-in (every seat, with ``everyone``)."""
    games = Game.objects.open()
    if game_ids:
        games = games.filter(pk__in=list(game_ids))
    if not everyone:
        games = games.filter(seat_set__player__username__startswith=prefix)
    return games.distinct().order_by("id")


def stand_ins_play(*, prefix: str = STAND_IN_PREFIX, everyone: bool = False, game_ids: Iterable[int] | None = None,
                   level: str = "random", until_done: bool = False, max_moves: int | None = None,
                   seed: int | None = None, on_move: Callable[[], None] | None = None) -> int:
    """The computer plays at ``level`` for the accounts whose username starts with ``prefix`` (every
    account but the computer players, with ``everyone``): passes over their games, one move per game
    where one of them is to move, until none can move (or, with ``until_done``, until no chosen game is
    waiting or running any more — new games of a tournament included, unless ``game_ids`` pins them).
    ``seed`` makes the run reproducible. Returns the number of moves made."""
    if level not in players.LEVELS:
        raise ValueError(f"unknown computer level {level!r}; choose one of: {', '.join(players.LEVELS)}")
    rng = random.Random(seed)
    game_ids = list(game_ids) if game_ids else None

    def stands_in(player) -> bool:
        return everyone or player.get_username().startswith(prefix)

    moves = 0
    while max_moves is None or moves < max_moves:
        ids = list(stand_in_games(prefix=prefix, everyone=everyone, game_ids=game_ids).values_list("pk", flat=True))
        moved = False
        for game_id in ids:
            if max_moves is not None and moves >= max_moves:
                break
            if stand_in_move(game_id=game_id, level=level, rng=rng, stands_in=stands_in):
                moves += 1
                moved = True
                if on_move:
                    on_move()
        if not moved and (not until_done or not ids):
            break
        if not moved:  # people (or the clock) must move in the games that remain: wait a little for them
            time.sleep(0.2)
    return moves
