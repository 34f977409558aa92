"""DATABASE_POOLER=pgbouncer on PostgreSQL (docs/operations.md "PgBouncer"): goat's session-level locks
take their transaction-level form. Without PgBouncer here: what each lock does on the server is read
from pg_locks. PgBouncer itself is in tests/web/test_pgbouncer_run.py."""

from __future__ import annotations

import pytest
from django.db import connection

from goat.web.api import idempotency
from goat.web.db import locks

pytestmark = pytest.mark.database


@pytest.fixture
def pooled(settings):
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL's advisory locks (the services pass of .ci/run)")
    settings.DATABASE_POOLER = "pgbouncer"


def _advisory_holders(key: int) -> list[tuple[int, bool]]:
    """(backend pid, granted) of the advisory locks on ``key`` (a bigint key is split in two halves)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pid, granted FROM pg_locks WHERE locktype = 'advisory' "
                       "AND ((classid::bigint << 32) | objid::bigint) = (%s::bigint & x'ffffffffffffffff'::bigint)",
                       [key])
        return cursor.fetchall()


@pytest.mark.django_db(transaction=True)
def test_a_task_lock_is_a_transaction_lock_on_a_connection_of_its_own(pooled):
    key = locks.key_of("pooled-test")
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        mine = cursor.fetchone()[0]
    with locks.held("pooled-test") as got:
        assert got
        holders = _advisory_holders(key)
        assert len(holders) == 1 and holders[0][0] != mine and holders[0][1]
        with locks.held("pooled-test") as again:  # another holder is refused, even in this process
            assert not again
    assert _advisory_holders(key) == []


@pytest.mark.django_db(transaction=True)
def test_an_idempotency_key_takes_no_session_lock(pooled, auth_client, monkeypatch):
    def refuse(function, lock):
        raise AssertionError(f"{function} taken behind PgBouncer")

    monkeypatch.setattr(idempotency, "_advisory", refuse)
    body = {"ruleset": "goat-classic", "seats": 2}
    first = auth_client.post("/api/games/", body, format="json", HTTP_IDEMPOTENCY_KEY="pooled-1")
    again = auth_client.post("/api/games/", body, format="json", HTTP_IDEMPOTENCY_KEY="pooled-1")
    assert first.status_code == again.status_code == 201
    assert again["Idempotent-Replayed"] == "true" and again.json() == first.json()
