"""The fan-out channel of live delivery: publish after commit, wait in async streams.

A message is a small JSON object sent on a named channel (``game:<id>`` carries ``{"version"}`` and
a running game's update, ``game:<id>:player:<id>`` what only that seat sees of it, ``player:<id>`` a
feed event); ``publish_all`` sends several in one payload. ``publish`` is
synchronous and cheap, called from ``transaction.on_commit`` in any process (web worker, Celery
worker, beat); ``listen`` is used by async views and never touches the database: a process keeps
ONE subscription to the backend and fans each message out to the in-process listeners of its
channel (a small ``Listener`` each; their keep-alive timeouts share one timer per half second).

Backends (``GOAT_LIVE_URL``; docs/architecture.md "Live delivery" compares them):

* ``redis://...`` (production; the default when the Celery broker is Redis): ``PUBLISH`` on
  ``<prefix><channel>``; each web process holds one redis-py asyncio connection ``PSUBSCRIBE``d to
  ``<prefix>*``.
* ``local`` (the embedded default, one machine, no server): every process that streams binds a
  Unix datagram socket in ``GOAT_DATA_DIR/live/``; ``publish`` sends the message to each socket
  there (a socket whose process is gone refuses it and is removed). Delivery is a kernel copy, no
  polling.

Catch-up subscriptions: a message published while a process's subscription is down (Redis
restarting, the connection lost) reaches nobody. So whenever the subscription is (re)established,
every listener of the process gets a ``RESYNC`` message (``{"resync": <generation>}``) once the
backend has confirmed it, and a stream that gets it reads what it missed from its source of truth
(the event store, after the last version it sent), exactly as a client's ``Last-Event-ID`` would:
nothing published after the confirmation is missed, nothing committed before it is unread.
docs/architecture.md "Live delivery" says how a stream uses it. ``listen`` does not wait for a
subscription that is down: the stream starts from the database and catches up on ``RESYNC``.

Per-token stream counts (``stream_claim``/``stream_release``) are kept by the same backend, so the
limit holds across processes: a Redis sorted set per token, or lock-protected files in the data
directory. A claim expires unless it is refreshed (each process refreshes all its streams' claims in
one batch every REFRESH_SECONDS), so a killed process leaks none. When Redis is away a claim is
counted in the process alone (the limit then holds per process), and when the subscription comes
back the process writes every claim its open streams hold back into Redis (a Redis restart loses
them), so the limit holds across processes again.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import json
import logging
import math
import os
import secrets
import socket
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from django.conf import settings
from rest_framework.utils.encoders import JSONEncoder

from goat.web.observe import metrics

logger = logging.getLogger(__name__)

#: a claim not refreshed for this long is dropped (each process refreshes its streams' claims together)
CLAIM_TTL_SECONDS = 60
#: how often a process refreshes the claims of its open streams
REFRESH_SECONDS = CLAIM_TTL_SECONDS / 3
#: the timers of listeners due within one such slot are one timer
TIMER_GRAIN = 0.5
#: waits between tries to subscribe again after the subscription was lost: doubling, up to the last
RECONNECT_SECONDS = (0.1, 0.2, 0.4, 0.8, 1.0)
_MAX_DATAGRAM = 64 * 1024


def _url() -> str:
    return settings.GOAT_LIVE_URL


def _prefix() -> str:
    return settings.GOAT_LIVE_PREFIX


# --- publishing (sync, any process) -----------------------------------------------------------

_redis_client = None
_redis_lock = threading.Lock()
_local_sender: socket.socket | None = None
_local_sender_pid = 0


def _redis():
    global _redis_client
    if _redis_client is None:
        with _redis_lock:
            if _redis_client is None:
                import redis

                _redis_client = redis.Redis.from_url(_url(), socket_timeout=2, socket_connect_timeout=2)
    return _redis_client


def local_dir() -> Path:
    return Path(settings.GOAT_DATA_DIR) / "live"


def _local_publish(payload: bytes) -> None:
    global _local_sender, _local_sender_pid
    if _local_sender is None or _local_sender_pid != os.getpid():  # not shared across a fork
        _local_sender = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        _local_sender.settimeout(0.2)  # a receiver whose buffer is full makes us wait, not drop
        _local_sender_pid = os.getpid()
    try:
        entries = list(os.scandir(local_dir()))
    except FileNotFoundError:
        return  # nobody streams
    for entry in entries:
        if not entry.name.endswith(".sock"):
            continue
        try:
            _local_sender.sendto(payload, entry.path)
        except (ConnectionRefusedError, FileNotFoundError):
            with contextlib.suppress(OSError):
                os.unlink(entry.path)  # its process is gone
        except OSError:
            logger.warning("live: message not delivered to %s", entry.path, exc_info=True)


def publish(channel: str, message: dict[str, Any]) -> None:
    """Send ``message`` to every listener of ``channel`` in every process. Never raises: a lost
    message costs a stream its liveness until the next one, not the command its answer."""
    publish_all([(channel, message)])


def publish_all(messages: list[tuple[str, dict[str, Any]]]) -> None:
    """``publish`` each ``(channel, message)``, all in one payload: one ``PUBLISH`` (one round trip),
    or one datagram per listening process, whatever the number of messages. A command's game and
    feed messages go together so."""
    if not messages:
        return
    if len(messages) == 1:
        body: dict[str, Any] = {"c": messages[0][0], "m": messages[0][1]}
    else:
        body = {"b": [[channel, message] for channel, message in messages]}
    body["t"] = round(time.time(), 4)  # publish time: a stream's delivery delay (goat_stream_delivery_seconds)
    # DRF's encoder: dates and times as the API and the streams write them (ISO 8601)
    payload = json.dumps(body, separators=(",", ":"), cls=JSONEncoder).encode()
    try:
        if _url() == "local":
            _local_publish(payload)
        else:
            # on the first message's channel: every web process subscribes to the prefix's pattern
            _redis().publish(_prefix() + messages[0][0], payload)
    except Exception:
        logger.warning("live: publish on %s failed", ", ".join(c for c, _ in messages), exc_info=True)


# --- listening (async, web processes) ---------------------------------------------------------


class _Hub:
    """One per event loop: the backend subscription, the in-process listeners by channel, the
    listeners' timeouts (coalesced: one timer per TIMER_GRAIN slot, not one per listener) and the
    refresh of this process's stream claims (one batch for all of them)."""

    def __init__(self, loop: asyncio.AbstractEventLoop):
        self.loop = loop
        self.listeners: dict[str, set[Listener]] = {}
        self.ready = asyncio.Event()
        self.task: asyncio.Task | None = None
        self.refresher: asyncio.Task | None = None
        self.sock: socket.socket | None = None
        self.slots: dict[float, set[Listener]] = {}
        #: how many times the subscription has been established (RESYNC messages carry it)
        self.generation = 0

    def resync(self) -> None:
        """The subscription is up (again): tell every listener to read what it may have missed."""
        self.generation += 1
        message = {"resync": self.generation}
        # once per listener, whatever the number of its channels
        for listener in {listener for listeners in self.listeners.values() for listener in listeners}:
            if listener.entered:  # one still waiting in ``listen`` reads everything after this anyway
                listener.put(message)
        self.ready.set()
        if _held and _url() != "local":  # a Redis that restarted has lost them; some were counted here
            self.loop.run_in_executor(None, _claims_rebuild, list(_held.items()))

    def dispatch(self, raw: bytes | str) -> None:
        try:
            decoded = json.loads(raw)
            pairs = decoded["b"] if "b" in decoded else [(decoded["c"], decoded["m"])]
            sent = decoded.get("t")
            for channel, message in pairs:
                for listener in self.listeners.get(channel, ()):  # O(listeners of that channel)
                    listener.put(message, sent)
        except (ValueError, KeyError, TypeError):
            return

    def wake_at(self, listener: Listener, timeout: float) -> float:
        """Wake ``listener`` (if still waiting) ``timeout`` to ``timeout`` + grain seconds from now,
        grain = min(TIMER_GRAIN, timeout / 4): the timers of all listeners due in the same slot are one."""
        grain = min(TIMER_GRAIN, timeout / 4) or TIMER_GRAIN
        slot = math.ceil((self.loop.time() + timeout) / grain) * grain
        due = self.slots.get(slot)
        if due is None:
            due = self.slots[slot] = set()
            self.loop.call_at(slot, self._wake, slot)
        due.add(listener)
        return slot

    def unwake(self, listener: Listener, slot: float) -> None:
        due = self.slots.get(slot)
        if due is not None:
            due.discard(listener)

    def _wake(self, slot: float) -> None:
        for listener in self.slots.pop(slot, ()):
            listener.timed_out(slot)

    def start(self) -> None:
        if self.task is None or self.task.done():
            self.ready.clear()
            self.task = self.loop.create_task(self._run_local() if _url() == "local" else self._run_redis())
        if self.refresher is None or self.refresher.done():
            self.refresher = self.loop.create_task(self._refresh_claims())

    async def _refresh_claims(self) -> None:
        """Every REFRESH_SECONDS, extend every claim this process's streams hold, in one batch."""
        while True:
            await asyncio.sleep(REFRESH_SECONDS)
            held = list(_held.items())
            if held:
                try:
                    refreshed = self.loop.run_in_executor(None, streams_refresh, held)
                except RuntimeError:  # the executor takes no more work: the process is exiting
                    return
                try:
                    await refreshed
                except Exception:  # the next round retries; a claim lives CLAIM_TTL_SECONDS
                    logger.warning("live: stream claims not refreshed", exc_info=True)

    async def _run_redis(self) -> None:
        import redis.asyncio as aioredis

        failures = 0
        while True:
            client = aioredis.Redis.from_url(_url(), socket_connect_timeout=2, health_check_interval=5)
            try:
                async with client.pubsub() as pubsub:
                    await pubsub.psubscribe(_prefix() + "*")
                    async for item in pubsub.listen():
                        kind = item.get("type")
                        if kind == "pmessage":
                            self.dispatch(item["data"])
                        elif kind == "psubscribe":  # confirmed: from here on nothing is missed
                            if failures:
                                logger.warning("live: Redis subscription back; streams catch up")
                            failures = 0
                            self.resync()
            except asyncio.CancelledError:
                raise
            except Exception:
                self.ready.clear()
                if not failures:
                    logger.warning("live: Redis subscription lost; reconnecting", exc_info=True)
                await asyncio.sleep(RECONNECT_SECONDS[min(failures, len(RECONNECT_SECONDS) - 1)])
                failures += 1
            finally:
                with contextlib.suppress(Exception):
                    await client.aclose()

    async def _run_local(self) -> None:
        directory = local_dir()
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"{os.getpid()}-{secrets.token_hex(4)}.sock"
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        sock.bind(str(path))
        sock.setblocking(False)
        self.sock = sock
        readable = asyncio.Event()
        self.loop.add_reader(sock.fileno(), readable.set)
        self.resync()
        try:
            while True:
                await readable.wait()
                readable.clear()
                while True:
                    try:
                        data = sock.recv(_MAX_DATAGRAM)
                    except BlockingIOError:
                        break
                    self.dispatch(data)
        finally:
            self.loop.remove_reader(sock.fileno())
            sock.close()
            with contextlib.suppress(OSError):
                path.unlink()


_hubs: dict[asyncio.AbstractEventLoop, _Hub] = {}


def _hub() -> _Hub:
    loop = asyncio.get_running_loop()
    hub = _hubs.get(loop)
    if hub is None:
        for old in [k for k in _hubs if k.is_closed()]:
            del _hubs[old]
        hub = _hubs[loop] = _Hub(loop)
    hub.start()
    return hub


class Closed(Exception):
    """The process is shutting down: streams end (their clients resume elsewhere)."""


_CLOSE = {"__close__": True}
_closing = False


def close_listeners(share: float | None = None) -> int:
    """End every open listener of this process and refuse new ones (``share`` None), or end that share
    of them (0-1, rounded up): the server calls this as it stops, so open streams end cleanly instead
    of holding the shutdown until it is forced. Returns how many are left open."""
    global _closing
    if share is None:
        _closing = True
    listeners = _open_listeners()
    ending = listeners if share is None else listeners[:math.ceil(len(listeners) * min(max(share, 0.0), 1.0))]
    for listener in ending:
        listener.ending = True
        listener.put(_CLOSE)
    return len(listeners) - len(ending)


def _open_listeners() -> list[Listener]:
    """This process's listeners not yet told to end, each once (a listener may hear several channels)."""
    found: dict[Listener, None] = {}
    for hub in list(_hubs.values()):
        for listeners in hub.listeners.values():
            for listener in listeners:
                if not listener.ending:
                    found[listener] = None
    return list(found)


class Listener:
    """Messages of some channels, from the moment of ``subscribe`` on. Small on purpose (an idle
    stream is one): its messages in a list, and while it waits a future that a message or the hub's
    timer of its slot completes; no task, no timer of its own."""

    __slots__ = ("hub", "channels", "entered", "ending", "_messages", "_waiter", "_slot", "_sent")

    def __init__(self, hub: _Hub, channels: tuple[str, ...]):
        self.hub = hub
        self.channels = channels
        #: its ``listen`` block has begun (its caller reads its source of truth from then on)
        self.entered = False
        #: told to end (``close_listeners``): its stream ends when it reads that
        self.ending = False
        self._messages: list[dict[str, Any]] = []
        self._waiter: asyncio.Future | None = None
        self._slot = 0.0
        self._sent: float | None = None

    def put(self, message: dict[str, Any], sent: float | None = None) -> None:
        self._messages.append(message)
        if sent is not None and (self._sent is None or sent < self._sent):
            self._sent = sent
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def timed_out(self, slot: float) -> None:
        waiter = self._waiter
        if waiter is not None and self._slot == slot and not waiter.done():
            waiter.set_result(None)

    async def get(self, timeout: float) -> dict[str, Any] | None:
        """The next message, or None after ``timeout`` seconds without one (at most a quarter of it,
        or TIMER_GRAIN, later: see ``within``); raises Closed when the process stops."""
        if not self._messages:
            waiter = self._waiter = self.hub.loop.create_future()
            self._slot = slot = self.hub.wake_at(self, timeout)
            try:
                await waiter
            finally:
                self._waiter = None
                self.hub.unwake(self, slot)
            if not self._messages:
                return None
        message = self._messages.pop(0)
        if message is _CLOSE:
            raise Closed()
        return message

    def sent_take(self) -> float | None:
        """The earliest publish time (the publisher's wall clock) of the messages heard since the last
        call, and forget it: what a stream writes now was caused by those."""
        sent, self._sent = self._sent, None
        return sent

    def pending(self) -> list[dict[str, Any]]:
        """Every message already queued (without waiting)."""
        out, self._messages = self._messages, []
        if any(message is _CLOSE for message in out):
            raise Closed()
        return out


def within(seconds: float) -> float:
    """The timeout to give ``Listener.get`` so that it answers within ``seconds`` (a keep-alive's
    bound): ``get`` may answer up to min(TIMER_GRAIN, timeout / 4) after its timeout."""
    return max(seconds - TIMER_GRAIN, 0.75 * seconds)


#: what a listener hears when the process's subscription was (re)established: read what you missed
RESYNC = "resync"


def is_resync(message: dict[str, Any]) -> bool:
    return RESYNC in message


@contextlib.asynccontextmanager
async def listen(*channels: str, ready_timeout: float = 1.0, hold: tuple[str, str] | None = None
                 ) -> AsyncIterator[Listener]:
    """Listen to ``channels`` for the duration of the block. On entry the process's backend
    subscription is up (waited for up to ``ready_timeout`` seconds), so a message published after
    entry is heard; if it is down, the listener hears a RESYNC message once it is up again (a
    catch-up subscription: the caller reads what it missed then). ``hold``: a ``(token, claim)``
    from ``stream_claim`` that this process refreshes for as long as the block lasts (a claim whose
    stream never started is not refreshed, so it expires)."""
    if _closing:
        raise Closed()
    hub = _hub()
    listener = Listener(hub, channels)
    for channel in channels:
        hub.listeners.setdefault(channel, set()).add(listener)
    if hold is not None:
        _held[hold[1]] = hold[0]
    metrics.STREAMS_OPEN.inc()
    try:
        if not hub.ready.is_set():
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(hub.ready.wait(), ready_timeout)
        listener.entered = True
        yield listener
    finally:
        metrics.STREAMS_OPEN.dec()
        if hold is not None:
            _held.pop(hold[1], None)
        for channel in channels:
            listeners = hub.listeners.get(channel)
            if listeners is not None:
                listeners.discard(listener)
                if not listeners:
                    del hub.listeners[channel]


def listeners_count() -> int:
    """Open listeners of this process (its current event loop), for health and benchmarks."""
    hub = _hubs.get(asyncio.get_running_loop())
    return sum(len(q) for q in hub.listeners.values()) if hub else 0


# --- per-token stream counts (sync; call through sync_to_async) --------------------------------


def _token_key(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()[:32]


#: the claims of this process's listening streams (claim -> token; ``listen(hold=...)``), refreshed
#: together by the hub
_held: dict[str, str] = {}


def stream_claim(token: str, limit: int) -> str | None:
    """Claim one of ``token``'s ``limit`` stream slots: the claim's id, or None when all are taken.
    It lives CLAIM_TTL_SECONDS, extended while a ``listen(hold=...)`` holds it."""
    claim = secrets.token_hex(8)
    now = time.time()
    key = _token_key(token)
    if _url() == "local":
        directory = local_dir() / "claims"
        directory.mkdir(parents=True, exist_ok=True)
        with open(directory / f"{key}.lock", "a+") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            lock.seek(0)
            claims = {c: t for c, t in (json.loads(lock.read() or "{}")).items() if t > now}
            if len(claims) >= limit:
                return None
            claims[claim] = now + CLAIM_TTL_SECONDS
            lock.seek(0)
            lock.truncate()
            lock.write(json.dumps(claims))
        return claim
    import redis

    try:
        return _redis_claim(key, claim, now, limit)
    except redis.RedisError:
        logger.warning("live: Redis unreachable; stream slots counted in this process alone")
    with _redis_lock:  # Redis away: this process's own count (written back by _claims_rebuild)
        claims = {c: t for c, t in _fallback_claims.get(key, {}).items() if t > now}
        # the claims of this token's open streams here (made before Redis went away, or since)
        held = {c for c, t in list(_held.items()) if t == token}
        if len(held | set(claims)) >= limit:
            return None
        claims[claim] = now + CLAIM_TTL_SECONDS
        _fallback_claims[key] = claims
    return claim


#: claims made while Redis was unreachable, by token key (claim -> expiry); held in ``_held`` too
_fallback_claims: dict[str, dict[str, float]] = {}


def _redis_claim(key: str, claim: str, now: float, limit: int) -> str | None:
    client = _redis()
    rkey = f"{_prefix()}streams:{key}"
    with client.pipeline() as pipe:
        pipe.zremrangebyscore(rkey, "-inf", now)
        pipe.zcard(rkey)
        _, count = pipe.execute()
    if count >= limit:
        return None
    with client.pipeline() as pipe:
        pipe.zadd(rkey, {claim: now + CLAIM_TTL_SECONDS})
        pipe.expire(rkey, CLAIM_TTL_SECONDS)
        pipe.zcard(rkey)
        *_, count = pipe.execute()
    if count > limit:  # another process claimed the last slot at the same moment
        client.zrem(rkey, claim)
        return None
    return claim


def _claims_rebuild(held: list[tuple[str, str]]) -> None:
    """Write every ``(claim, token)`` this process's open streams hold back into Redis (after the
    subscription came back: a Redis that restarted has none of them), for another CLAIM_TTL_SECONDS."""
    until = time.time() + CLAIM_TTL_SECONDS
    by_token: dict[str, list[str]] = {}
    for claim, token in held:
        if claim in _held:  # not released meanwhile
            by_token.setdefault(token, []).append(claim)
    try:
        with _redis().pipeline(transaction=False) as pipe:
            for token, claims in by_token.items():
                rkey = f"{_prefix()}streams:{_token_key(token)}"
                pipe.zadd(rkey, dict.fromkeys(claims, until))
                pipe.expire(rkey, CLAIM_TTL_SECONDS)
            pipe.execute()
    except Exception:  # the next loss and return of the subscription tries again
        logger.warning("live: stream claims not written back to Redis", exc_info=True)
        return
    with _redis_lock:
        _fallback_claims.clear()


def _local_update(token: str, change) -> None:
    directory = local_dir() / "claims"
    path = directory / f"{_token_key(token)}.lock"
    if not path.exists():
        return
    with open(path, "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        lock.seek(0)
        claims = json.loads(lock.read() or "{}")
        change(claims)
        lock.seek(0)
        lock.truncate()
        lock.write(json.dumps(claims))


def stream_refresh(token: str, claim: str) -> None:
    """Keep ``claim`` alive for another CLAIM_TTL_SECONDS."""
    streams_refresh([(claim, token)])


def streams_refresh(held: list[tuple[str, str]]) -> None:
    """Keep every ``(claim, token)`` alive for another CLAIM_TTL_SECONDS, in one batch: one Redis
    pipeline, or one update of each token's claim file."""
    until = time.time() + CLAIM_TTL_SECONDS
    by_token: dict[str, list[str]] = {}
    for claim, token in held:
        by_token.setdefault(token, []).append(claim)
    if _url() == "local":
        for token, claims in by_token.items():
            _local_update(token, lambda stored, claims=claims: stored.update(
                {c: until for c in claims if c in stored}))  # a released claim stays released
        return
    with _redis().pipeline(transaction=False) as pipe:
        for token, claims in by_token.items():
            rkey = f"{_prefix()}streams:{_token_key(token)}"
            pipe.zadd(rkey, dict.fromkeys(claims, until), xx=True)  # a released claim stays released
            pipe.expire(rkey, CLAIM_TTL_SECONDS)
        pipe.execute()


def stream_release(token: str, claim: str) -> None:
    _held.pop(claim, None)
    if _url() == "local":
        _local_update(token, lambda claims: claims.pop(claim, None))
        return
    with _redis_lock:
        _fallback_claims.get(_token_key(token), {}).pop(claim, None)
    _redis().zrem(f"{_prefix()}streams:{_token_key(token)}", claim)
