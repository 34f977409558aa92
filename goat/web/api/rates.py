"""Rate counters shared by every process: the store behind every rate limit (goat.web.api.throttling, the
stream opens, the invite-code attempts).

``rate_hit(key, limit=, window=)`` counts one hit of ``key`` when fewer than ``limit`` hits were
counted in the last ``window`` seconds, and says so; else it says how long until one is free. The
check and the count are one atomic step in a store that every web process shares, so a rate holds
however many processes answer and however many requests arrive at once (a sliding log: each hit
is kept with its time until it is ``window`` old, the exact rule of DRF's throttles).

Stores:

* Redis, when the default cache is Redis (``CACHE_URL``): a sorted set per key, trimmed, counted
  and added to by one Lua script (atomic on the server), all the keys of one ``rate_hits`` in one
  call. That needs one Redis server, as the cache is (a Redis Cluster would want them in one slot).
* Otherwise (the embedded default) a SQLite file of its own, ``GOAT_RATES_PATH`` (default
  ``GOAT_DATA_DIR/rates.sqlite3``): each call is one ``BEGIN IMMEDIATE`` transaction, which SQLite
  serialises across the processes of the machine. It is not the game database, so a rate count
  never waits on a game's write lock nor holds one. A process sets the file up (WAL, the table)
  under an ``flock`` on ``GOAT_RATES_PATH.setup``. Several machines need Redis.
* Degraded: when the store fails (Redis away, the file unwritable) the counts live in this process
  for ``RETRY_SECONDS``, then the store is tried again. A rate then holds per process only, as it
  did before counts were shared (docs/reliability.md "Limits").

``rate_hits(asks)`` counts several keys in one step of the store (a request's throttles: one round
trip to Redis), each on its own as separate ``rate_hit`` calls would. ``rate_refund(hit)`` takes a
counted hit back (an invite code that turned out right is no failed attempt).
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import secrets
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

logger = logging.getLogger(__name__)

#: after the shared store failed, how long the counts stay in this process before it is tried again
RETRY_SECONDS = 2.0
#: the SQLite store drops hits older than their window every this many seconds (per process)
PURGE_SECONDS = 60.0

_LUA = """
local now, member = tonumber(ARGV[1]), ARGV[2]
local waits = {}
for i, key in ipairs(KEYS) do
  local window, limit = tonumber(ARGV[1 + 2 * i]), tonumber(ARGV[2 + 2 * i])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  if redis.call('ZCARD', key) >= limit then
    local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
    waits[i] = tostring((tonumber(oldest[2]) or now) + window - now)
  else
    redis.call('ZADD', key, now, member)
    redis.call('PEXPIRE', key, math.ceil(window * 1000))
    waits[i] = ''
  end
end
return waits
"""


#: what a rate is asked: (key, limit, window in seconds)
Ask = tuple[str, int, float]


@dataclass(frozen=True)
class Hit:
    """What ``rate_hit`` decided: ``admitted`` (and then counted), else ``wait`` seconds until a hit is free."""

    admitted: bool
    wait: float
    key: str
    member: str
    store: str


# --- Redis ------------------------------------------------------------------------------------


def _redis_location() -> str | None:
    cache = settings.CACHES.get("default", {})
    if cache.get("BACKEND") != "django.core.cache.backends.redis.RedisCache":
        return None
    location = cache.get("LOCATION")
    return location[0] if isinstance(location, (list, tuple)) else location


_redis_clients: dict[str, object] = {}
_redis_lock = threading.Lock()


def _redis(location: str):
    client = _redis_clients.get(location)
    if client is None:
        with _redis_lock:
            client = _redis_clients.get(location)
            if client is None:
                import redis

                client = redis.Redis.from_url(location, socket_connect_timeout=0.5, socket_timeout=0.5)
                client = _redis_clients[location] = (client, client.register_script(_LUA))
    return client


def _redis_key(key: str) -> str:
    prefix = settings.CACHES["default"].get("KEY_PREFIX", "")
    return f"{prefix}:rate:{key}"


def _redis_hits(location: str, asks: Sequence[Ask], now: float, member: str) -> list[float | None]:
    _client, script = _redis(location)
    args: list = [repr(now), member]
    for _key, limit, window in asks:
        args += [repr(window), limit]
    answers = script(keys=[_redis_key(key) for key, _limit, _window in asks], args=args)
    texts = [answer.decode() if isinstance(answer, bytes) else str(answer) for answer in answers]
    return [float(text) if text else None for text in texts]


def _redis_refund(location: str, key: str, member: str) -> None:
    client, _script = _redis(location)
    client.zrem(_redis_key(key), member)


# --- SQLite (the embedded default) ----------------------------------------------------------------


def rates_path() -> Path:
    return Path(getattr(settings, "GOAT_RATES_PATH", "") or Path(settings.GOAT_DATA_DIR) / "rates.sqlite3")


class _Local(threading.local):
    connection: sqlite3.Connection | None = None
    path: str = ""
    pid: int = 0


_local = _Local()
_purged_at = 0.0


def _sqlite() -> sqlite3.Connection:
    path = str(rates_path())
    if _local.connection is None or _local.path != path or _local.pid != os.getpid():
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        # One process at a time sets the file up. Turning a new file to WAL takes SQLite's exclusive
        # lock without waiting on the busy timeout, so web workers that start together on a fresh
        # file would otherwise see "database is locked" and count in their own process.
        with open(f"{path}.setup", "a") as guard:
            fcntl.flock(guard, fcntl.LOCK_EX)
            connection = sqlite3.connect(path, timeout=10, isolation_level=None, check_same_thread=False)
            try:
                connection.execute("PRAGMA journal_mode=WAL")
                connection.execute("PRAGMA synchronous=NORMAL")
                connection.execute("CREATE TABLE IF NOT EXISTS hits (key TEXT NOT NULL, at REAL NOT NULL, "
                                   "expires REAL NOT NULL, member TEXT NOT NULL)")
                connection.execute("CREATE INDEX IF NOT EXISTS hits_key_at ON hits (key, at)")
                connection.execute("CREATE INDEX IF NOT EXISTS hits_expires ON hits (expires)")
            except BaseException:
                connection.close()
                raise
        _local.connection, _local.path, _local.pid = connection, path, os.getpid()
    return _local.connection


def _sqlite_hits(asks: Sequence[Ask], now: float, member: str) -> list[float | None]:
    global _purged_at
    db = _sqlite()
    db.execute("BEGIN IMMEDIATE")  # the write lock of the file: one request's hits at a time across processes
    try:
        if now - _purged_at > PURGE_SECONDS:
            db.execute("DELETE FROM hits WHERE expires <= ?", (now,))
            _purged_at = now
        waits: list[float | None] = []
        for key, limit, window in asks:
            db.execute("DELETE FROM hits WHERE key = ? AND at <= ?", (key, now - window))
            count, oldest = db.execute("SELECT COUNT(*), MIN(at) FROM hits WHERE key = ?", (key,)).fetchone()
            if count >= limit:
                waits.append((now if oldest is None else oldest) + window - now)
                continue
            db.execute("INSERT INTO hits (key, at, expires, member) VALUES (?, ?, ?, ?)",
                       (key, now, now + window, member))
            waits.append(None)
        db.execute("COMMIT")
        return waits
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            db.execute("ROLLBACK")
        raise


def _sqlite_refund(key: str, member: str) -> None:
    _sqlite().execute("DELETE FROM hits WHERE key = ? AND member = ?", (key, member))


def rates_clear() -> None:
    """Forget every count of the shared store and of this process (tests start each with none)."""
    location = _redis_location()
    if location is not None:
        with contextlib.suppress(Exception):
            client, _script = _redis(location)
            for name in client.scan_iter(match=_redis_key("*")):
                client.delete(name)
    else:
        with contextlib.suppress(sqlite3.Error):
            _sqlite().execute("DELETE FROM hits")
    fallback.clear()


# --- in this process (degraded) --------------------------------------------------------------------


class ProcessRates:
    """The counts of this process alone: used for ``RETRY_SECONDS`` after the shared store failed."""

    def __init__(self) -> None:
        self.hits: dict[str, deque[tuple[float, str]]] = {}
        self.retry_at = 0.0
        self.lock = threading.Lock()

    def hit(self, key: str, limit: int, window: float, now: float, member: str) -> float | None:
        with self.lock:
            log = self.hits.setdefault(key, deque())
            while log and log[0][0] <= now - window:
                log.popleft()
            if len(log) >= limit:
                return log[0][0] + window - now
            log.append((now, member))
            return None

    def refund(self, key: str, member: str) -> None:
        with self.lock:
            log = self.hits.get(key)
            if log is not None:
                self.hits[key] = deque(item for item in log if item[1] != member)

    def clear(self) -> None:
        with self.lock:
            self.hits.clear()
            self.retry_at = 0.0

    def failed(self) -> None:
        with self.lock:
            if time.monotonic() >= self.retry_at:
                logger.warning("rates: the shared store failed; counting in this process for %ss", RETRY_SECONDS,
                               exc_info=True)
            self.retry_at = time.monotonic() + RETRY_SECONDS


fallback = ProcessRates()


# --- the interface ----------------------------------------------------------------------------------


def rate_hit(key: str, *, limit: int, window: float) -> Hit:
    """Count one hit of ``key`` if fewer than ``limit`` were counted in the last ``window`` seconds."""
    return rate_hits([(key, limit, window)])[0]


def rate_hits(asks: Sequence[Ask]) -> list[Hit]:
    """``rate_hit`` for each ``(key, limit, window)`` of ``asks``, in one step of the store (one round
    trip to Redis): each key is counted, or refused, on its own, as separate ``rate_hit`` calls would."""
    now = time.time()
    member = f"{now!r}:{secrets.token_hex(6)}"
    location = _redis_location()
    store = "process"
    waits: list[float | None] = []
    if asks and time.monotonic() >= fallback.retry_at:
        try:
            if location is not None:
                waits, store = _redis_hits(location, asks, now, member), "redis"
            else:
                waits, store = _sqlite_hits(asks, now, member), "sqlite"
        except Exception:  # noqa: BLE001 - whatever the store raises, the request goes on, counted here
            fallback.failed()
            store = "process"
    if store == "process":
        waits = [fallback.hit(key, limit, window, now, member) for key, limit, window in asks]
    return [Hit(admitted=wait is None, wait=max(0.0, wait or 0.0), key=key, member=member, store=store)
            for (key, _limit, _window), wait in zip(asks, waits, strict=True)]


def rate_refund(hit: Hit) -> None:
    """Take back ``hit``'s count (never raises: a count not taken back expires with its window)."""
    if not hit.admitted:
        return
    try:
        if hit.store == "redis":
            location = _redis_location()
            if location is not None:
                _redis_refund(location, hit.key, hit.member)
        elif hit.store == "sqlite":
            _sqlite_refund(hit.key, hit.member)
        else:
            fallback.refund(hit.key, hit.member)
    except Exception:  # noqa: BLE001
        logger.warning("rates: a hit was not taken back", exc_info=True)
