"""Every stream kind under one set of limits (issue 35 item 4): an anonymous open of any stream counts
against the anonymous rate limit, and one caller (a token, an account, an anonymous address) has one
budget of open streams across game and tournament streams (goat/live/streaming.py)."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from django.test import AsyncClient
from django.utils import timezone
from rest_framework.throttling import SimpleRateThrottle

from goat.games import services
from tournaments import services as tournament_services

pytestmark = pytest.mark.django_db(transaction=True)

NDJSON = "application/x-ndjson"


@pytest.fixture
def local_live(local_live, settings):
    """The shared fixture (tests/conftest.py), behind the trusted proxy 127.0.0.1 (the test client's peer)."""
    settings.GOAT_TRUSTED_PROXIES = ["127.0.0.1"]


@pytest.fixture
def paths(django_user_model):
    ann = django_user_model.objects.create_user(username="ann", password="x" * 12)
    staff = django_user_model.objects.create_user(username="boss", password="x" * 12, is_staff=True)
    game = services.game_create(player=ann, ruleset="goat-classic", seats=2).game
    tournament = tournament_services.tournament_create(
        created_by=staff, name="Cup", ruleset="goat-classic", format="swiss", table_size=2,
        starts_at=timezone.now() + timedelta(days=1), max_players=8, rounds=1)
    return {"game": f"/api/games/{game.pk}/stream/", "tournament": f"/api/tournaments/{tournament.pk}/stream/"}


def from_address(address: str) -> dict[str, str]:
    """The headers of a client at ``address`` behind the trusted proxy 127.0.0.1 (the test client's peer)."""
    return {"Accept": NDJSON, "X-Forwarded-For": address}


async def _open_then_close(client: AsyncClient, path: str) -> tuple[int, str | None]:
    response = await client.get(path, headers=from_address("192.0.2.7"))
    if response.status_code == 200:
        lines = aiter(response.streaming_content)
        await anext(lines)
        await lines.aclose()
        return 200, None
    return response.status_code, response.json()["code"]


@pytest.mark.parametrize("kind", ["game", "tournament"])
def test_anonymous_opens_of_every_stream_kind_count_against_the_anonymous_rate(paths, kind, monkeypatch,
                                                                                local_live, settings):
    settings.GOAT_STREAMS_PER_TOKEN = 8
    monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, "anon", "3/min")

    async def scenario():
        client = AsyncClient()
        return [await _open_then_close(client, paths[kind]) for _ in range(5)]

    assert asyncio.run(scenario()) == [(200, None)] * 3 + [(429, "throttled")] * 2


def test_one_address_has_one_budget_of_open_streams_across_stream_kinds(paths, local_live):
    async def scenario():
        client = AsyncClient()
        held = await client.get(paths["game"], headers=from_address("192.0.2.8"))  # the address's one slot
        lines = aiter(held.streaming_content)
        await anext(lines)
        try:
            other = await client.get(paths["tournament"], headers=from_address("192.0.2.8"))
            elsewhere = await client.get(paths["tournament"], headers=from_address("192.0.2.9"))
            if elsewhere.status_code == 200:
                await aiter(elsewhere.streaming_content).aclose()
            return held.status_code, other.status_code, other.json().get("code"), elsewhere.status_code
        finally:
            await lines.aclose()

    assert asyncio.run(scenario()) == (200, 429, "too_many_streams", 200)
