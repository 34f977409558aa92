"""Celery tasks of the games app. Each loads by id and calls one service; each is idempotent.

* ``game_time_out`` — the countdown of one turn, queued on commit with ``eta = deadline``; it
  appends ``timed_out`` only if the game is still at the version the turn started at.
* ``games_sweep_clocks`` — the periodic safety net for a lost countdown or a restarted worker.
* ``idempotency_purge`` — forgets stored Idempotency-Key answers past their retention.
"""

from __future__ import annotations

import logging

from celery import shared_task
from django.db import OperationalError
from django.utils import timezone

from goat.games import clock, services
from goat.games.models import Game, GameStatus
from goat.web.idempotency import idempotency_records_purge

logger = logging.getLogger(__name__)

# Task names keep the module path they were first published under (goat.tasks), so messages
# queued by a process of the previous layout still find their task after an upgrade.


@shared_task(name="goat.tasks.game_time_out", bind=True, acks_late=True, autoretry_for=(OperationalError,), retry_backoff=True, max_retries=5)
def game_time_out(self, game_id: int, version: int) -> bool:
    """Expected outcomes: timed out (True), or the game moved on / is not due yet (False)."""
    game = Game.objects.filter(pk=game_id).only("version", "deadline", "status").first()
    if game is None or game.version != version or game.deadline is None:
        return False
    remaining = (game.deadline - timezone.now()).total_seconds()
    if remaining > 0:  # fired early (clock skew between hosts): come back at the deadline
        if self.request.is_eager:  # run inline (tests): there is no later to come back at
            return False
        game_time_out.apply_async((game_id, version), countdown=remaining)
        return False
    return services.game_time_out(game_id=game_id, expected_version=version)


@shared_task(name="goat.tasks.games_sweep_clocks", acks_late=True)
def games_sweep_clocks(limit: int = 500) -> int:
    """Time out every running game whose deadline has passed (catches what a countdown missed)."""
    due = list(
        Game.objects.filter(status=GameStatus.RUNNING, deadline__lte=timezone.now())
        .order_by("deadline")
        .values_list("pk", "version")[:limit]
    )
    timed_out = 0
    for game_id, version in due:
        try:
            timed_out += services.game_time_out(game_id=game_id, expected_version=version)
        except OperationalError:  # a lock timeout or a dropped connection: the next sweep retries
            logger.warning("sweep: game %s could not be timed out this time", game_id, exc_info=True)
    if timed_out:
        logger.info("sweep: %d game(s) timed out", timed_out)
    return timed_out


@shared_task(name="goat.tasks.idempotency_purge")
def idempotency_purge() -> int:
    return idempotency_records_purge()


def queue_turn_clock(*, game, state) -> None:
    """services.TURN_STARTED_HOOKS: start the countdown of the turn that just began (on commit)."""
    if game.deadline is not None:
        clock.start_countdown(game_id=game.pk, version=game.version, deadline=game.deadline)


from goat.games import audit_tasks  # noqa: E402,F401
