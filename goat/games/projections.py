"""Projections of ended games: each one function from a finished game to rows, registered once.

An upper app registers its projections in its ``AppConfig.ready`` (``register``): ratings registers
the rating ledger, the chips payout, skill ratings and leaderboards, tournaments the standings. The
same function runs live and in its app's rebuild command.

Exactly once per game: ``projection_apply`` writes the projection's rows and the tracking row
``(projection, game)`` (``ProjectionRecord``) in ONE transaction, so either both are kept or neither.
A repeat finds the tracking row and does nothing; of two concurrent runs the unique constraint keeps
one (the second one's INSERT waits for the first transaction, fails, and rolls its rows back).
Triggering is on commit of the command that ended the game (``projections_queue``: one Celery task
that runs every projection of that game) plus a periodic catch-up
(``projections_catch_up``) that finds ended games a projection has not tracked: a worker killed
after the game ended, or a broker that was down, loses nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from goat.engine.state import GameState
from goat.games.eventstore import state_load, state_rebuild
from goat.games.models import Game, ProjectionRecord, Seat

logger = logging.getLogger(__name__)

#: the Celery task that runs every projection of one game (goat.games.tasks), sent by its name: the
#: tasks module imports this one and the services (whose commit queues it), so an import of the tasks
#: here would close a cycle; a task's name is also the contract of the messages already queued
APPLY_TASK = "goat.tasks.projections_apply_game"
APPLY_MANY_TASK = "goat.tasks.projections_apply_games"


@dataclass(frozen=True)
class EndedGame:
    """What a projection reads of a finished game: its row, final engine state and seated players."""

    game: Game
    state: GameState
    #: seat -> the player (user) who sat there
    players: dict[int, Any]

    @property
    def ended_at(self) -> datetime:
        return self.game.ended_at or timezone.now()


@dataclass(frozen=True)
class Projection:
    name: str
    apply: Callable[[EndedGame], None]
    #: projections run in ascending ``order`` (then name) for each game
    order: int = 100


_registry: dict[str, Projection] = {}


def register(name: str, apply: Callable[[EndedGame], None], *, order: int = 100) -> None:
    """Register ``apply`` as the projection ``name`` (again with the same function: no change)."""
    known = _registry.get(name)
    if known is not None and known.apply is not apply:
        raise ValueError(f"projection {name!r} is registered already")
    _registry[name] = Projection(name=name, apply=apply, order=order)


def registered(prefix: str = "") -> list[Projection]:
    """The registered projections (whose name starts with ``prefix``) in the order they run."""
    return sorted((p for p in _registry.values() if p.name.startswith(prefix)), key=lambda p: (p.order, p.name))


def ended_game_load(*, game_id: int, from_events: bool = False) -> EndedGame | None:
    """The finished game with its final state (``from_events``: folded from the events, not the
    snapshot) and players; None if there is no such ended game."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None or not game.ended or game.result is None:
        return None
    players = {s.seat: s.player for s in Seat.objects.filter(game=game).select_related("player")}
    return EndedGame(game=game, state=state_rebuild(game) if from_events else state_load(game), players=players)


def projection_apply(*, name: str, game_id: int, ended: EndedGame | None = None) -> bool:
    """Run projection ``name`` on one ended game unless it has done so: its rows and its tracking row in
    one transaction (a savepoint inside a caller's). Returns whether this call applied it.

    The tracking row is inserted last, after the rows: a projection may take locks of its own (a
    tournament's row) and a caller may hold them already, so the unique constraint, not a lock taken
    first, decides between two concurrent runs: the second one's INSERT fails and its transaction,
    with the rows it wrote, is rolled back.
    """
    apply = _registry[name].apply
    if ProjectionRecord.objects.filter(projection=name, game_id=game_id).exists():
        return False
    try:
        with transaction.atomic():
            ended = ended if ended is not None else ended_game_load(game_id=game_id)
            if ended is None:
                return False  # not ended (or no such game): nothing to track yet
            apply(ended)
            ProjectionRecord.objects.create(projection=name, game_id=game_id)
    except IntegrityError:
        if ProjectionRecord.objects.filter(projection=name, game_id=game_id).exists():
            return False  # applied concurrently: this run's rows were rolled back with it
        raise
    return True


def projections_apply_game(*, game_id: int, prefix: str = "", from_events: bool = False) -> list[str]:
    """Every registered projection (whose name starts with ``prefix``) of one ended game, each exactly
    once, each in its own transaction (a savepoint inside a caller's). Returns the names this call
    applied. A rebuild passes ``from_events``: the final state is folded from the events."""
    ended = ended_game_load(game_id=game_id, from_events=from_events)
    if ended is None:
        return []
    applied = [p.name for p in registered(prefix) if projection_apply(name=p.name, game_id=game_id, ended=ended)]
    if applied:
        logger.info("game %s: projections %s applied", game_id, ", ".join(applied))
    return applied


#: inside ``projections_batched()``: the ended games whose projections wait to be queued together
_batch: ContextVar[list[int] | None] = ContextVar("goat_projections_batch", default=None)


def projections_queue(*, game_id: int) -> None:
    """On commit of the command that ended a game: queue its projections (the catch-up covers a failure).
    Inside ``projections_batched()`` the game waits for the batch's one message."""
    batch = _batch.get()
    if batch is not None:
        batch.append(game_id)
        return
    _publish(APPLY_TASK, game_id)


@contextmanager
def projections_batched() -> Iterator[None]:
    """Queue the projections of every game ended inside the block as ONE message at its end (the
    ticker: a tick that ends many games pays one publish, not one per game)."""
    batch: list[int] = []
    token = _batch.set(batch)
    try:
        yield
    finally:
        _batch.reset(token)
        if batch:
            _publish(APPLY_MANY_TASK, batch)


def _publish(task: str, argument) -> None:
    from kombu.exceptions import OperationalError as BrokerError

    from goat.celery import app

    try:
        app.tasks[task].delay(argument)
    except BrokerError:
        logger.exception("projections of game(s) %s not queued; the catch-up applies them", argument)


def projections_pending(*, name: str, now: datetime | None = None, window: timedelta = timedelta(days=7),
                        grace: timedelta = timedelta(seconds=30)) -> list[int]:
    """Games that ended in the last ``window`` (more than ``grace`` ago) that ``name`` has not tracked."""
    now = now or timezone.now()
    return list(
        Game.objects.played().filter(ended_at__gte=now - window, ended_at__lt=now - grace)
        .filter(~Exists(ProjectionRecord.objects.filter(projection=name, game=OuterRef("pk"))))
        .order_by("ended_at", "id").values_list("pk", flat=True))


def projections_catch_up(*, now: datetime | None = None, prefix: str = "", **window) -> int:
    """Apply every registered projection to the ended games it has not tracked yet, in end order.
    Returns how many (projection, game) pairs this call applied."""
    applied = 0
    for proj in registered(prefix):
        for game_id in projections_pending(name=proj.name, now=now, **window):
            applied += projection_apply(name=proj.name, game_id=game_id)
    if applied:
        logger.info("projections catch-up: %d applied", applied)
    return applied


def projections_backlog(*, now: datetime | None = None, window: timedelta = timedelta(days=7)
                        ) -> tuple[int, datetime | None]:
    """How many games that ended in the last ``window`` (the catch-up's) miss a registered
    projection, and when the earliest of them ended (None: no backlog). One query: the ended games
    of the window along the ``ended_at`` index, each probed in the tracking rows' unique index."""
    from django.db.models import Count, Min, Q

    now = now or timezone.now()
    names = [p.name for p in registered()]
    if not names:
        return 0, None
    missing = Q()
    for name in names:
        missing |= ~Q(Exists(ProjectionRecord.objects.filter(projection=name, game=OuterRef("pk"))))
    found = (Game.objects.played().filter(ended_at__gte=now - window)
             .filter(missing).aggregate(count=Count("pk"), oldest=Min("ended_at")))
    return found["count"], found["oldest"]


def projection_records_forget(*, names: list[str], game_ids: list[int] | None = None) -> int:
    """Delete the tracking rows of ``names`` (of ``game_ids``, default all): for a rebuild that deleted
    those projections' rows and runs them again."""
    records = ProjectionRecord.objects.filter(projection__in=names)
    if game_ids is not None:
        records = records.filter(game_id__in=game_ids)
    deleted, _ = records.delete()
    return deleted
