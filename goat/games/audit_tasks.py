"""Nightly replay verification (imported by goat.tasks so that Celery autodiscovery registers it).

``games_verify_recent`` verifies every game that ended in the last day and flags mismatches on the
game (``verification_ok = False``) with an ERROR log line naming the game and the discrepancy.
"""

from __future__ import annotations

import logging

from celery import shared_task

from goat.games import audit
from goat.web.db import locks

logger = logging.getLogger(__name__)


@shared_task(name="goat.audit_tasks.games_verify_recent", acks_late=True)
def games_verify_recent(days: float = 1) -> dict:
    """Expected outcome: counts of verified and failed games (idempotent: a repeat re-verifies)."""
    with locks.held("games_verify_recent") as mine:
        if not mine:  # another beat's copy is verifying the same games
            return {"verified": 0, "failed": 0, "skipped": True}
        verified, failed = audit.games_verify_recent(days=days)
    if failed:
        logger.error("nightly verification: %d of %d game(s) failed", failed, verified)
    else:
        logger.info("nightly verification: %d game(s) verified, all passed", verified)
    return {"verified": verified, "failed": failed}
