"""What a request may hold before Django sees it: slow or oversized requests are refused in the event loop.

Django's views run on a few threads per worker (goat/serve/bridge.py). A thread that reads a
request body waits for the client, so a handful of clients sending a body slowly (or never) would hold
every thread and stall the whole service. Here, in the uvicorn worker's event loop, where a waiting
connection costs a coroutine and no thread:

* ``Protocol`` (uvicorn's httptools protocol, which has no limit of its own on the request head and no
  deadline for it) refuses a head over ``GOAT_MAX_HEADER_BYTES`` or with more than ``GOAT_MAX_HEADERS``
  fields with 431, and a head not complete ``GOAT_HEADER_TIMEOUT_SECONDS`` after the connection opened
  (or its previous answer ended) with 408;
* ``read_body`` reads the whole body, within ``GOAT_BODY_TIMEOUT_SECONDS`` (else 408) and up to
  ``GOAT_MAX_BODY_BYTES`` (else 413), before the request goes to a thread; the view then reads it from
  memory;
* ``deadlined`` gives every response a write deadline: a client that does not take a part of the
  response within ``GOAT_SEND_TIMEOUT_SECONDS`` (the server waits only while the connection's write
  buffer is full) has its connection dropped, one warning line, and the application stops answering
  it (``ClientGone``), as nginx's ``send_timeout`` does.

Every refusal is problem details (``code`` ``request_timeout``, ``payload_too_large`` or
``request_header_fields_too_large``) and closes the connection. The values: docs/reliability.md "Limits".
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
from collections.abc import Awaitable, Callable

from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol

logger = logging.getLogger("goat.serve.request_limits")

#: the scope key by which ``Protocol`` hands a refused request's answer to the application (so the
#: answer goes through the access log like any other)
REFUSED = "goat.refused"

#: the scope key by which ``Protocol`` gives the application its connection's transport (to drop it)
TRANSPORT = "goat.transport"

#: refusals: status and code
HEAD_TOO_LARGE = (431, "request_header_fields_too_large")
TOO_SLOW = (408, "request_timeout")
BODY_TOO_LARGE = (413, "payload_too_large")


def _settings():
    from django.conf import settings

    return settings


def _language(headers) -> str | None:
    """The language a person sending ``headers`` reads (their Accept-Language), as Django picks it."""
    from django.http import HttpRequest
    from django.utils import translation

    accept = next((value for name, value in headers if name == b"accept-language"), None)
    if accept is None:
        return None
    request = HttpRequest()
    request.META["HTTP_ACCEPT_LANGUAGE"] = accept.decode("latin-1")
    return translation.get_language_from_request(request)


def _detail(code: str) -> str:
    from django.utils.translation import gettext

    return {
        "request_header_fields_too_large": gettext("The request's headers are too large or too many."),
        "request_timeout": gettext("The request did not arrive in time."),
        "payload_too_large": gettext("The request body is too large."),
    }[code]


def problem(status: int, code: str, headers=()) -> tuple[list[tuple[bytes, bytes]], bytes]:
    """The response headers and body of a refusal, in the language of the request's ``headers``."""
    from django.utils import translation

    from goat.web.api.problems import problem_body

    with translation.override(_language(headers) or _settings().LANGUAGE_CODE):
        body = json.dumps(problem_body(status=status, code=code, detail=_detail(code)),
                          ensure_ascii=False).encode()
    return [(b"content-type", b"application/problem+json"), (b"content-length", str(len(body)).encode()),
            (b"connection", b"close")], body


async def send_problem(send, status: int, code: str, headers=()) -> None:
    response_headers, body = problem(status, code, headers)
    await send({"type": "http.response.start", "status": status, "headers": response_headers})
    await send({"type": "http.response.body", "body": body})


Receive = Callable[[], Awaitable[dict]]
Send = Callable[[dict], Awaitable[None]]


class ClientGone(Exception):
    """The client went away, or did not take its response in time and its connection was dropped:
    nothing more can be sent to it. The server ends the request quietly (its access line is the log)."""


def deadlined(scope, send: Send) -> Send:
    """``send`` under the write deadline: each message must be taken within ``GOAT_SEND_TIMEOUT_SECONDS``
    (uvicorn's send waits only while the connection's write buffer is over its high-water mark, i.e.
    while the client does not read), else the connection is dropped and ``ClientGone`` raised; a send
    on a connection already closed raises ``ClientGone`` too (uvicorn marks only the last pipelined
    request of a lost connection as disconnected, and writing to a closed transport raises)."""
    transport = scope.get(TRANSPORT)
    seconds = _settings().GOAT_SEND_TIMEOUT_SECONDS

    async def send_in_time(message: dict) -> None:
        if transport is not None and transport.is_closing():
            raise ClientGone
        try:
            async with asyncio.timeout(seconds):
                await send(message)
        except TimeoutError:
            logger.warning("response to %s %s not taken by the client within %ss: connection dropped",
                           scope.get("method"), scope.get("path"), seconds)
            if transport is not None:
                transport.abort()
                # the loss reaches the protocol (connection_lost, called soon) before the request ends,
                # so uvicorn sees a disconnected request, not one that returned without its response
                await asyncio.sleep(0)
            raise ClientGone from None
        except RuntimeError:  # uvloop's write on a transport closed while the send waited
            if transport is not None and transport.is_closing():
                raise ClientGone from None
            raise

    return send_in_time


async def read_body(scope, receive: Receive) -> tuple[bytes | None, tuple[int, str] | None]:
    """Read the request's whole body with the deadline and the size limit.

    Returns the body, or a refusal (status, code), or (None, None) when the client went away."""
    settings = _settings()
    limit = settings.GOAT_MAX_BODY_BYTES
    length = next((value for name, value in scope.get("headers", []) if name == b"content-length"), None)
    if length is not None and length.strip().isdigit() and int(length) > limit:
        return None, BODY_TOO_LARGE
    chunks: list[bytes] = []
    size = 0
    try:
        async with asyncio.timeout(settings.GOAT_BODY_TIMEOUT_SECONDS):
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    return None, None
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > limit:
                    return None, BODY_TOO_LARGE
                chunks.append(chunk)
                if not message.get("more_body", False):
                    break
    except TimeoutError:
        logger.warning("request body not received within %ss: refused (408)", settings.GOAT_BODY_TIMEOUT_SECONDS)
        return None, TOO_SLOW
    return b"".join(chunks), None


def replayed(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that gives an ASGI application the ``body`` already read at once, then what the
    client sends next (its disconnect)."""
    given = False

    async def replay() -> dict:
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


def unacknowledged_limit(transport) -> None:
    """Close the connection once bytes sent on it stay unacknowledged for ``GOAT_TCP_USER_TIMEOUT_SECONDS``
    (Linux's ``TCP_USER_TIMEOUT``): a client whose network vanished (no FIN, no RST) is found within that
    time of the next bytes sent to it, a stream's keep-alive at the latest, and its stream and slot end,
    where the kernel's retransmissions would keep it for some 15 minutes. Elsewhere: nothing."""
    sock = transport.get_extra_info("socket")
    option = getattr(socket, "TCP_USER_TIMEOUT", None)
    if sock is None or option is None or sock.family not in (socket.AF_INET, socket.AF_INET6):
        return
    try:
        sock.setsockopt(socket.IPPROTO_TCP, option, int(_settings().GOAT_TCP_USER_TIMEOUT_SECONDS * 1000))
    except OSError:
        logger.warning("TCP_USER_TIMEOUT not set on a connection", exc_info=True)


class Protocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with a size and count limit on the request head (431) and a deadline
    for it (408). A head refused once it is complete goes to the application as a refusal (``REFUSED``
    in its scope); one still incomplete when it passes the size or the deadline is answered here."""

    _head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport) -> None:  # type: ignore[override]
        self._refused = False
        self._cycles: list = []  # this connection's requests whose responses are not complete
        super().connection_made(transport)
        unacknowledged_limit(transport)
        self._head_begins()

    def connection_lost(self, exc) -> None:
        self._head_timer_cancel()
        super().connection_lost(exc)
        # uvicorn marks only the connection's last request as disconnected; with pipelined requests the
        # one being answered is an earlier one, which would go on writing to the closed transport
        for cycle in self._cycles:
            if not cycle.response_complete:
                cycle.disconnected = True
                cycle.message_event.set()
        self._cycles = []

    def _head_begins(self) -> None:
        settings = _settings()
        self._reading_head = True
        self._head_bytes = 0
        self._head_fields = 0
        self._head_timer_cancel()
        self._head_timer = self.loop.call_later(settings.GOAT_HEADER_TIMEOUT_SECONDS, self._head_late)

    def _head_timer_cancel(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_late(self) -> None:
        self._head_timer = None
        if not self._reading_head or self.transport.is_closing():
            return
        if self._head_bytes:
            logger.warning("request head not received within %ss: refused (408)",
                           _settings().GOAT_HEADER_TIMEOUT_SECONDS)
            self._answer_and_close(*TOO_SLOW)
        else:  # a connection that never sent anything: nobody to answer
            self.transport.close()

    def _answer_and_close(self, status: int, code: str) -> None:
        self._refused = True
        self._reading_head = False
        self._head_timer_cancel()
        headers, body = problem(status, code)
        lines = [name + b": " + value + b"\r\n" for name, value in headers]
        self.transport.write(b"".join([STATUS_LINE[status], *lines, b"\r\n", body]))
        self.transport.close()

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        if self._reading_head:
            self._head_bytes += len(data)
        super().data_received(data)
        if self._reading_head and self._head_bytes > _settings().GOAT_MAX_HEADER_BYTES \
                and not self.transport.is_closing():
            logger.warning("request head over %s bytes: refused (431)", _settings().GOAT_MAX_HEADER_BYTES)
            self._answer_and_close(*HEAD_TOO_LARGE)

    def on_message_begin(self) -> None:
        # each request's head counts alone: a kept-alive or pipelined connection's next request may be
        # parsed before the previous response completes (when the count is otherwise reset)
        self._head_fields = 0
        super().on_message_begin()

    def on_header(self, name: bytes, value: bytes) -> None:
        self._head_fields += 1
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        settings = _settings()
        self._reading_head = False
        self._head_timer_cancel()
        self.scope[TRANSPORT] = self.transport  # type: ignore[typeddict-unknown-key]
        size = len(self.url) + sum(len(name) + len(value) + 4 for name, value in self.headers)
        if self._head_fields > settings.GOAT_MAX_HEADERS or size > settings.GOAT_MAX_HEADER_BYTES:
            logger.warning("request head of %s fields, %s bytes: refused (431)", self._head_fields, size)
            self.scope[REFUSED] = HEAD_TOO_LARGE  # type: ignore[typeddict-unknown-key]
        super().on_headers_complete()
        self._cycles = [cycle for cycle in self._cycles if not cycle.response_complete]
        self._cycles.append(self.cycle)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and (self.cycle is None or self.cycle.response_complete):
            self._head_begins()  # the next request on this kept-alive connection (none is pipelined)
