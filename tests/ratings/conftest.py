"""Fixtures for the ratings tests: players, eager Celery, and whole games played through goat.games.services."""

from __future__ import annotations

import factories
import pytest
from celery import current_app


@pytest.fixture(autouse=True)
def eager_celery(settings):
    """Run queued tasks in-process (goat.celery reads CELERY_* settings; the app conf is set too)."""
    settings.CELERY_TASK_ALWAYS_EAGER = True
    settings.CELERY_TASK_EAGER_PROPAGATES = True
    conf = current_app.conf
    saved = conf.task_always_eager, conf.task_eager_propagates
    conf.task_always_eager, conf.task_eager_propagates = True, True
    yield
    conf.task_always_eager, conf.task_eager_propagates = saved


@pytest.fixture
def make_players(db):
    """``make_players("a", "b")``: one user per name (the shared factory)."""
    return factories.make_players
