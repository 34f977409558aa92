"""Challenge tasks: ``challenges_expire`` (beat, every minute) writes ``expired`` on the open
challenges past their time and tells everyone they name. Idempotent: each challenge is expired under
its row lock, and only while it is still open."""

from __future__ import annotations

from celery import shared_task
from django.db import OperationalError

from goat.web.db import locks

from . import services


@shared_task(acks_late=True, autoretry_for=(OperationalError,), retry_backoff=True, max_retries=3)
def challenges_expire() -> int:
    with locks.held("challenges_expire") as mine:  # each beat sends it: one copy at a time
        return services.challenges_expire() if mine else 0
