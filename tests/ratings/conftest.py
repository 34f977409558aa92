"""Fixtures for the ratings tests: players, eager Celery, and whole games played through goat.games.services."""

from __future__ import annotations

import factories
import pytest


@pytest.fixture(autouse=True)
def eager_celery(settings):
    """Run queued tasks in-process (goat.celery reads CELERY_* settings; the app conf is set too)."""
    with factories.eager_tasks(settings):
        yield


@pytest.fixture
def make_players(db):
    """``make_players("a", "b")``: one user per name (the shared factory)."""
    return factories.make_players
