"""Reads from a streaming standby (``DATABASE_REPLICA_URL``; docs/operations.md "A standby for reads").

The public reads (pages, anonymous reads of the API: ended games, lists, leaderboards, tournaments,
profiles) go to the standby; everything a player acts on, and every running game, reads the primary.

* ``public_read`` marks a view (``PublicReadView`` a DRF view) as one whose GET/HEAD may read the
  standby. For a request without credentials (no ``Authorization`` header, no session cookie) it sets
  a request-scoped context in which ``ReplicaRouter`` sends every ORM read to the standby; a signed-in
  visitor reads the primary, so they always see what they have just written. Writes always go to the
  primary (the router), whatever the context.
* Bounded staleness: the standby is used only while its replay lag is at most
  ``GOAT_REPLICA_MAX_LAG_SECONDS``. The lag is measured on the standby (0 when it has replayed all the
  WAL it received, else the age of the last transaction it replayed) at most once every
  ``GOAT_REPLICA_CHECK_SECONDS`` per process; a page is thus at most the sum of the two behind the
  primary.
* Faults: a public read that fails because the standby is away (a refused connection, a dropped one)
  is answered again from the primary, and the standby is left out until the next check finds it; one
  that fails because the primary is away (a signed-in visitor, a running game) is answered again from
  the standby. A user sees no error as long as one side answers. Writes with the primary away answer
  503 ``service_unavailable`` with ``Retry-After`` (goat.web.api.problems), as without a standby.

With no ``DATABASE_REPLICA_URL`` there is no ``replica`` database and nothing here does anything.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.utils import DatabaseError
from django.http import HttpRequest, HttpResponse

logger = logging.getLogger(__name__)

REPLICA = "replica"
SAFE_METHODS = frozenset({"GET", "HEAD"})

#: where the ORM reads in this request (or task): None (the primary), STANDBY (the standby, a running
#: game the primary) or STANDBY_ONLY (the primary is away: everything from the standby)
STANDBY, STANDBY_ONLY = "standby", "standby-only"
_reads: ContextVar[str | None] = ContextVar("goat_reads", default=None)

#: the lag on the standby: 0 when it has replayed all it received, else the age of its last replayed
#: transaction (which only grows while it is behind: an idle primary sends nothing to replay)
LAG_SQL = (
    "SELECT pg_is_in_recovery(), CASE WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0 "
    "ELSE COALESCE(EXTRACT(EPOCH FROM clock_timestamp() - pg_last_xact_replay_timestamp()), 0) END"
)


def configured() -> bool:
    return REPLICA in settings.DATABASES


def reading_replica() -> bool:
    """Whether this request's ORM reads go to the standby."""
    return _reads.get() is not None


@contextlib.contextmanager
def reads_from(mode: str | None) -> Iterator[None]:
    """Within the block, the ORM reads the primary (None), the standby (STANDBY) or the standby even
    where the primary is wanted (STANDBY_ONLY: the primary is away)."""
    token = _reads.set(mode)
    try:
        yield
    finally:
        _reads.reset(token)


def read_primary() -> None:
    """The rest of this request reads the primary (a running game: docs/api.md), unless it is away."""
    if _reads.get() == STANDBY:
        _reads.set(None)


class ReplicaRouter:
    """Django's database router: reads go where the request's context says, writes and migrations to
    the primary. Outside a public read (commands, tasks, a player's requests) everything is the primary."""

    def db_for_read(self, model, **hints) -> str | None:
        return REPLICA if _reads.get() is not None else None

    def db_for_write(self, model, **hints) -> str:
        return DEFAULT_DB_ALIAS

    def allow_relation(self, obj1, obj2, **hints) -> bool:
        return True  # one database, two copies of it

    def allow_migrate(self, db: str, app_label: str, **hints) -> bool:
        return db != REPLICA  # the standby replays the primary's schema; it cannot be written


# --- the standby's state, checked at most once per GOAT_REPLICA_CHECK_SECONDS per process --------


@dataclass(frozen=True)
class Standby:
    reachable: bool
    lag_seconds: float | None  # None when unreachable
    checked_at: float

    @property
    def usable(self) -> bool:
        return self.reachable and self.lag_seconds is not None and self.lag_seconds <= max_lag()


_checked: Standby | None = None
_check_lock = threading.Lock()
#: an unreachable standby is tried again after this many seconds (or GOAT_REPLICA_CHECK_SECONDS if
#: longer): a standby that drops packets costs the request that tries it up to its connect timeout
UNREACHABLE_RETRY_SECONDS = 5.0


def max_lag() -> float:
    return settings.GOAT_REPLICA_MAX_LAG_SECONDS


def standby(*, fresh: bool = False) -> Standby:
    """The standby's state as last checked (checked now if that was more than GOAT_REPLICA_CHECK_SECONDS
    ago, UNREACHABLE_RETRY_SECONDS for one found unreachable, or ``fresh``). One thread checks; the
    others use the last answer meanwhile."""
    global _checked
    now = time.monotonic()
    last = _checked
    interval = settings.GOAT_REPLICA_CHECK_SECONDS
    if last is not None and not last.reachable:
        interval = max(interval, UNREACHABLE_RETRY_SECONDS)
    if not fresh and last is not None and now - last.checked_at < interval:
        return last
    if not _check_lock.acquire(blocking=fresh or last is None):
        return last  # type: ignore[return-value]  # another thread is checking: the last answer meanwhile
    try:
        _checked = _measure()
        return _checked
    finally:
        _check_lock.release()


def forget() -> None:
    """Drop the last check (tests)."""
    global _checked
    _checked = None


def _found_unreachable() -> None:
    """A request found the standby away: no public read tries it until the next check."""
    global _checked
    _checked = Standby(reachable=False, lag_seconds=None, checked_at=time.monotonic())


def _measure() -> Standby:
    conn = connections[REPLICA]
    try:
        with conn.cursor() as cursor:
            cursor.execute(LAG_SQL)
            in_recovery, lag = cursor.fetchone()
    except DatabaseError as exc:
        logger.warning("standby unreachable: reads go to the primary (%s)", exc)
        _close(REPLICA)
        return Standby(reachable=False, lag_seconds=None, checked_at=time.monotonic())
    lag = float(lag) if in_recovery else 0.0  # promoted: it is a primary, nothing to wait for
    if lag > max_lag():
        logger.info("standby %.1f s behind (more than %s s): reads go to the primary", lag, max_lag())
    return Standby(reachable=True, lag_seconds=lag, checked_at=time.monotonic())


def reachable(alias: str) -> bool:
    """Whether database ``alias`` answers now (a query on this thread's connection to it)."""
    try:
        with connections[alias].cursor() as cursor:
            cursor.execute("SELECT 1")
            return cursor.fetchone()[0] == 1
    except DatabaseError:
        _close(alias)
        return False


def _close(alias: str) -> None:
    """Drop this thread's connection to ``alias`` (broken: the next query opens a new one)."""
    try:
        connections[alias].close()
    except DatabaseError:
        pass


# --- views -------------------------------------------------------------------------------------


def _anonymous(request: HttpRequest) -> bool:
    return "HTTP_AUTHORIZATION" not in request.META and settings.SESSION_COOKIE_NAME not in request.COOKIES


def _unavailable(outcome: HttpResponse | BaseException) -> bool:
    """Whether a view's outcome says a database was away (goat.web.api.problems' 503 or its exception)."""
    from goat.web.api.problems import database_unavailable

    if isinstance(outcome, BaseException):
        return database_unavailable(outcome)
    return outcome.status_code == 503 and outcome.get("Content-Type") == "application/problem+json"


def public_read(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Mark ``view`` a public read: see the module's docstring."""

    @functools.wraps(view)
    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if request.method not in SAFE_METHODS or not configured():
            return view(request, *args, **kwargs)

        def run(mode: str | None) -> HttpResponse | BaseException:
            with reads_from(mode):
                try:
                    return view(request, *args, **kwargs)
                except DatabaseError as exc:
                    return exc

        first = STANDBY if _anonymous(request) and standby().usable else None
        outcome = run(first)
        if _unavailable(outcome):
            # Which side failed: only the standby is probed (a primary behind PgBouncer would hold the
            # probe for query_wait_timeout); with the standby answering, it was the primary.
            if first == STANDBY and not reachable(REPLICA):
                _found_unreachable()
                logger.warning("standby away on %s: answered from the primary", request.path)
                outcome = run(None)
            elif standby(fresh=True).reachable:
                logger.warning("primary away on %s: answered from the standby", request.path)
                outcome = run(STANDBY_ONLY)
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    wrapped.public_read = True  # type: ignore[attr-defined]
    return wrapped


class PublicReadView:
    """A DRF view whose GET/HEAD is a public read (``public_read``); put it first among the bases."""

    @classmethod
    def as_view(cls, **initkwargs):
        return public_read(super().as_view(**initkwargs))  # type: ignore[misc]
