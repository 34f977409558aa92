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
from goat.web.api import rates

UNREACHABLE_REDIS = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                                 "LOCATION": "redis://127.0.0.1:1/0",
                                 "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5}}}


@pytest.fixture
def fresh_fallback(monkeypatch):
    fallback = rates.ProcessRates()
    monkeypatch.setattr(rates, "fallback", fallback)
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
@pytest.mark.parametrize("path", ["/api/stream/", "/api/games/1/stream/", "/api/tournaments/1/stream/"])
def test_other_methods_than_get_on_a_stream_are_problem_details(method, path, user):
    response = getattr(token_client(user), method)(path)

    assert response.status_code == 405
    assert response["Content-Type"] == "application/problem+json"
    assert response["Allow"] == "GET"
    if method != "head":
        assert response.json()["code"] == "method_not_allowed"
        assert response.json()["detail"] == f'Method "{method.upper()}" not allowed.'
        russian = getattr(token_client(user), method)(path, HTTP_ACCEPT_LANGUAGE="ru").json()
        assert russian["code"] == "method_not_allowed" and russian["detail"].startswith(f'Метод "{method.upper()}"')


@pytest.mark.django_db
def test_a_rematch_offer_that_was_cancelled_makes_way_for_a_new_one(django_user_model):
    ann, ben = (django_user_model.objects.create_user(username=n, password="x" * 12) for n in ("ann", "ben"))
    old = services.game_create(player=ann, ruleset="goat-classic", seats=2).game
    services.game_join(game_id=old.pk, player=ben)
    services.game_resign(game_id=old.pk, player=ann)
    offer, created = services.game_rematch(game_id=old.pk, player=ann)
    offer = offer.game
    assert created
    services.game_leave(game_id=offer.pk, player=ann)  # the last one out: the offer is cancelled
    assert Game.objects.get(pk=offer.pk).status == GameStatus.CANCELLED

    again = token_client(ben).post(f"/api/games/{old.pk}/rematch/", {}, format="json")

    assert again.status_code == 201 and again.json()["id"] != offer.pk and again.json()["your_seat"] == 0
    assert Game.objects.get(rematch_of=old).pk == again.json()["id"]
    repeat = token_client(ann).post(f"/api/games/{old.pk}/rematch/", {}, format="json")
    assert repeat.status_code == 200 and repeat.json()["id"] == again.json()["id"]


@pytest.mark.django_db
def test_the_feed_catch_up_owes_what_happened_since_and_a_feed_sends_each_event_once(django_user_model):
    from datetime import timedelta

    from django.utils import timezone

    from goat.games import notify
    from goat.games.streams import FeedSent

    ann, ben = (django_user_model.objects.create_user(username=n, password="x" * 12) for n in ("ann", "ben"))
    since = timezone.now() - timedelta(seconds=1)
    game = services.game_create(player=ann, ruleset="goat-classic", seats=2).game
    services.game_join(game_id=game.pk, player=ben)
    game.refresh_from_db()
    mover = (ann, ben)[game.turn]

    owed = notify.feed_catch_up(user=mover, since=since)

    assert {"kind": "game_started", "data": {"game": game.pk}} in owed
    turns = [m for m in owed if m["kind"] == "your_turn"]
    assert [t["data"]["version"] for t in turns] == [game.version]
    sent = FeedSent()
    assert [sent.first(m["kind"], m["data"]) for m in owed] == [True] * len(owed)
    assert [sent.first(m["kind"], m["data"]) for m in owed] == [False] * len(owed)  # nothing twice
    services.game_resign(game_id=game.pk, player=ann)
    owed = notify.feed_catch_up(user=ben, since=since)
    ended = [m for m in owed if m["kind"] == "game_ended"]
    assert len(ended) == 1 and ended[0]["data"]["result"]["reason"] == "resigned"
    assert not [m for m in owed if m["kind"] in ("game_started", "your_turn")]  # not running any more
    offer = services.game_rematch(game_id=game.pk, player=ann)[0].game
    assert {"kind": "rematch_offered", "data": {"game": offer.pk, "from": "ann", "rematch_of": game.pk}} in (
        notify.feed_catch_up(user=ben, since=since))
    assert not [m for m in notify.feed_catch_up(user=ann, since=since) if m["kind"] == "rematch_offered"]
    # a feed opened with the game in its hello does not repeat its start or the turn it showed
    hello = FeedSent.from_hello([{"id": 7, "status": "running", "version": 12}])
    assert not hello.first("game_started", {"game": 7}) and not hello.first("your_turn", {"game": 7, "version": 12})
    assert hello.first("your_turn", {"game": 7, "version": 14})
