"""The API's WSGI bridge: Django's WSGI handler on a thread pool, and no thread ever waits for a client.

``split`` (goat/serve/server.py) has read the request's whole body in the event loop before a thread
is taken (goat.serve.request_limits), so the thread never needs the loop to read it. The thread runs the
application and collects the response; the loop sends it. A slow reader therefore holds a coroutine
and the bytes not yet sent, never one of the few threads:

* a response that grows past ``FLUSH_BYTES`` (the schema, a large export) goes to the loop in parts of
  about that size, handed over without waiting for the client; the thread waits only when it is more
  than ``AHEAD_BYTES`` ahead of what the client has taken (memory per request stays bounded), and then
  no longer than the write deadline (``goat.serve.request_limits.deadlined``) lets the client hold it;
* a file (whitenoise's static files come as ``wsgi.file_wrapper``) is not read on the thread at all:
  the thread returns it, and the loop sends it in blocks of ``FILE_BLOCK_BYTES``, each under the
  write deadline;
* a client that is gone, or that did not take a part within the deadline (its connection is then
  dropped), ends the response: ``ClientGone`` reaches the thread at its next part and the server,
  which writes the access line and nothing else.

A general bridge (a2wsgi's ``WSGIMiddleware``) crosses back to the loop, and waits for it, for the
body, the response's start, each body chunk and its end. Under load the loop is busy with the
streams, so each of those waits is a wait for the loop and for the interpreter's lock
(docs/capacity.md has the measurements); a whole response here crosses once.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import io
import threading
from concurrent.futures import ThreadPoolExecutor

from a2wsgi.wsgi import build_environ

from goat.serve.request_limits import ClientGone

#: bytes a response collects on its thread before they go to the loop while the application goes on
FLUSH_BYTES = 256 * 1024
#: bytes a response's thread may be ahead of its client before it waits for the client to take them
AHEAD_BYTES = 4 * 1024 * 1024
#: bytes of a file the loop reads and sends at a time (each send under the write deadline)
FILE_BLOCK_BYTES = 64 * 1024


class FileWrapper:
    """PEP 3333's ``wsgi.file_wrapper``: a file the application answers with. Returned to the bridge, the
    loop sends it; iterated by anything else (a middleware), it reads blocks like any iterable."""

    def __init__(self, filelike, block_size: int = FILE_BLOCK_BYTES) -> None:
        self.filelike = filelike
        self.block_size = block_size

    def __iter__(self):
        while block := self.filelike.read(self.block_size):
            yield block

    def close(self) -> None:
        close = getattr(self.filelike, "close", None)
        if close is not None:
            close()


class _Response:
    """One request's response: collected on its thread, sent by the loop. A response that fits in
    ``FLUSH_BYTES`` is sent once the thread is done; a larger one is sent part by part, in order, by
    a sender task that the first part starts."""

    def __init__(self, loop: asyncio.AbstractEventLoop, send, *, head: bool) -> None:
        self.loop = loop
        self.send = send
        self.head = head  # a HEAD request: no file is read (the server sends no body anyway)
        self.status: int | None = None
        self.headers: list[tuple[bytes, bytes]] = []
        self.chunks: list[bytes] = []
        self.size = 0
        self.started = False  # a part went to the loop: headers can no longer change
        self.start_sent = False
        self.file: FileWrapper | None = None  # a file for the loop to send after the thread is done
        self.ahead = 0  # bytes handed to the loop and not yet taken by the client
        self.taken = threading.Condition()
        self.gone = False  # the client is gone or was dropped: nothing more is sent
        #: (body, last): what the thread handed over, in order, and its sender (both made by the first part)
        self.parts: asyncio.Queue[tuple[bytes, bool]] | None = None
        self.sender: asyncio.Task | None = None

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
            self.hand_over()

    def hand_over(self) -> None:
        """Give the loop what is collected as a part that more will follow, waiting first while the
        client is more than ``AHEAD_BYTES`` behind. Raises ``ClientGone`` once the client is gone."""
        self._check_started()
        body = self._collected()
        with self.taken:
            self.taken.wait_for(lambda: self.gone or self.ahead <= AHEAD_BYTES)
            if self.gone:
                raise ClientGone
            self.ahead += len(body)
        self.started = True
        self.loop.call_soon_threadsafe(self._queue, body, False)

    def run(self, app, environ) -> None:
        result = app(environ, self.start_response)
        if isinstance(result, FileWrapper):
            self.file = result  # the loop sends it (and closes it)
            return
        try:
            for chunk in result:
                self.write(chunk)
        finally:
            close = getattr(result, "close", None)
            if close is not None:
                close()

    def _check_started(self) -> None:
        if self.status is None:
            raise RuntimeError("the WSGI application returned without calling start_response")

    def _collected(self) -> bytes:
        body = b"".join(self.chunks)
        self.chunks, self.size = [], 0
        return body

    # -- in the loop --

    def _queue(self, body: bytes, last: bool) -> None:
        if self.parts is None:
            self.parts = asyncio.Queue()
            self.sender = self.loop.create_task(self._sending())
        self.parts.put_nowait((body, last))

    def _taken(self, size: int, *, gone: bool = False) -> None:
        with self.taken:
            self.ahead -= size
            self.gone = self.gone or gone
            self.taken.notify()

    async def _send(self, body: bytes, more: bool) -> None:
        if not self.start_sent:
            self.start_sent = True
            await self.send({"type": "http.response.start", "status": self.status, "headers": self.headers})
        if body or not more:
            await self.send({"type": "http.response.body", "body": body, "more_body": more})

    async def _sending(self) -> None:
        """Send the parts in order until the last. A part that cannot be sent (``ClientGone``) marks
        the response gone, and the parts after it are dropped."""
        assert self.parts is not None
        while True:
            body, last = await self.parts.get()
            if not self.gone:
                try:
                    await self._send(body, more=not last or self.file is not None)
                except ClientGone:
                    self._taken(0, gone=True)
                except BaseException:
                    self._taken(0, gone=True)  # the thread must not wait for a sender that is gone
                    raise
            if last:
                return
            self._taken(len(body))

    async def finish(self) -> None:
        """The thread is done: send the rest it collected, then the file it answered with, if any."""
        self._check_started()
        self.started = True
        if self.sender is None:
            await self._send(self._collected(), more=self.file is not None)
        else:  # after every part the thread handed over: call_soon_threadsafe keeps their order
            self._queue(self._collected(), True)
            await self.sender
        if self.gone:
            raise ClientGone
        if self.file is not None:
            file, self.file = self.file, None
            try:
                while not self.head and (block := file.filelike.read(FILE_BLOCK_BYTES)):
                    await self.send({"type": "http.response.body", "body": block, "more_body": True})
                await self.send({"type": "http.response.body", "body": b"", "more_body": False})
            finally:
                file.close()

    def abandon(self) -> None:
        """The request ended early (the application raised, or the request was cancelled): free the
        thread if it waits for the client, stop the sender, close the file."""
        self._taken(0, gone=True)
        if self.sender is not None:
            self.sender.cancel()
        if self.file is not None:
            self.file.close()
            self.file = None


class Bridge:
    """An ASGI application for a WSGI one whose request bodies are already read: ``await
    bridge(scope, body, send)``, the application run on one of ``threads`` threads. Raises
    ``ClientGone`` when the client went away or was dropped before the response ended."""

    def __init__(self, app, *, threads: int) -> None:
        self.app = app
        self.executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="WSGI")

    async def __call__(self, scope, body: bytes, send) -> None:
        loop = asyncio.get_running_loop()
        environ = build_environ(scope, io.BytesIO(body))
        environ["wsgi.file_wrapper"] = FileWrapper
        response = _Response(loop, send, head=scope.get("method") == "HEAD")
        # the request runs in a copy of the loop's context, as a2wsgi and asgiref run theirs
        run = functools.partial(contextvars.copy_context().run, response.run, self.app, environ)
        try:
            await loop.run_in_executor(self.executor, run)
            await response.finish()
        except BaseException:
            response.abandon()
            raise
