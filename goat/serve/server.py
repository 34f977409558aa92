"""The web server: one port for the API (WSGI, in a thread pool) and the live streams (ASGI).

gunicorn keeps managing the processes (workers, ``max_requests`` recycling with jitter, timeouts,
graceful stop; gunicorn.conf.py); each worker is a uvicorn event loop (``Worker``). ``split``
routes the stream paths to Django's async handler (``stream_handler``), where an idle stream is a
suspended coroutine (no thread), and every other request to Django's WSGI handler on a thread pool
(``goat.serve.bridge``: one crossing between the loop and a thread per request), so the synchronous
views run as under gthread: several at once, each on its own thread and database connection
(Django's ASGI handler would run them one at a time per process, on the one
``thread_sensitive`` thread). docs/architecture.md "Serving" has the comparison and figures.
"""

from __future__ import annotations

import asyncio
import fcntl
import functools
import gc
import logging
import os
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.conf import settings
from gunicorn.arbiter import Arbiter
from uvicorn.server import Server
from uvicorn_worker import UvicornWorker

from goat.live import fanout
from goat.serve import bridge, request_limits
from goat.web.observe import logs

#: seconds a stopping worker keeps its idle kept-alive connections, answering a request on one with
#: "Connection: close" (as gunicorn >= 27.0.1's gthread worker does; docs/reliability.md section 8)
DRAIN_SECONDS = 2.0
#: how often a recycling worker ends its next share of streams (GOAT_RECYCLE_SPREAD_SECONDS)
SPREAD_STEP_SECONDS = 0.25
#: requests a web worker whose recycle is due serves on before it asks for its turn again
RECYCLE_RETRY_REQUESTS = 100


class _State:
    """This process's request count and whether it is stopping (then every answer closes its connection)."""

    max_requests: int | None = None
    requests = 0
    draining = False
    #: gunicorn's access_log_format when gunicorn runs the worker (uvicorn's own access log is off)
    access_format: str | None = None


class _Atoms(dict):
    def __missing__(self, key):
        return "-"


logger = logging.getLogger(__name__)
_access_logger = logging.getLogger("gunicorn.access")


class _Logged:
    """``send`` that notes what is sent, and writes gunicorn's access line (its access_log_format and
    atoms, so the request id reaches the access log as under gthread) once: when the response ends, or
    at ``close`` when the request ended without it (the client went away, or was dropped by the write
    deadline; then the line has the status and the bytes that were sent)."""

    __slots__ = ("scope", "send", "started", "seen", "written")

    def __init__(self, scope, send) -> None:
        self.scope = scope
        self.send = send
        self.started = time.perf_counter()
        self.seen: dict = {"status": 0, "bytes": 0, "headers": ()}
        self.written = False

    async def __call__(self, message) -> None:
        seen = self.seen
        if message["type"] == "http.response.start":
            seen["status"] = message["status"]
            seen["headers"] = message.get("headers", ())
        await self.send(message)
        if message["type"] == "http.response.body":
            seen["bytes"] += len(message.get("body", b""))
            if not message.get("more_body", False):
                self.close()

    def close(self) -> None:
        if not self.written:
            self.written = True
            _access_line(self.scope, self.seen, self.started)


def _header(headers, name: str) -> str | None:
    """The value of header ``name`` (lowercase) in ASGI ``headers``, or None."""
    wanted = name.encode("latin-1")
    for key, value in headers:
        if key.lower() == wanted:
            return value.decode(errors="replace")
    return None


def _query(scope) -> str:
    return scope.get("query_string", b"").decode(errors="replace")


def _target(scope) -> str:
    query = _query(scope)
    return scope.get("path", "") + (f"?{query}" if query else "")


#: gunicorn's access log atoms, each from (scope, what was sent, seconds taken)
_ATOMS: dict[str, Callable[[dict, dict, float], Any]] = {
    "h": lambda scope, seen, took: (scope.get("client") or ("-",))[0],
    "t": lambda scope, seen, took: time.strftime("[%d/%b/%Y:%H:%M:%S %z]"),
    "r": lambda scope, seen, took: f"{scope.get('method')} {_target(scope)} HTTP/{scope.get('http_version')}",
    "m": lambda scope, seen, took: scope.get("method"),
    "U": lambda scope, seen, took: scope.get("path"),
    "q": lambda scope, seen, took: _query(scope),
    "s": lambda scope, seen, took: seen["status"],
    "b": lambda scope, seen, took: seen["bytes"] or "-",
    "B": lambda scope, seen, took: seen["bytes"],
    "M": lambda scope, seen, took: int(took * 1000),
    "D": lambda scope, seen, took: int(took * 1_000_000),
    "T": lambda scope, seen, took: int(took),
    "L": lambda scope, seen, took: f"{took:.6f}",
    "p": lambda scope, seen, took: f"<{os.getpid()}>",
    "a": lambda scope, seen, took: _header(scope.get("headers", ()), "user-agent") or "-",
    "f": lambda scope, seen, took: _header(scope.get("headers", ()), "referer") or "-",
}


@functools.lru_cache(maxsize=4)
def _atoms_named(access_format: str) -> tuple[str, ...]:
    """The atoms ``access_format`` names (``%(h)s``, ``%({x-request-id}o)s``): only these are worked out."""
    return tuple(dict.fromkeys(re.findall(r"%\(([^)]*)\)", access_format)))


def _atom(name: str, scope, seen, took: float) -> Any:
    if name.startswith("{") and name[-2:] in ("}i", "}o"):  # a request (i) or response (o) header
        headers = scope.get("headers", ()) if name[-1] == "i" else seen["headers"]
        return _header(headers, name[1:-2].lower())
    atom = _ATOMS.get(name)
    return None if atom is None else atom(scope, seen, took)


def _access_line(scope, seen, started) -> None:
    took = time.perf_counter() - started
    atoms = _Atoms()
    for name in _atoms_named(_State.access_format):
        value = _atom(name, scope, seen, took)
        if value is not None:  # else "-", as gunicorn writes an atom it lacks
            atoms[name] = logs.log_safe(value) if isinstance(value, str) else value
    _access_logger.info(_State.access_format, atoms)


def _closing(send):
    async def closing_send(message):
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", []), (b"connection", b"close")]}
        await send(message)

    return closing_send


def split(*, asgi, wsgi, asgi_paths: str, threads: int):
    """An ASGI application: paths matching ``asgi_paths`` to ``asgi``, the rest to ``wsgi`` (a WSGI
    callable) run on ``threads`` threads."""
    threaded = bridge.Bridge(wsgi, threads=threads)
    matches = re.compile(asgi_paths).match

    async def _answer(scope, receive, send):
        # refused by the protocol, or the body read here in the event loop (deadline, size) before
        # any thread is taken: a slow client holds a coroutine, never one of the ``threads``
        body = None
        refused = scope.get(request_limits.REFUSED)
        if refused is None:
            body, refused = await request_limits.read_body(scope, receive)
        if refused is not None:
            await request_limits.send_problem(send, *refused, headers=scope.get("headers", ()))
            return
        if body is None:  # the client went away
            return
        if matches(scope["path"]):
            await asgi(scope, request_limits.replayed(body, receive), send)
        else:
            await threaded(scope, body, send)

    async def application(scope, receive, send):
        kind = scope["type"]
        if kind == "lifespan":  # nothing to start or stop; answer so any server is content
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if kind == "http":
            _State.requests += 1
            # innermost: the deadline applies to what uvicorn waits for, the client taking the bytes
            send = request_limits.deadlined(scope, send)
            if _State.draining or (_State.max_requests and _State.requests >= _State.max_requests):
                send = _closing(send)  # this worker's last request(s): the client reconnects elsewhere
            logged = None
            if _State.access_format and _access_logger.isEnabledFor(logging.INFO):
                send = logged = _Logged(scope, send)
            try:
                await _answer(scope, receive, send)
            except request_limits.ClientGone:
                pass  # dropped by the deadline (its warning is written) or gone: the access line says the rest
            except Exception:
                if logged is not None and not logged.seen["status"]:
                    logged.seen["status"] = 500  # what uvicorn answers for an application that raised first
                raise
            finally:
                if logged is not None:
                    logged.close()
        elif kind == "websocket":  # goat serves none
            await send({"type": "websocket.close", "code": 1000})

    return application


def stream_handler():
    """Django's ASGI handler for the stream paths, made cheap to hold open (an idle stream costs its
    connection task, one disconnect-watch task and their objects):

    * no ``ThreadSensitiveContext`` per request: inside one, asgiref gives every request its own
      one-thread executor for the sync middleware and signals, and that thread lives as long as the
      request, so each open stream held a thread. Here they run on asgiref's one shared thread (a
      stream's middleware runs once, at its start);
    * the request runs in the server's connection task, not in a second one; a streaming answer is
      watched for the client's disconnect by ONE task, which cancels the stream (the stream's
      ``finally`` releases its slot), as Django's handler does with its two.
    """
    from asgiref.sync import sync_to_async
    from django.core import signals
    from django.core.exceptions import RequestAborted
    from django.core.handlers.asgi import ASGIHandler, get_script_prefix
    from django.urls import set_script_prefix

    class StreamHandler(ASGIHandler):
        async def __call__(self, scope, receive, send):
            if scope["type"] != "http":
                raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
            await self.handle(scope, receive, send)

        async def handle(self, scope, receive, send):
            try:
                body_file = await self.read_body(receive)
            except RequestAborted:
                return
            set_script_prefix(get_script_prefix(scope))
            await signals.request_started.asend(sender=self.__class__, scope=scope)
            request, response = self.create_request(scope, body_file)
            if request is not None:
                response = await self.run_get_response(request)
                del request  # a stream keeps what its body needs, not the request
            try:
                if response.streaming:
                    await _sent_until_disconnect(self.send_response(response, send), receive)
                else:
                    await self.send_response(response, send)
            finally:
                body_file.close()
                await sync_to_async(response.close)()

    return StreamHandler()


async def _sent_until_disconnect(sending, receive) -> None:
    """Await ``sending``; if the client disconnects first, cancel it (and return)."""
    task = asyncio.current_task()
    gone = False

    async def watch():
        nonlocal gone
        while (await receive())["type"] != "http.disconnect":
            pass
        gone = True
        task.cancel()

    watcher = asyncio.get_running_loop().create_task(watch())
    try:
        await sending
    except asyncio.CancelledError:
        if not gone:
            raise
        task.uncancel()
    finally:
        watcher.cancel()


#: the collector's thresholds in a web worker: the young generations as Python's defaults (700, 10),
#: so each of their collections is short; the oldest after 1,000 collections of the middle one (10)
GC_THRESHOLDS = (700, 10, 1000)


def collector_settle() -> None:
    """Make the garbage collector's pauses short and rare in a web worker, which holds thousands of
    streams: a collection stops the whole process, its event loop and its threads.

    A full collection scans every object the collector tracks, and a worker's streams make hundreds
    of thousands of them: with Python's default thresholds it runs every few seconds under load, and
    the streams' deliveries wait behind it (docs/capacity.md has the measurements). The boot's objects
    (Django, the URLconf, the views) live as long as the process, so they are frozen (``gc.freeze``)
    and left out of every collection; the oldest generation's threshold makes full collections rare
    (one also waits until the objects added since the last are a quarter of those it would scan,
    Python's own rule), while the young generations stay small, so their collections stay short."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def recycle_path() -> Path:
    """The file where the web workers of this machine (its ``GOAT_DATA_DIR``) note when one last began a recycle."""
    return Path(settings.GOAT_DATA_DIR) / "web-recycle"


def recycle_turn(path: Path, gap: float, now: float | None = None) -> bool:
    """Whether a web worker whose recycle is due (``max_requests``) may begin it now: when no worker
    of the machine began one in the last ``gap`` seconds; then its beginning is noted in ``path``.

    A recycle moves the worker's streams to the other workers (each a stream's opening: its
    authentication and first read) and boots a new process. Workers started together count their
    requests alike and come due together: two recycles at once send every stream to reconnect, some
    to a worker about to go or still booting, and the moves wait behind it (docs/capacity.md). The
    time is read and written under an exclusive lock on the file. A time in the future (a clock set
    back) counts as none, and any trouble with the file gives the turn: it never holds a recycle back
    for good."""
    if gap <= 0:
        return True
    now = time.time() if now is None else now
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        logger.warning("web recycle: %s cannot be opened; recycling without waiting a turn", path, exc_info=True)
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            last = float(os.pread(fd, 64, 0) or 0)
        except ValueError:
            last = 0.0
        if now - gap < last <= now + gap:
            return False
        os.ftruncate(fd, 0)
        os.pwrite(fd, repr(now).encode(), 0)
        return True
    except OSError:
        logger.warning("web recycle: %s cannot be used; recycling without waiting a turn", path, exc_info=True)
        return True
    finally:
        os.close(fd)  # and with it the lock


class _Server(Server):
    async def on_tick(self, counter: int) -> bool:
        limit = self.limit_max_requests
        if (limit is not None and not self.should_exit and self.server_state.total_requests >= limit
                and not recycle_turn(recycle_path(), settings.GOAT_RECYCLE_GAP_SECONDS)):
            # another web worker of this machine began its recycle lately: serve on, ask again later
            self.limit_max_requests = self.server_state.total_requests + RECYCLE_RETRY_REQUESTS
            if _State.max_requests is not None:
                _State.max_requests = _State.requests + RECYCLE_RETRY_REQUESTS
        return await super().on_tick(counter)

    async def shutdown(self, sockets=None) -> None:
        _State.draining = True
        for server in self.servers:
            server.close()
        for sock in sockets or []:
            sock.close()
        # Streams never finish on their own: end them first, or the graceful stop would wait for
        # them until gunicorn's graceful_timeout and then kill the worker. A worker that recycles
        # itself (max_requests; told nothing, so ``should_exit`` is unset) is in no hurry: it ends them
        # spread over a few seconds, so their clients' reconnections reach the other workers as a
        # steady flow and not all in one moment (each is a stream's opening: its authentication and
        # first read).
        if not self.should_exit:
            await self._streams_spread(settings.GOAT_RECYCLE_SPREAD_SECONDS)
        fanout.close_listeners()
        # uvicorn would close idle kept-alive connections at once, and a request a client sends on one
        # at that moment is lost (a reset): not accepting, keep them DRAIN_SECONDS, answer with
        # "Connection: close" meanwhile, then close what is left.
        deadline = asyncio.get_running_loop().time() + DRAIN_SECONDS
        while self.server_state.connections and not self.force_exit and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.05)
        await super().shutdown(sockets=None)

    async def _streams_spread(self, seconds: float) -> None:
        """End this worker's streams evenly over ``seconds``; the rest at once when told to stop meanwhile."""
        loop = asyncio.get_running_loop()
        end = loop.time() + seconds
        while not self.should_exit and (left := end - loop.time()) > SPREAD_STEP_SECONDS:
            if not fanout.close_listeners(SPREAD_STEP_SECONDS / left):
                return
            if self.config.callback_notify is not None:  # gunicorn's heartbeat: alive, not stuck
                await self.config.callback_notify()
            await asyncio.sleep(SPREAD_STEP_SECONDS)


class Worker(UvicornWorker):
    """gunicorn worker: uvicorn (uvloop where installed; httptools with goat.serve.request_limits' head limits), the
    streams ended on stop."""

    CONFIG_KWARGS = {"loop": "auto", "http": request_limits.Protocol, "lifespan": "off", "access_log": False}

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # what a request may still take once the worker stops (the streams are ended at once)
        self.config.timeout_graceful_shutdown = max(1, self.cfg.graceful_timeout - 1 - DRAIN_SECONDS)
        _State.max_requests = self.max_requests or None
        if self.cfg.accesslog:
            _State.access_format = self.cfg.access_log_format

    async def _serve(self) -> None:
        collector_settle()
        self.config.app = self.wsgi
        server = _Server(config=self.config)
        self._install_sigquit_handler()
        await server.serve(sockets=self.sockets)
        if not server.started:
            sys.exit(Arbiter.WORKER_BOOT_ERROR)
