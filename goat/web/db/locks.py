"""A short, non-blocking lock across every process of a deployment: one periodic task at a time.

Each beat (one per node is allowed) sends every periodic task, so two copies of a task can run at
once. The tasks are idempotent, so that is correct; where it would waste work (two ticks deciding the
same timeouts, two catch-ups applying the same projection and rolling one back) the task runs inside
``held(name)`` and a copy that finds the lock taken does nothing: the one that holds it covers it.

* PostgreSQL: a session-level advisory lock (``pg_try_advisory_lock``) on the task's connection,
  released at the end of the block, and by PostgreSQL if the process dies (its session ends).
* PostgreSQL behind PgBouncer in transaction mode (``DATABASE_POOLER=pgbouncer``), where a session lock
  would be taken on one server connection and released on another: a transaction-level advisory lock
  (``pg_try_advisory_xact_lock``) in a transaction held open, for the block, on a connection of its
  own (the block's queries go on as usual on the task's connection). The pooler keeps that transaction
  on one server connection; the lock ends with it, at the end of the block or when the process dies
  (its client connection closes and PgBouncer rolls the transaction back). It holds one server
  connection of the pool while the block runs.
* SQLite (one machine by nature): an exclusive ``flock`` on a file in ``GOAT_DATA_DIR/locks/``,
  released at the end of the block or when the process dies.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import logging
import os
from collections.abc import Iterator

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connection, connections

logger = logging.getLogger(__name__)


def key_of(name: str) -> int:
    """The advisory lock key of ``name``: a stable signed 64-bit number (the same in every process)."""
    return int.from_bytes(hashlib.blake2b(f"goat:{name}".encode(), digest_size=8).digest(), "big", signed=True)


@contextlib.contextmanager
def held(name: str) -> Iterator[bool]:
    """Try to take the lock ``name`` without waiting; yield whether this process has it (then it is
    released at the end of the block). A caller that gets False skips its work."""
    if connection.vendor == "postgresql" and settings.DATABASE_POOLER == "pgbouncer":
        with _advisory_in_transaction(name) as got:
            yield got
    elif connection.vendor == "postgresql":
        with _advisory(name) as got:
            yield got
    else:
        with _file_lock(name) as got:
            yield got


@contextlib.contextmanager
def _advisory(name: str) -> Iterator[bool]:
    key = key_of(name)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [key])
        got = bool(cursor.fetchone()[0])
    if not got:
        logger.debug("lock %s: held elsewhere, skipping", name)
        yield False
        return
    try:
        yield True
    finally:
        # on the same connection as the lock (a session lock): before it can go back to a pool
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [key])
        except Exception:  # the connection broke: its session, and so the lock, is gone with it
            logger.warning("lock %s: not released (connection lost)", name, exc_info=True)
            connection.close()


@contextlib.contextmanager
def _advisory_in_transaction(name: str) -> Iterator[bool]:
    own = connections.create_connection(DEFAULT_DB_ALIAS)  # a connection of its own, closed below
    try:
        own.set_autocommit(False)
        with own.cursor() as cursor:
            cursor.execute("SELECT pg_try_advisory_xact_lock(%s)", [key_of(name)])
            got = bool(cursor.fetchone()[0])
        if not got:
            logger.debug("lock %s: held elsewhere, skipping", name)
        yield got
    finally:
        try:
            own.rollback()  # ends the transaction, and the lock with it
        except Exception:  # the connection broke: its transaction, and so the lock, is gone with it
            logger.warning("lock %s: transaction not ended (connection lost)", name, exc_info=True)
        finally:
            own.close()


@contextlib.contextmanager
def _file_lock(name: str) -> Iterator[bool]:
    directory = settings.GOAT_DATA_DIR / "locks"
    directory.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(directory / f"{hashlib.sha1(name.encode()).hexdigest()[:16]}.lock", os.O_RDWR | os.O_CREAT,
                         0o600)
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            logger.debug("lock %s: held elsewhere, skipping", name)
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(descriptor, fcntl.LOCK_UN)
    finally:
        os.close(descriptor)


#: the PostgreSQL advisory lock under which migrations run (``migrations_lock``): the bytes "goat-mig"
#: as a signed 64-bit number, fixed so that every node and version of goat takes the same one
MIGRATIONS_LOCK_KEY = 0x676F61742D6D6967  # 7453283059927705959
_migrations_lock_held = False


@contextlib.contextmanager
def migrations_lock(alias: str = "default") -> Iterator[None]:
    """Wait for, then hold, the migrations lock of database ``alias`` (PostgreSQL; elsewhere nothing).

    Nodes started together each run ``migrate``: the first to get the lock migrates, the others wait
    here, then find nothing left to do. The lock is taken on a connection of its own (a session lock,
    released at the end of the block, and by PostgreSQL if the process dies); the block runs on the
    usual connections. Re-entrant within the process: ``manage.py run`` holds it around ``migrate``,
    which takes it too.
    """
    global _migrations_lock_held
    if _migrations_lock_held or connections[alias].vendor != "postgresql":
        yield
        return
    holder = connections.create_connection(alias)
    try:
        with holder.cursor() as cursor:
            cursor.execute("SELECT pg_try_advisory_lock(%s)", [MIGRATIONS_LOCK_KEY])
            if not cursor.fetchone()[0]:
                logger.warning("another node is migrating database %r: waiting for it", alias)
                cursor.execute("SELECT pg_advisory_lock(%s)", [MIGRATIONS_LOCK_KEY])
        _migrations_lock_held = True
        try:
            yield
        finally:
            _migrations_lock_held = False
            with holder.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [MIGRATIONS_LOCK_KEY])
    finally:
        holder.close()
