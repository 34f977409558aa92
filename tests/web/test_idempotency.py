"""Idempotency-Key on the games POSTs (docs/api.md "Idempotency-Key"): replay, reuse, in progress."""

from __future__ import annotations

import threading
from contextlib import contextmanager

import pytest
from django.db import connection, connections

from apitest import token_client
from goat.engine.tiles import tile_str
from goat.games import eventstore
from goat.games.models import Game, GameEvent
from goat.web.models import IdempotencyRecord

pytestmark = pytest.mark.django_db


@pytest.fixture
def two(django_user_model):
    return [(u, token_client(u)) for u in (django_user_model.objects.create_user(username=n, password="x" * 12)
                                           for n in ("ann", "ben"))]


def running_game(two) -> int:
    gid = two[0][1].post("/api/games/", {"ruleset": "goat-classic", "seats": 2}, format="json").json()["id"]
    assert two[1][1].post(f"/api/games/{gid}/join/", {}, format="json").status_code == 200
    return gid


def key(k):
    return {"HTTP_IDEMPOTENCY_KEY": k}


ON_POSTGRES = connection.vendor == "postgresql"


@contextmanager
def held_by_a_live_request(user, k: str):
    """On PostgreSQL a request in progress holds its key's advisory lock on its own connection:
    hold it from another connection (a thread's) for the duration of the block."""
    if not ON_POSTGRES:
        yield
        return
    from goat.web.api.idempotency import _lock_id

    locked, release = threading.Event(), threading.Event()

    def hold():
        try:
            with connections["default"].cursor() as cursor:
                cursor.execute("SELECT pg_advisory_lock(%s)", [_lock_id(user, k)])
                locked.set()
                release.wait(30)
                cursor.execute("SELECT pg_advisory_unlock(%s)", [_lock_id(user, k)])
        finally:
            connections.close_all()

    thread = threading.Thread(target=hold)
    thread.start()
    assert locked.wait(10)
    try:
        yield
    finally:
        release.set()
        thread.join(10)


def test_create_retried_with_the_same_key_creates_one_game(two):
    client = two[0][1]
    body = {"ruleset": "goat-classic", "seats": 2}

    first = client.post("/api/games/", body, format="json", **key("create-1"))
    again = client.post("/api/games/", body, format="json", **key("create-1"))

    assert first.status_code == again.status_code == 201
    assert first.content == again.content
    assert again["Idempotent-Replayed"] == "true"
    assert Game.objects.count() == 1
    # Another player may use the same key for their own request.
    assert two[1][1].post("/api/games/", body, format="json", **key("create-1")).status_code == 201
    assert Game.objects.count() == 2


def test_a_move_retried_with_the_same_key_is_played_once(two):
    gid = running_game(two)
    state = eventstore.state_load(Game.objects.get(pk=gid))
    client = two[state.turn][1]
    body = {"tile": tile_str(state.table.must_lead)}

    first = client.post(f"/api/games/{gid}/moves/", body, format="json", **key("m-1"))
    count = GameEvent.objects.filter(game_id=gid).count()
    again = client.post(f"/api/games/{gid}/moves/", body, format="json", **key("m-1"))

    assert first.status_code == again.status_code == 201
    assert first.content == again.content
    assert GameEvent.objects.filter(game_id=gid).count() == count


def test_a_join_retried_with_the_same_key_answers_the_same(two):
    gid = two[0][1].post("/api/games/", {"ruleset": "goat-classic", "seats": 2}, format="json").json()["id"]

    first = two[1][1].post(f"/api/games/{gid}/join/", {}, format="json", **key("j"))
    again = two[1][1].post(f"/api/games/{gid}/join/", {}, format="json", **key("j"))

    assert first.status_code == again.status_code == 200 and first.content == again.content


def test_a_refused_move_is_stored_and_replayed_identically(two):
    gid = running_game(two)
    state = eventstore.state_load(Game.objects.get(pk=gid))
    idle = 1 - state.turn
    body = {"tile": tile_str(state.hand(idle)[0])}

    first = two[idle][1].post(f"/api/games/{gid}/moves/", body, format="json", **key("refused"))
    again = two[idle][1].post(f"/api/games/{gid}/moves/", body, format="json", **key("refused"))

    assert first.status_code == again.status_code == 422
    assert first.json()["code"] == "not_your_turn"
    assert first.content == again.content
    assert again["Content-Type"] == "application/problem+json"
    assert GameEvent.objects.filter(game_id=gid).count() == state.version


def test_the_same_key_with_another_body_is_422(two):
    client = two[0][1]
    created = client.post("/api/games/", {"ruleset": "goat-classic", "seats": 2}, format="json", **key("k"))
    assert created.status_code == 201

    other = client.post("/api/games/", {"ruleset": "goat-classic", "seats": 3}, format="json", **key("k"))

    assert other.status_code == 422 and other.json()["code"] == "idempotency_key_reused"
    assert Game.objects.count() == 1


def test_a_request_still_in_progress_is_409(two):
    user, client = two[0]
    gid = running_game(two)
    IdempotencyRecord.objects.create(user=user, key="busy", fingerprint="will-not-matter")
    # Same fingerprint as the request below: compute it by letting a first request claim another key.
    body = {"tile": "1-1"}
    first = client.post(f"/api/games/{gid}/moves/", body, format="json", **key("probe"))
    fingerprint = IdempotencyRecord.objects.get(user=user, key="probe").fingerprint
    IdempotencyRecord.objects.filter(key="busy").update(fingerprint=fingerprint)
    assert first.status_code in (201, 422)

    with held_by_a_live_request(user, "busy"):
        response = client.post(f"/api/games/{gid}/moves/", body, format="json", **key("busy"))

    assert response.status_code == 409 and response.json()["code"] == "request_in_progress"
    assert response["Retry-After"] == "1"


@pytest.mark.database  # advisory locks: PostgreSQL (SQLite waits for the stale time, below)
def test_a_claim_whose_request_died_is_taken_over_at_once_on_postgresql(two):
    """No connection holds the key's lock (its request died with it): a retry takes the claim over
    at once, whatever its age, and the request is done once."""
    user, client = two[0]
    body = {"ruleset": "goat-classic", "seats": 2}
    assert client.post("/api/games/", body, format="json", **key("probe")).status_code == 201
    fingerprint = IdempotencyRecord.objects.get(user=user, key="probe").fingerprint
    IdempotencyRecord.objects.create(user=user, key="dead", fingerprint=fingerprint)

    first = client.post("/api/games/", body, format="json", **key("dead"))
    again = client.post("/api/games/", body, format="json", **key("dead"))

    assert first.status_code == 201 and again.status_code == 201
    assert again["Idempotent-Replayed"] == "true" and again.content == first.content
    assert Game.objects.count() == 2


def test_an_over_long_key_is_400(two):
    response = two[0][1].post("/api/games/", {"ruleset": "goat-classic", "seats": 2}, format="json",
                              **key("k" * 256))

    assert response.status_code == 400 and response.json()["code"] == "invalid_idempotency_key"
    assert not Game.objects.exists()


@pytest.mark.skipif(ON_POSTGRES, reason="SQLite: PostgreSQL takes a dead request's claim over at once (above)")
def test_a_claim_left_by_a_dead_request_says_when_it_can_be_taken_over(two, settings):
    """A killed worker leaves its claim unanswered: the 409 says how long until a retry takes it over."""
    from datetime import timedelta

    from django.utils import timezone

    settings.GOAT_IDEMPOTENCY_STALE_SECONDS = 60
    user, client = two[0]
    body = {"ruleset": "goat-classic", "seats": 2}
    assert client.post("/api/games/", body, format="json", **key("probe")).status_code == 201
    fingerprint = IdempotencyRecord.objects.get(user=user, key="probe").fingerprint
    record = IdempotencyRecord.objects.create(user=user, key="dead", fingerprint=fingerprint)
    IdempotencyRecord.objects.filter(pk=record.pk).update(created_at=timezone.now() - timedelta(seconds=40))

    response = client.post("/api/games/", body, format="json", **key("dead"))

    assert response.status_code == 409 and response.json()["code"] == "request_in_progress"
    assert 19 <= int(response["Retry-After"]) <= 20
    IdempotencyRecord.objects.filter(pk=record.pk).update(created_at=timezone.now() - timedelta(seconds=61))
    assert client.post("/api/games/", body, format="json", **key("dead")).status_code == 201  # taken over
