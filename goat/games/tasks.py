"""Celery tasks of the games app. Each loads by id and calls one service; each is idempotent.

* ``games_tick_clocks`` — THE ticker: every second, times out every game past its deadline through
  ``services.game_time_out``, the same write path as a move, naming the version the deadline belongs
  to (so a move and a timeout racing resolve by the version). The due games are split in
  ``GOAT_TICK_SHARES`` shares by game id, each a task that several worker processes run at once, each
  share one at a time across the deployment (a lock). No task per turn.
* ``projections_apply_game`` — every projection of a game that just ended (queued on commit);
  ``projections_apply_games`` the same for the games one tick ended (one message per tick).
* ``projections_catch_up`` — the periodic safety net: ended games a projection has not tracked.
* ``games_expire_waiting`` — every five minutes: cancels the games that waited for players longer
  than ``GOAT_WAITING_GAME_HOURS`` (``services.games_expire_waiting``), returning their stakes.
* ``idempotency_purge`` — forgets stored Idempotency-Key answers past their retention.
* ``computer_move`` — one computer player's move, queued on the commit that made it its turn
  (``goat.games.computer``); a stale or repeated one does nothing.
* ``analyse_game`` — the expert's analysis of a finished game (``goat.games.analysis``), on its own
  ``analysis`` queue (a worker of its own consumes it, so moves and the ticker never wait behind it).
"""

from __future__ import annotations

import logging
import time
from datetime import timedelta

from celery import shared_task
from django.conf import settings
from django.db import OperationalError
from django.db.models.functions import Mod
from django.utils import timezone
from kombu.exceptions import KombuError

from goat.games import analysis, computer, projections, services
from goat.games.models import Game
from goat.web.api.idempotency import idempotency_records_purge
from goat.web.db import locks

logger = logging.getLogger(__name__)

# Task names are ``goat.tasks.<name>``, the names messages already queued carry, so those messages
# find their task after an upgrade.

#: games a tick reads at most; what is left over is due at once and read by the next query
TICK_BATCH = 500


def clocks_due(*, now, limit: int = TICK_BATCH, share: int = 0, shares: int = 1) -> list[tuple[int, int]]:
    """``(game id, version)`` of the games of ``share`` (of ``shares``, by game id) whose deadline has
    passed, earliest first (a range of the partial deadline index: what is due, not what is running)."""
    due = Game.objects.filter(deadline__lte=now)
    if shares > 1:
        due = due.alias(share=Mod("pk", shares)).filter(share=share)
    return list(due.order_by("deadline").values_list("pk", "version")[:limit])


#: how far past its deadline a game may be before the projections of ended games give way to the clock
CLOCK_LATE = timedelta(milliseconds=250)


def clocks_late() -> bool:
    """Whether a game is more than ``CLOCK_LATE`` past its deadline (the ticker is behind)."""
    return Game.objects.filter(deadline__lte=timezone.now() - CLOCK_LATE).exists()


@shared_task(name="goat.tasks.games_tick_clocks", acks_late=True)
def games_tick_clocks(budget_seconds: float = 0.9, share: int | None = None) -> int:
    """Time out every game of a share past its deadline; how many this task timed out. Reads the due
    games again until none is left or the tick's budget is spent (the next tick, a second later, goes
    on).

    The beat's tick (no ``share``) sends shares 1 .. ``GOAT_TICK_SHARES`` - 1 to the clock queue, each
    a task of its own (dropped if not started within a second: the next tick sends it again), and
    times out share 0 itself. A share whose previous tick still runs is skipped (its lock)."""
    started = time.monotonic()
    shares = settings.GOAT_TICK_SHARES
    if share is None:
        try:
            for other in range(1, shares):
                # not retried: with the broker away, this tick times out its own share, the next sends again
                games_tick_clocks.apply_async(kwargs={"budget_seconds": budget_seconds, "share": other},
                                              expires=1, retry=False)
        except KombuError:
            logger.warning("tick: the other shares could not be sent this time", exc_info=True)
        share = 0
    if not 0 <= share < shares:  # sent by a node configured with more shares: its games are another's now
        return 0
    with locks.held(tick_lock(share, shares)) as mine:
        if not mine:  # another beat's tick of this share is running: it times out what is due
            return 0
        with projections.projections_batched():  # the games this tick ends: one projections message
            timed_out = _tick(started, budget_seconds, share, shares)
    if timed_out:
        logger.info("tick: %d game(s) timed out (share %d of %d)", timed_out, share, shares)
    return timed_out


def tick_lock(share: int, shares: int) -> str:
    """The lock of one share of the ticker (with one share, the whole ticker's: ``games_tick_clocks``)."""
    return "games_tick_clocks" if shares == 1 else f"games_tick_clocks:{share}/{shares}"


def _tick(started: float, budget_seconds: float, share: int, shares: int) -> int:
    timed_out = 0
    tried: set[tuple[int, int]] = set()
    while True:
        now = timezone.now()
        due = [game for game in clocks_due(now=now, share=share, shares=shares) if game not in tried]
        for game_id, version in due:
            try:
                timed_out += services.game_time_out(game_id=game_id, expected_version=version, now=now)
            except OperationalError:  # a dropped connection or a busy database: the next tick retries
                logger.warning("tick: game %s could not be timed out this time", game_id, exc_info=True)
        # a game read again at the version already tried was not timed out (an error, a race): the
        # next tick tries it; what came due while this read's games were timed out is read at once
        tried.update(due)
        if not due or time.monotonic() - started > budget_seconds:
            return timed_out


@shared_task(name="goat.tasks.projections_apply_game", acks_late=True, autoretry_for=(OperationalError,),
             retry_backoff=True, max_retries=8)
def projections_apply_game(game_id: int) -> list[str]:
    """Every projection of one ended game, each exactly once (tracked)."""
    return projections.projections_apply_game(game_id=game_id)


@shared_task(name="goat.tasks.projections_apply_games", acks_late=True, autoretry_for=(OperationalError,),
             retry_backoff=True, max_retries=8)
def projections_apply_games(game_ids: list[int]) -> int:
    """Every projection of each of these ended games (a tick's), each exactly once; how many applied.

    Gives way to a late clock: while a deadline is more than ``CLOCK_LATE`` past (the ticker is
    behind, e.g. a burst of timeouts), the rest of the games are queued again for a second later, so
    the projections of the games a burst ended do not take the database (SQLite's one writer) or the
    cores from the timeouts still due. They catch up once the clock does.
    """
    applied = 0
    for index, game_id in enumerate(game_ids):
        if clocks_late():
            projections_apply_games.apply_async((game_ids[index:],), countdown=1)
            break
        applied += bool(projections.projections_apply_game(game_id=game_id))
    return applied


@shared_task(name="goat.tasks.projections_catch_up", acks_late=True)
def projections_catch_up() -> int:
    """Ended games a projection has not tracked yet (a lost task, a killed worker): applied now."""
    with locks.held("projections_catch_up") as mine:
        return projections.projections_catch_up() if mine else 0


@shared_task(name="goat.tasks.games_expire_waiting", acks_late=True)
def games_expire_waiting() -> int:
    """Cancel the waiting games past their time (each cancel is idempotent: a repeat does nothing)."""
    with locks.held("games_expire_waiting") as mine:
        return services.games_expire_waiting() if mine else 0


@shared_task(name="goat.tasks.games_end_idle", acks_late=True)
def games_end_idle() -> int:
    """End the idle unclocked games with a computer (each end is idempotent: a repeat does nothing)."""
    with locks.held("games_end_idle") as mine:
        return services.games_end_idle() if mine else 0


@shared_task(name="goat.tasks.computer_move", acks_late=True, autoretry_for=(OperationalError,),
             retry_backoff=True, max_retries=5)
def computer_move(game_id: int, version: int) -> bool:
    """The computer's move of ``game_id`` at ``version`` (nothing if the game moved on)."""
    return computer.computer_move(game_id=game_id, version=version)


@shared_task(name="goat.tasks.analyse_game", bind=True, acks_late=True, autoretry_for=(OperationalError,),
             retry_backoff=True, max_retries=5)
def analyse_game(self, analysis_id: int) -> bool:
    """The expert's analysis of a finished game (goat.games.analysis), on the ``analysis`` queue. While
    another run's lease holds (a redelivered message of a job still running, or of one killed that
    the lease has not yet given up), it tries again when the lease runs out."""
    outcome = analysis.analysis_run(analysis_id=analysis_id)
    if isinstance(outcome, float):
        raise self.retry(countdown=outcome, max_retries=None)
    return outcome


@shared_task(name="goat.tasks.idempotency_purge")
def idempotency_purge() -> int:
    with locks.held("idempotency_purge") as mine:
        return idempotency_records_purge() if mine else 0


from goat.games import audit_tasks  # noqa: E402,F401
