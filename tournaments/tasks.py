"""Tournament tasks: they take ids, call one service and are idempotent (autodiscovered by goat.celery).

- ``tournaments_start_due`` (beat, every few seconds): start tournaments whose time has come.
- ``tournament_advance(tournament_id)`` (queued on commit when a tournament game ends): record the
  game, seat the next swiss round or waiting arena players, finish and pay prizes.
- ``tournaments_arena_tick`` (beat): advance every running tournament — arenas seat late entries and
  finish after their end time; for swiss it is the safety net for a lost advance task.
- ``tournament_schedules_run`` (beat): create each schedule's occurrences as they come due, once each.

Each locks the tournament row and checks its status, and the unique constraints on rounds, tables and
active seatings make a repeat or a concurrent run a no-op.
"""

from __future__ import annotations

from celery import shared_task
from django.db import OperationalError

from goat.web.db import locks

from . import schedules, services


@shared_task(acks_late=True, autoretry_for=(OperationalError,), retry_backoff=True, max_retries=3)
def tournaments_start_due() -> list[int]:
    with locks.held("tournaments_start_due") as mine:  # each beat sends it: one copy at a time
        return services.tournaments_start_due() if mine else []


@shared_task(acks_late=True, autoretry_for=(OperationalError,), retry_backoff=True, max_retries=8)
def tournament_advance(tournament_id: int) -> bool:
    return services.tournament_advance(tournament_id=tournament_id)


@shared_task(acks_late=True, autoretry_for=(OperationalError,), retry_backoff=True, max_retries=3)
def tournaments_arena_tick() -> int:
    with locks.held("tournaments_arena_tick") as mine:  # each beat sends it: one copy at a time
        return services.tournaments_tick() if mine else 0


@shared_task(acks_late=True, autoretry_for=(OperationalError,), retry_backoff=True, max_retries=3)
def tournament_schedules_run() -> list[int]:
    # each beat sends it: one copy at a time (the unique occurrence guards a copy that gets through anyway)
    with locks.held("tournament_schedules_run") as mine:
        return schedules.schedules_run() if mine else []
