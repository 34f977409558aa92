"""The API's WSGI bridge: Django's WSGI handler on a thread pool, one crossing per request.

``split`` (goat/serve/server.py) has read the request's whole body in the event loop before a thread
is taken (goat.web.limits), so the thread never needs the loop to read it; and the API's views answer
whole responses. So a request crosses between the loop and a thread once: the loop hands the thread
the environ (a2wsgi's ``build_environ``, the body in memory), the thread runs the application and
collects the response, and the loop sends it when the thread is done.

A general bridge (a2wsgi's ``WSGIMiddleware``) crosses back to the loop, and waits for it, for the
body, the response's start, each body chunk and its end. Under load the loop is busy with the
streams, so each of those waits is a wait for the loop and for the interpreter's lock
(docs/capacity.md has the measurements).

A response that grows past ``FLUSH_BYTES`` (a static file, a large export) goes to the loop in parts
of about that size, each a crossing the thread waits for: memory per request stays bounded, and a
slow client holds back its own request's thread, not the loop.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import io
from concurrent.futures import ThreadPoolExecutor

from a2wsgi.wsgi import build_environ

#: bytes a response collects on its thread before they go to the loop while the application goes on
FLUSH_BYTES = 256 * 1024


class _Response:
    """One request's response: collected on its thread, sent by the loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop, send) -> None:
        self.loop = loop
        self.send = send
        self.status: int | None = None
        self.headers: list[tuple[bytes, bytes]] = []
        self.chunks: list[bytes] = []
        self.size = 0
        self.started = False  # the start went to the client: headers can no longer change

    # -- on the thread --

    def start_response(self, status: str, headers, exc_info=None):
        if exc_info is not None:
            try:
                if self.started:  # PEP 3333: too late to replace the headers
                    raise exc_info[1].with_traceback(exc_info[2])
            finally:
                exc_info = None
        elif self.status is not None:
            raise RuntimeError("start_response called twice without exc_info")
        self.status = int(status.split(" ", 1)[0])
        self.headers = [(name.strip().lower().encode("latin-1"), value.strip().encode("latin-1"))
                        for name, value in headers]
        return self.write

    def write(self, chunk: bytes) -> None:
        if not chunk:
            return
        self.chunks.append(chunk)
        self.size += len(chunk)
        if self.size >= FLUSH_BYTES:
            asyncio.run_coroutine_threadsafe(self.flush(more=True), self.loop).result()

    def run(self, app, environ) -> None:
        result = app(environ, self.start_response)
        try:
            for chunk in result:
                self.write(chunk)
        finally:
            close = getattr(result, "close", None)
            if close is not None:
                close()

    # -- in the loop --

    async def flush(self, *, more: bool) -> None:
        """Send what is collected (the start first, once); ``more`` unless the response is complete."""
        if self.status is None:
            raise RuntimeError("the WSGI application returned without calling start_response")
        if not self.started:
            self.started = True
            await self.send({"type": "http.response.start", "status": self.status, "headers": self.headers})
        body = b"".join(self.chunks)
        self.chunks, self.size = [], 0
        if body or not more:
            await self.send({"type": "http.response.body", "body": body, "more_body": more})


class Bridge:
    """An ASGI application for a WSGI one whose request bodies are already read: ``await
    bridge(scope, body, send)``, the application run on one of ``threads`` threads."""

    def __init__(self, app, *, threads: int) -> None:
        self.app = app
        self.executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="WSGI")

    async def __call__(self, scope, body: bytes, send) -> None:
        loop = asyncio.get_running_loop()
        environ = build_environ(scope, io.BytesIO(body))
        response = _Response(loop, send)
        # the request runs in a copy of the loop's context, as a2wsgi and asgiref run theirs
        run = functools.partial(contextvars.copy_context().run, response.run, self.app, environ)
        await loop.run_in_executor(self.executor, run)
        await response.flush(more=False)
