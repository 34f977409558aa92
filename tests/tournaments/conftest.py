"""Fixtures for the tournament tests: bot players, tournaments, eager Celery (tests/conftest.py)."""

from __future__ import annotations

import factories
import pytest

from apitest import token_client


@pytest.fixture
def bots(django_user_model):
    def make(n: int, prefix: str = "bot"):
        return [django_user_model.objects.create_user(username=f"{prefix}{i:02d}", password="x") for i in range(n)]

    return make


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_user(username="director", password="x", is_staff=True)


@pytest.fixture
def director(staff):
    """The organiser's API client (a staff token)."""
    return token_client(staff)


@pytest.fixture
def make_tournament(staff):
    """``make_tournament(**settings)``: a swiss of four-seat tables over three rounds, due but not started
    (the shared factory with this package's defaults)."""

    def make(**kwargs):
        fields = {"rounds": 3, "table_size": 4, "duration_minutes": 60, **kwargs}
        return factories.make_tournament(director=staff, start=False, **fields)

    return make


