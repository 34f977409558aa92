"""``Idempotency-Key`` on POSTs that create (docs/api.md "Idempotency-Key").

A retry with the same key and the same request by the same user gets the original status and body,
byte for byte, without a second effect; the same key with another request is 422
``idempotency_key_reused``; while the first is still being processed, 409 ``request_in_progress`` with ``Retry-After``
(``retry_after``: a second for a young claim, the time until a dead request's claim is stale for an
old one).

How: the key is claimed first (a row inserted and committed on its own, the unique constraint on
``(user, key)`` deciding between racing duplicates). The work and the storing of its answer then
happen in ONE transaction, so either both are kept or neither: a crash mid-way leaves a claim with
no answer and no effect.

A claim dies with its request. On PostgreSQL the request holds a session advisory lock on the key
(``pg_try_advisory_lock``, taken before the claim row is written, released when the answer is
stored): a request that dies (a killed worker) loses its connection, and PostgreSQL releases the
lock at once. A retry that finds an unanswered claim and can take the lock knows its owner is gone
and takes the claim over; one that cannot is 409 ``request_in_progress`` with ``Retry-After: 1``.
On SQLite (one machine, no such lock), and behind PgBouncer in transaction mode (``DATABASE_POOLER``:
a session lock could be taken on one server connection and released on another), a dead request's
claim is taken over once it is ``stale_after()`` old.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from datetime import timedelta

from django.conf import settings
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.http import HttpResponse
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from goat.web.errors import WebError
from goat.web.models import IdempotencyRecord

HEADER = "Idempotency-Key"
MAX_KEY_LENGTH = 255
#: an unanswered claim older than stale_after() belongs to a request that died: its transaction
#: rolled back (settings.GOAT_IDEMPOTENCY_STALE_SECONDS: longer than any request may take)

KEY_REUSED = gettext_lazy("This Idempotency-Key was used for a different request.")
IN_PROGRESS = gettext_lazy("A request with this Idempotency-Key is still being processed.")


def stale_after() -> timedelta:
    return timedelta(seconds=settings.GOAT_IDEMPOTENCY_STALE_SECONDS)


#: a claim younger than this belongs to a request that is probably still running: retry in a second
LIVE_CLAIM = timedelta(seconds=5)


def retry_after(claimed_at) -> int:
    """Seconds a client should wait before sending a key that is still claimed again: 1 while the
    claim is young (its request is likely about to answer); once it is older, its request has most
    likely died (a killed worker) and the claim is taken over when stale: the seconds until then."""
    age = timezone.now() - claimed_at
    if age < LIVE_CLAIM:
        return 1
    return max(1, math.ceil((stale_after() - age).total_seconds()))


def retention() -> timedelta:
    """How long a stored answer is kept (settings.GOAT_IDEMPOTENCY_HOURS, at least 24 h)."""
    return timedelta(hours=settings.GOAT_IDEMPOTENCY_HOURS)


def _fingerprint(request: Request) -> str:
    digest = hashlib.sha256()
    digest.update(request.method.encode())
    digest.update(b"\0")
    digest.update(request.path.encode())
    digest.update(b"\0")
    digest.update(request._request.body)  # read before DRF parses it (see ``idempotent``)
    return digest.hexdigest()


def _lock_id(user, key: str) -> int:
    """The advisory lock of ``user``'s ``key``: 64 bits of a hash of both."""
    digest = hashlib.sha256(f"goat-idempotency\0{user.pk}\0{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def _advisory(function: str, lock: int) -> bool:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {function}(%s)", [lock])
        return bool(cursor.fetchone()[0])


def _unlock(lock: int) -> None:
    """Release the key's lock; a connection that broke has released it already."""
    try:
        _advisory("pg_advisory_unlock", lock)
    except DatabaseError:
        pass


def _replay(existing: IdempotencyRecord) -> HttpResponse:
    response = HttpResponse(bytes(existing.body or b""), status=existing.status_code,
                            content_type=existing.content_type or None)
    response["Idempotent-Replayed"] = "true"
    return response


def _claim_locked(user, key: str, fingerprint: str, lock: int) -> IdempotencyRecord | HttpResponse:
    """PostgreSQL: claim ``key`` under its advisory lock (kept, on success, until the answer is stored;
    released here otherwise). An unanswered claim whose lock is free belongs to a request that died."""
    if not _advisory("pg_try_advisory_lock", lock):
        existing = IdempotencyRecord.objects.filter(user=user, key=key).first()
        if existing is not None and existing.fingerprint != fingerprint:
            raise WebError.IDEMPOTENCY_KEY_REUSED(KEY_REUSED)
        if existing is not None and existing.completed_at is not None:
            return _replay(existing)
        raise WebError.REQUEST_IN_PROGRESS(IN_PROGRESS,
                           headers={"Retry-After": "1"})
    try:
        existing = IdempotencyRecord.objects.filter(user=user, key=key).first()
        if existing is not None:
            if existing.created_at < timezone.now() - retention():
                existing.delete()
            elif existing.fingerprint != fingerprint:
                raise WebError.IDEMPOTENCY_KEY_REUSED(KEY_REUSED)
            elif existing.completed_at is not None:
                _unlock(lock)
                return _replay(existing)
            else:  # nobody holds its lock: the request that claimed it died; take it over
                existing.delete()
        with transaction.atomic():
            return IdempotencyRecord.objects.create(user=user, key=key, fingerprint=fingerprint)
    except BaseException:
        _unlock(lock)
        raise


def _claim(user, key: str, fingerprint: str) -> IdempotencyRecord | HttpResponse | None:
    """Claim ``key``; or the stored answer of an earlier identical request; raise on a conflict."""
    for _ in range(3):
        try:
            with transaction.atomic():
                return IdempotencyRecord.objects.create(user=user, key=key, fingerprint=fingerprint)
        except IntegrityError:
            pass
        existing = IdempotencyRecord.objects.filter(user=user, key=key).first()
        if existing is None:
            continue  # deleted by the cleanup in between: claim again
        if existing.created_at < timezone.now() - retention():
            existing.delete()
            continue
        if existing.fingerprint != fingerprint:
            raise WebError.IDEMPOTENCY_KEY_REUSED(gettext("This Idempotency-Key was used for a different request."))
        if existing.completed_at is not None:
            return _replay(existing)
        if existing.created_at < timezone.now() - stale_after():
            IdempotencyRecord.objects.filter(pk=existing.pk, completed_at__isnull=True).delete()
            continue
        raise WebError.REQUEST_IN_PROGRESS(gettext("A request with this Idempotency-Key is still being processed."),
                           headers={"Retry-After": str(retry_after(existing.created_at))})
    raise WebError.REQUEST_IN_PROGRESS(gettext("The Idempotency-Key is contended; retry."),
                       headers={"Retry-After": "1"})


def idempotent(view: APIView, request: Request, handler: Callable[[], Response]) -> Response | HttpResponse:
    """Run ``handler`` (which calls one service) at most once per ``Idempotency-Key``.

    Call it before touching ``request.data``: the body is fingerprinted as raw bytes first.
    """
    key = request.headers.get(HEADER)
    if key is None:
        return handler()
    if not key or len(key) > MAX_KEY_LENGTH:
        raise WebError.INVALID_IDEMPOTENCY_KEY(
            gettext("Idempotency-Key must be 1 to %(max)s characters.") % {"max": MAX_KEY_LENGTH})
    session_locks = connection.vendor == "postgresql" and settings.DATABASE_POOLER != "pgbouncer"
    lock = _lock_id(request.user, key) if session_locks else None
    if lock is not None:
        claimed = _claim_locked(request.user, key, _fingerprint(request), lock)
    else:
        claimed = _claim(request.user, key, _fingerprint(request))
    if not isinstance(claimed, IdempotencyRecord):
        return claimed
    try:
        with transaction.atomic():
            try:
                response = handler()
            except Exception as exc:  # noqa: BLE001 - rendered below exactly as the API would
                response = view.handle_exception(exc)
                if response.status_code >= 500:
                    raise
            response = view.finalize_response(request, response)
            response.render()
            IdempotencyRecord.objects.filter(pk=claimed.pk).update(
                status_code=response.status_code,
                content_type=response.get("Content-Type", ""),
                body=response.content,
                completed_at=timezone.now(),
            )
    except BaseException:
        IdempotencyRecord.objects.filter(pk=claimed.pk, completed_at__isnull=True).delete()
        raise
    finally:
        if lock is not None:
            _unlock(lock)
    return response


def idempotency_records_purge(*, now=None) -> int:
    """Forget answers older than the retention (a periodic task calls this)."""
    now = now or timezone.now()
    deleted, _ = IdempotencyRecord.objects.filter(created_at__lt=now - retention()).delete()
    return deleted
