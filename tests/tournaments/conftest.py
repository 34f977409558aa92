"""Fixtures for the tournament tests: bot players, tournaments, eager Celery (tests/conftest.py)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from tournament_helpers import FAST


@pytest.fixture
def bots(django_user_model):
    def make(n: int, prefix: str = "bot"):
        return [django_user_model.objects.create_user(username=f"{prefix}{i:02d}", password="x") for i in range(n)]

    return make


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_user(username="director", password="x", is_staff=True)


@pytest.fixture
def make_tournament(staff):
    from tournaments import services

    def make(**kwargs):
        fields = dict(created_by=staff, name="Friday swiss", ruleset="goat-classic", options=dict(FAST),
                      format="swiss", rounds=3, table_size=4, starts_at=timezone.now() - timedelta(seconds=1),
                      max_players=32, entry_fee=0, duration_minutes=60)
        fields.update(kwargs)
        return services.tournament_create(**fields)

    return make


