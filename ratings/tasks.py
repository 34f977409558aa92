"""Ratings tasks: they take ids, call one service and are idempotent (autodiscovered by goat.celery)."""

from __future__ import annotations

from celery import shared_task
from django.db import OperationalError

from goat.web.db import locks

from . import leaderboards, services

# leaderboards_refresh runs from beat (settings.CELERY_BEAT_SCHEDULE["leaderboards-refresh"]).


@shared_task(acks_late=True, autoretry_for=(OperationalError,), retry_backoff=True, max_retries=8)
def ratings_apply_game(game_id: int) -> bool:
    """The ratings projections of one game (ledger, chips, skill, leaderboards), each exactly once.
    (The live path queues goat.games' projections_apply_game, which runs these and every other.)"""
    return services.ratings_apply_game(game_id=game_id)


@shared_task(acks_late=True, autoretry_for=(OperationalError,), retry_backoff=True, max_retries=3)
def leaderboards_refresh() -> int:
    """Apply games whose post-game task was lost (safety net), then recompute the current boards. One
    at a time across the deployment (each beat sends it): a copy that finds another running skips."""
    with locks.held("leaderboards_refresh") as mine:
        if not mine:
            return 0
        services.ratings_apply_pending()
        return leaderboards.leaderboards_refresh()


@shared_task(acks_late=True)
def ratings_rebuild() -> dict:
    return services.ratings_rebuild()
