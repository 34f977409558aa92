"""Fixtures for the ratings tests: players, and whole games played through goat.games.services (Celery runs
eagerly: tests/conftest.py)."""

from __future__ import annotations

import factories
import pytest


@pytest.fixture
def make_players(db):
    """``make_players("a", "b")``: one user per name (the shared factory)."""
    return factories.make_players
