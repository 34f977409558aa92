"""Game services: the one write path per command.

Every command runs in one transaction: lock the game row (``SELECT ... FOR UPDATE``), check the
expected version, run the engine on the cached state, append the command's event and every forced
draw, knock, deal and reveal the engine performs up to the next real choice, update the read model
and snapshot, and queue follow-ups on commit. Views, tasks and commands all come through here.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.db import IntegrityError, connection, transaction
from django.db.models import OuterRef, Subquery
from django.utils import timezone

from goat import engine
from goat.engine import deal as dealing
from goat.engine.rules import PLAY, pending
from goat.engine.state import GameState
from goat.games import eventstore, notify, selectors
from goat.games.models import Game, GameEvent, GameStatus, Seat
from goat.web.errors import ServiceError
from goat.web.logs import game_context
from goat.web.rows import RowModel, fixed_cursor, postgresql

logger = logging.getLogger(__name__)

#: functions called as ``hook(game_id=..., state=...)`` on commit of a command that ended a game
#: (ratings, chips, tournaments register here from their AppConfig.ready)
GAME_ENDED_HOOKS: list[Callable[..., None]] = []
#: functions called as ``hook(game=..., state=...)`` on commit of any command that changed the turn
TURN_STARTED_HOOKS: list[Callable[..., None]] = []
#: functions called inside the transaction before a seat is taken, e.g. to escrow an ante;
#: ``hook(game=..., player=..., seat=..., options=...)`` may raise ServiceError to refuse the seat
SEAT_TAKING_HOOKS: list[Callable[..., None]] = []

GAME_NOT_FOUND = "No game with that id."
NOT_SEATED = "You have no seat at this game."
GAME_NOT_ENDED = "The game has not ended yet."


def _not_found() -> ServiceError:
    return ServiceError("not_found", GAME_NOT_FOUND, status=404)


_LOCK_SQL: str | None = None
_GAME_ROW: RowModel | None = None


def _lock_pg(game_id: int, player) -> Game | None:
    # One fixed SQL text: compiling the ORM's queryset below cost ~0.8 ms of CPU on every move.
    global _LOCK_SQL, _GAME_ROW
    if _GAME_ROW is None:
        row = RowModel(Game, "g")
        quote = connection.ops.quote_name
        _LOCK_SQL = (f"SELECT {row.columns}, (SELECT s.seat FROM {quote(Seat._meta.db_table)} s "
                     f"WHERE s.game_id = g.id AND s.player_id = %s LIMIT 1) "
                     f"FROM {quote(Game._meta.db_table)} g WHERE g.id = %s FOR UPDATE OF g")
        _GAME_ROW = row
    with fixed_cursor() as cursor:
        cursor.execute(_LOCK_SQL, [getattr(player, "pk", None), game_id], prepare=True)
        row = cursor.fetchone()
    if row is None:
        return None
    game = _GAME_ROW.load(row)
    game._player_seat = row[-1]
    return game


def _lock_orm(game_id: int, player) -> Game | None:
    games = Game.objects.select_for_update()
    if player is not None:
        games = games.annotate(_player_seat=Subquery(
            Seat.objects.filter(game=OuterRef("pk"), player=player).values("seat")[:1]))
    return games.filter(pk=game_id).first()


def _locked_game(game_id: int, player=None) -> Game:
    """The game row, locked until the transaction ends; with ``player``, their seat read in the same
    query (``game.player_seat``: ``(player id, seat or None)``, read by ``selectors.viewer_seat``)."""
    try:
        game_id = int(game_id)
    except (ValueError, TypeError):
        raise _not_found() from None
    if not 0 < game_id < 2**63:  # no such id (and beyond bigint PostgreSQL would compare as numeric: a scan)
        raise _not_found()
    game = _lock_pg(game_id, player) if postgresql() else _lock_orm(game_id, player)
    if game is None:
        raise _not_found()
    if player is not None:
        game.player_seat = (player.pk, game._player_seat)
    game_context(game.pk)  # every log record of this request or task now carries game_id
    return game


def _seat_of(game: Game, player) -> int:
    # By the Seat table, not by the username in the events: a username can be changed by staff.
    seat = selectors.viewer_seat(game, player)
    if seat is None:
        raise ServiceError("not_seated", NOT_SEATED, status=403)
    return seat


#: the columns a command changes on the game row (saving only these keeps the UPDATE small)
_COMMAND_FIELDS = ["status", "round", "turn", "deadline", "result", "ended_at", "snapshot", "snapshot_version",
                   "version", "last_hash", "updated_at"]


def _sync_read_model(game: Game, state: GameState, now) -> None:
    """Copy what the API filters and shows from the engine state onto the game row."""
    game.status = state.status
    game.round = state.round_no
    kind, seat = pending(state)
    game.turn = seat if kind == PLAY else None
    move_time = state.options.move_time
    game.deadline = now + timedelta(seconds=move_time) if (kind == PLAY and move_time > 0) else None
    game.result = state.result.to_dict() if state.result is not None else None
    if state.ended and game.ended_at is None:
        game.ended_at = now
    game.snapshot = eventstore.snapshot_dump(state)
    game.snapshot_version = state.version
    game.engine_state = state  # the response reads it back without unpickling the snapshot


def _commit(game: Game, state: GameState, events: list[dict[str, Any]], actor, was_ended: bool
            ) -> list[GameEvent]:
    now = timezone.now()
    was_status = game.status
    _sync_read_model(game, state, now)
    # the events and the game row's new head and read model: one statement on PostgreSQL
    stored = eventstore.events_append(game=game, events=events, actor=actor, at=now,
                                      update_fields=_COMMAND_FIELDS)
    transaction.on_commit(notify.command_committed(game, was_status))  # live streams and feeds
    if game.turn is not None:
        for hook in TURN_STARTED_HOOKS:
            transaction.on_commit(lambda h=hook, g=game, s=state: h(game=g, state=s))
    if state.ended and not was_ended:
        for hook in GAME_ENDED_HOOKS:
            transaction.on_commit(lambda h=hook, gid=game.pk, s=state: h(game_id=gid, state=s))
    return stored


@transaction.atomic
def game_create(*, player, ruleset: str, seats: int, options: dict | None = None, client_seed: str = ""
                ) -> Game:
    """Create a game; the creator takes seat 0."""
    server_seed = dealing.new_server_seed()
    state, events = engine.decide(None, engine.CreateGame(ruleset=ruleset, seats=seats,
                                                          server_seed_hex=server_seed, options=options))
    game = Game.objects.create(
        ruleset=ruleset, options=state.options.to_dict(), seats=seats, status=GameStatus.WAITING,
        server_seed=server_seed, server_seed_commitment=state.commitment, created_by=player,
    )
    game_context(game.pk)
    _take_seat(game, state, events, player, client_seed)
    return game


def _take_seat(game: Game, state: GameState, events: list, player, client_seed: str) -> list[GameEvent]:
    if selectors.viewer_seat(game, player) is not None:
        raise ServiceError("already_seated", "You already have a seat at this game.", status=409)
    seat = state.players.index(None) if None in state.players else None
    if seat is None:
        raise ServiceError("game_full", "Every seat of this game is taken.", status=409)
    for hook in SEAT_TAKING_HOOKS:
        hook(game=game, player=player, seat=seat, options=state.options)
    state, more = engine.decide(state, engine.TakeSeat(player=player.get_username(), client_seed=client_seed))
    try:
        with transaction.atomic():
            Seat.objects.create(game=game, seat=seat, player=player, client_seed=client_seed)
    except IntegrityError:
        raise ServiceError("game_full", "That seat was just taken; try again.", status=409) from None
    game.player_seat = (player.pk, seat)
    return _commit(game, state, [*events, *more], player, was_ended=False)


@transaction.atomic
def game_join(*, game_id: int, player, client_seed: str = "") -> Game:
    """Take the next free seat; the last seat taken deals the first round."""
    game = _locked_game(game_id, player)
    if game.status != GameStatus.WAITING:
        raise ServiceError("game_not_waiting", "This game is not waiting for players.", status=409)
    state = eventstore.state_load(game)
    _take_seat(game, state, [], player, client_seed)
    return game


def _run(game_id: int, actor, expected_version: int | None, build: Callable[[Game, GameState], Any]
         ) -> tuple[Game, list[GameEvent]]:
    game = _locked_game(game_id, actor)
    if expected_version is not None and game.version != expected_version:
        raise ServiceError(
            "version_mismatch",
            f"The game is at version {game.version}, not {expected_version}; reload it and try again.",
            status=412,
        )
    state = eventstore.state_load(game)
    command = build(game, state)
    was_ended = state.ended
    state, events = engine.decide(state, command)
    return game, _commit(game, state, events, actor, was_ended)


@transaction.atomic
def game_play_tile(*, game_id: int, player, tile: str, end: str | None = None,
                   expected_version: int | None = None) -> tuple[Game, list[GameEvent]]:
    """Play ``tile`` on ``end``; returns the game and every event appended (the play and what it forced)."""

    def build(game, state):
        seat = _seat_of(game, player)
        return engine.PlayTile(seat=seat, tile=tile, end=end)

    return _run(game_id, player, expected_version, build)


@transaction.atomic
def game_resign(*, game_id: int, player) -> tuple[Game, list[GameEvent]]:
    """Resign (RULES.md D-12: treated as a timeout of the resigning player)."""

    def build(game, state):
        seat = _seat_of(game, player)
        if state.status != GameStatus.RUNNING:
            raise ServiceError("game_not_running", "The game is not running.")
        return engine.Resign(seat=seat)

    return _run(game_id, player, None, build)


@transaction.atomic
def game_time_out(*, game_id: int, expected_version: int, now=None) -> bool:
    """Time out the player to move if the game is still at ``expected_version`` and the deadline has passed.

    Idempotent: a repeat, a late task or a race with a move finds another version and does nothing.
    """
    now = now or timezone.now()
    try:
        game = Game.objects.select_for_update().get(pk=game_id)
    except Game.DoesNotExist:
        return False
    if game.version != expected_version or game.deadline is None or game.deadline > now or game.turn is None:
        return False
    seat = game.turn
    _run(game_id, None, expected_version, lambda g, s: engine.TimeOut(seat=seat))
    logger.info("game %s: seat %s timed out at version %s", game_id, seat, expected_version)
    return True


def game_rebuild_read_model(*, game_id: int) -> Game:
    """Recompute the snapshot and read model of one game from its events alone."""
    with transaction.atomic():
        game = _locked_game(game_id)
        state = eventstore.state_rebuild(game)
        last = GameEvent.objects.filter(game=game).order_by("-seq").first()
        game.version = state.version
        game.last_hash = last.hash if last else ""
        _sync_read_model(game, state, last.at if last else timezone.now())
        game.save()
    return game


ENDED_STATUSES = (GameStatus.FINISHED, GameStatus.INTERRUPTED)


@transaction.atomic
def game_rematch(*, game_id: int, player) -> tuple[Game, bool]:
    """Offer a rematch of an ended game: a new game with the same ruleset, options and seats, the
    offerer in seat 0, the others told on their feeds. A repeat by any player of the old game
    returns the same new game. Returns (the new game, whether this call created it)."""
    old = _locked_game(game_id, player)  # the lock serializes rematch offers of one game
    seat = _seat_of(old, player)
    if old.status not in ENDED_STATUSES:
        raise ServiceError("game_not_ended", GAME_NOT_ENDED, status=409)
    existing = Game.objects.filter(rematch_of=old).first()
    if existing is not None:
        return existing, False
    game = game_create(player=player, ruleset=old.ruleset, seats=old.seats, options=old.options)
    Game.objects.filter(pk=game.pk).update(rematch_of=old)
    game.rematch_of_id = old.pk
    others = [pid for s, pid in Seat.objects.filter(game=old).values_list("seat", "player_id") if s != seat]
    offer = {"game": game.pk, "from": player.get_username(), "rematch_of": old.pk}
    transaction.on_commit(lambda: [notify.feed_publish(pid, "rematch_offered", offer) for pid in others])
    return game, True
