"""Faults answered cleanly, in-process (issue 31; the real outages are in test_faults_run.py and
tests/reliability/test_rel_faults.py): a cache that is away leaves the throttles counting per
process; a database that is away answers 503 ``service_unavailable`` with ``Retry-After`` on the
API and the pages; stream parameters take ASCII digits only; other methods than GET on a stream
are problem details; a cancelled rematch offer makes way for a new one."""

from __future__ import annotations

import pytest
from django.db import OperationalError
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from apitest import token_client
from goat.games import services
from goat.games.models import Game, GameStatus
from goat.web import throttling

UNREACHABLE_REDIS = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                                 "LOCATION": "redis://127.0.0.1:1/0",
                                 "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5}}}


@pytest.fixture
def fresh_fallback(monkeypatch):
    fallback = throttling.FallbackCache()
    monkeypatch.setattr(throttling.ClientAddressMixin, "cache", fallback)
    return fallback


@pytest.mark.django_db
def test_with_the_cache_away_requests_are_served_and_still_limited_per_process(settings, monkeypatch,
                                                                                fresh_fallback):
    settings.CACHES = UNREACHABLE_REDIS
    monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, "anon", "3/min")
    client = APIClient()

    statuses = [client.get("/api/schema/").status_code for _ in range(5)]

    assert statuses == [200, 200, 200, 429, 429]  # never a 500; the limit holds in this process
    assert fresh_fallback.retry_at > 0  # and the shared cache is tried again later


def _down(*args, **kwargs):
    raise OperationalError("connection to server at \"127.0.0.1\", port 5432 failed: Connection refused")


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/api/games/", "/api/players/me/", "/leaderboards/", "/tournaments/"])
def test_a_database_that_is_away_is_503_with_retry_after_on_the_api_and_the_pages(path, monkeypatch, user):
    from django.db.backends.base.base import BaseDatabaseWrapper

    client = token_client(user)
    monkeypatch.setattr(BaseDatabaseWrapper, "ensure_connection", _down)

    response = client.get(path)

    assert response.status_code == 503, response.content[:300]
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["code"] == "service_unavailable"
    assert int(response["Retry-After"]) > 0


@pytest.mark.django_db(transaction=True)  # the stream reads on a thread of its own
@pytest.mark.parametrize("after", ["０", "٠", "००", "0０"])  # each int() 0: a version main took
def test_stream_versions_take_ascii_digits_only(after, user):
    client = token_client(user)
    game = client.post("/api/games/", {"ruleset": "goat-classic", "seats": 2}, format="json").json()["id"]

    response = client.get(f"/api/games/{game}/stream/", {"after": after})

    assert response.status_code == 400 and response.json()["code"] == "invalid"


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("method", ["head", "options", "post", "delete"])
@pytest.mark.parametrize("path", ["/api/stream/", "/api/games/1/stream/"])
def test_other_methods_than_get_on_a_stream_are_problem_details(method, path, user):
    response = getattr(token_client(user), method)(path)

    assert response.status_code == 405
    assert response["Content-Type"] == "application/problem+json"
    assert response["Allow"] == "GET"
    if method != "head":
        assert response.json()["code"] == "method_not_allowed"


@pytest.mark.django_db
def test_a_rematch_offer_that_was_cancelled_makes_way_for_a_new_one(django_user_model):
    ann, ben = (django_user_model.objects.create_user(username=n, password="x" * 12) for n in ("ann", "ben"))
    old = services.game_create(player=ann, ruleset="goat-classic", seats=2)
    services.game_join(game_id=old.pk, player=ben)
    services.game_resign(game_id=old.pk, player=ann)
    offer, created = services.game_rematch(game_id=old.pk, player=ann)
    assert created
    services.game_leave(game_id=offer.pk, player=ann)  # the last one out: the offer is cancelled
    assert Game.objects.get(pk=offer.pk).status == GameStatus.CANCELLED

    again = token_client(ben).post(f"/api/games/{old.pk}/rematch/", {}, format="json")

    assert again.status_code == 201 and again.json()["id"] != offer.pk and again.json()["your_seat"] == 0
    assert Game.objects.get(rematch_of=old).pk == again.json()["id"]
    repeat = token_client(ann).post(f"/api/games/{old.pk}/rematch/", {}, format="json")
    assert repeat.status_code == 200 and repeat.json()["id"] == again.json()["id"]
