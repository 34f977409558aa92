"""Faults heal by themselves (issue 31), PostgreSQL + Redis pass: real gunicorn processes.

- An Idempotency-Key claim dies with its request: a move whose gunicorn worker is killed (SIGKILL)
  mid-request leaves its claim, but the claim's advisory lock went with the worker's connection, so
  the client's resend gets through at once (not after GOAT_IDEMPOTENCY_STALE_SECONDS) while the
  game is still running, and the move is played exactly once.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import threading
import time
import uuid

import pytest
from django.db import connection, transaction
from rel_processes import gunicorn
from rest_framework.authtoken.models import Token

from goat.engine.tiles import tile_str
from goat.games import eventstore, services
from goat.games.models import Game, GameEvent
from goat.serve.supervisor import children_of
from goat.web.models import IdempotencyRecord
from testkit import free_port

pytestmark = [pytest.mark.realprocess, pytest.mark.database, pytest.mark.django_db(transaction=True)]


def _post(port: int, path: str, body, headers: dict[str, str], timeout: float = 30):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("POST", path, body=json.dumps(body), headers={"Content-Type": "application/json", **headers})
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, json.loads(response.read() or b"null")
    finally:
        conn.close()


def test_a_resend_gets_through_at_once_after_the_worker_holding_its_claim_was_killed(tmp_path, django_user_model):
    ann = django_user_model.objects.create_user(username="ann", password="x" * 12)
    ben = django_user_model.objects.create_user(username="ben", password="x" * 12)
    game = services.game_create(player=ann, ruleset="goat-classic", seats=2, options={"move_time": 0}).game
    services.game_join(game_id=game.pk, player=ben)
    state = eventstore.state_load(Game.objects.get(pk=game.pk))
    mover = (ann, ben)[state.turn]
    before = state.version
    headers = {"Authorization": f"Token {Token.objects.create(user=mover).key}",
               "Idempotency-Key": f"move-{uuid.uuid4()}"}
    path, body = f"/api/games/{game.pk}/moves/", {"tile": tile_str(state.table.must_lead)}

    port = free_port()
    # one worker; the stale time as in production: only the lock can free the claim in time
    server = gunicorn(tmp_path, port, workers=1, threads=2, GOAT_IDEMPOTENCY_STALE_SECONDS="60")
    try:
        first: list = []
        with transaction.atomic():  # the game row locked: the move waits inside its command, claim made
            with connection.cursor() as cursor:
                cursor.execute("SELECT id FROM goat_game WHERE id = %s FOR UPDATE", [game.pk])
            sender = threading.Thread(target=lambda: first.append(_try_post(port, path, body, headers)))
            sender.start()
            deadline = time.monotonic() + 20
            while not IdempotencyRecord.objects.filter(key=headers["Idempotency-Key"]).exists():
                assert time.monotonic() < deadline, "the move never claimed its key"
                time.sleep(0.05)
            time.sleep(0.3)  # the move is now waiting for the row lock, in its transaction
            workers = children_of(server.pid)
            assert len(workers) == 1
            os.kill(workers[0], signal.SIGKILL)
            sender.join(10)
        assert first and isinstance(first[0], Exception), first  # the client saw its request cut off
        killed = time.monotonic()
        # the client resends, as docs/api.md says; the claim must not hold it back
        while True:
            status, answer_headers, answer = _try_post_answer(port, path, body, headers)
            if status != 409 and status is not None:
                break
            assert time.monotonic() - killed < 10, f"the dead request's claim held the key: {status} {answer}"
            time.sleep(0.2)
        recovered = time.monotonic() - killed
        assert status == 201, answer
        game.refresh_from_db()
        assert game.status == "running"
        assert GameEvent.objects.filter(game=game, seq=before + 1, type="tile_played").count() == 1
        # and a resend after that is the stored answer, not a second move
        status, answer_headers, again = _post(port, path, body, headers)
        assert status == 201 and answer_headers.get("idempotent-replayed") == "true" and again == answer
        print(json.dumps({"resend_through_after_worker_killed_s": round(recovered, 2)}))
    finally:
        server.stop()


def _try_post(port, path, body, headers):
    try:
        return _post(port, path, body, headers)
    except (OSError, http.client.HTTPException) as exc:
        return exc


def _try_post_answer(port, path, body, headers):
    """(status, headers, body), or (None, {}, the error) while the new worker is not up yet."""
    try:
        return _post(port, path, body, headers, timeout=10)
    except (OSError, http.client.HTTPException) as exc:
        return None, {}, exc
