"""What every live stream shares (the games' streams, goat.games.streams; the tournament stream,
tournaments.streams): the two wire formats, a stream's response, who the caller is and its slot on
the caller's stream limit, what its listener hears, and its refusals before it starts, as problem details.

Every stream kind takes its caller from ``stream_caller``/``stream_viewer``: the token's user, the
session's, or an anonymous viewer. Slots are keyed ``token:…``, ``user:…`` or ``address:<client
address>``, the same key for a game, feed or tournament stream, so one caller has one budget of
``GOAT_STREAMS_PER_TOKEN`` open streams across stream kinds. Every anonymous open counts against
the anonymous rate limit (``anon``, per client address), whatever the stream.

Wire formats: Server-Sent Events (the default) or NDJSON (``Accept: application/x-ndjson``), chosen
by ``stream_format``; ``encode`` writes one message in either, ``keepalive`` the idle line.

A feed (the player feed, goat.games.streams; the bot stream, challenges.streams) relays what its
channels hear to one caller; ``relay`` is its read loop, the ``Feed`` says what it sends.
"""

from __future__ import annotations

import functools
import json
import logging
import math
from collections.abc import AsyncIterator, Callable
from datetime import datetime
from types import SimpleNamespace
from typing import Any, Protocol, TypeVar

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.db import close_old_connections
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy
from rest_framework import exceptions
from rest_framework.utils.encoders import JSONEncoder

from goat.live import fanout
from goat.web.api.auth import TokenAuthentication
from goat.web.api.problems import PROBLEM_CONTENT_TYPE, problem_body
from goat.web.api.throttling import AnonRateThrottle, client_ip
from goat.web.errors import ServiceError, WebError
from goat.web.observe import metrics

logger = logging.getLogger(__name__)

SSE = "text/event-stream"
NDJSON = "application/x-ndjson"
RETRY_AFTER_SECONDS = 5
TOO_MANY = gettext_lazy("This token already holds {limit} open streams; close one first.")


def problem(status: int, code: str, detail: str, headers: dict[str, str] | None = None,
            errors: Any = None) -> HttpResponse:
    """A stream's refusal before it starts, as problem details."""
    response = JsonResponse(problem_body(status=status, code=code, detail=detail, errors=errors), status=status,
                            content_type=PROBLEM_CONTENT_TYPE)
    for name, value in (headers or {}).items():
        response[name] = value
    response["Vary"] = "Authorization, Cookie"
    return response


def refusal(exc: ServiceError) -> HttpResponse:
    """``exc`` as a stream's refusal (problem details)."""
    return problem(exc.status, exc.code, exc.detail, headers=exc.headers, errors=exc.errors)


def token_user(request: HttpRequest):
    """(user, stream-slot key) by token, (None, None) without one; a bad token is a 401 ServiceError."""
    try:
        found = TokenAuthentication().authenticate(request)
    except exceptions.AuthenticationFailed as exc:
        raise WebError.AUTHENTICATION_FAILED(str(exc.detail),
                           headers={"WWW-Authenticate": "Token"}) from None
    finally:
        close_old_connections()
    if found is not None:
        return found[0], f"token:{found[1].key}"
    return None, None


async def stream_caller(request: HttpRequest):
    """(user, stream-slot key) of the token or the session; (None, None) without either."""
    user, key = await sync_to_async(token_user, thread_sensitive=False)(request)
    if user is None:
        session_user = await request.auser()
        if session_user.is_authenticated:
            user, key = session_user, f"user:{session_user.pk}"
    return user, key


async def stream_user(request: HttpRequest):
    """The caller of a stream that needs a login (the player feed, the bot stream); 401 without
    credentials."""
    user, key = await stream_caller(request)
    if user is None:
        raise WebError.NOT_AUTHENTICATED(gettext("Authentication credentials were not provided."),
                           headers={"WWW-Authenticate": "Token"})
    return user, key


_Read = TypeVar("_Read", bound=Callable[..., Any])


def connected(read: _Read) -> _Read:
    """``read``, run in a worker thread, gives back the database connection it took (as a request
    would at its end): the threads outlive the read."""
    @functools.wraps(read)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        close_old_connections()
        try:
            return read(*args, **kwargs)
        finally:
            close_old_connections()

    return wrapped  # type: ignore[return-value]


def _anonymous_admit(request: HttpRequest) -> None:
    """An anonymous stream is counted like any anonymous API request: the ``anon`` rate, per address."""
    throttle = AnonRateThrottle()
    if not throttle.allow_request(SimpleNamespace(user=AnonymousUser(), META=request.META), None):
        wait = throttle.wait()
        raise WebError.THROTTLED(gettext("Request was throttled."),
                           headers={"Retry-After": str(max(1, math.ceil(wait or 1)))})


async def stream_viewer(request: HttpRequest):
    """The caller of a stream anyone may follow (docs/api.md "Anonymous reads"): the token's or the
    session's user, else an anonymous viewer whose open streams count per client address (the same
    limit as a token's) under the anonymous rate limit (429 ``throttled``). A bad token is still 401."""
    user, key = await stream_caller(request)
    if user is not None:
        return user, key
    await sync_to_async(_anonymous_admit, thread_sensitive=False)(request)
    return AnonymousUser(), f"address:{client_ip(request)}"


def stream_format(request: HttpRequest) -> str:
    """NDJSON when the client asks for it (and not for SSE), else SSE."""
    accept = request.headers.get("Accept", "")
    return NDJSON if NDJSON in accept and SSE not in accept else SSE


def encode(fmt: str, kind: str, data: dict[str, Any], event_id: int | str | None = None) -> bytes:
    """One message of ``kind`` in ``fmt`` (SSE: with ``id`` when ``event_id`` is given)."""
    if fmt == NDJSON:
        return (json.dumps({"kind": kind, **data}, cls=JSONEncoder, separators=(",", ":")) + "\n").encode()
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {kind}\ndata: {json.dumps(data, cls=JSONEncoder, separators=(',', ':'))}\n\n".encode()


def keepalive(fmt: str) -> bytes:
    return b"\n" if fmt == NDJSON else b": keep-alive\n\n"


def stream_response(body: AsyncIterator[bytes], fmt: str) -> StreamingHttpResponse:
    response = StreamingHttpResponse(body, content_type=fmt if fmt == NDJSON else f"{SSE}; charset=utf-8")
    response["Cache-Control"] = "no-cache, no-transform"
    response["X-Accel-Buffering"] = "no"  # nginx: do not buffer a stream (docs/operations.md)
    response["Vary"] = "Authorization, Cookie, Accept"
    return response


async def slot_claim(key: str) -> str:
    """A slot of ``key``'s open streams (``GOAT_STREAMS_PER_TOKEN``), or 429 ``too_many_streams``."""
    limit = settings.GOAT_STREAMS_PER_TOKEN
    claim = await sync_to_async(fanout.stream_claim, thread_sensitive=False)(key, limit)
    if claim is None:
        raise WebError.TOO_MANY_STREAMS(TOO_MANY.format(limit=limit),
                           headers={"Retry-After": str(RETRY_AFTER_SECONDS)})
    return claim


async def slot_release(key: str, claim: str) -> None:
    try:
        await sync_to_async(fanout.stream_release, thread_sensitive=False)(key, claim)
    except Exception:  # the claim expires on its own
        logger.warning("live: stream claim not released", exc_info=True)


async def heard(listener) -> AsyncIterator[list[dict[str, Any]] | None]:
    """What ``listener`` hears, a batch of messages at a time; None when nothing came for a
    keep-alive's time. Ends when the channel closes. (The stream's slot claim is refreshed by the
    process with all the others: goat.live.fanout.)"""
    wait = fanout.within(settings.GOAT_STREAM_KEEPALIVE_SECONDS)
    while True:
        try:
            message = await listener.get(wait)
            queued = listener.pending()
        except fanout.Closed:
            return
        yield None if message is None else [message, *queued]


class Feed(Protocol):
    """What a feed stream sends, around ``relay``'s read loop."""

    async def opening(self) -> list[tuple[str, dict[str, Any]]]:
        """The messages (name, data) the stream starts with, read once its channels are heard."""

    async def missed(self, since: datetime) -> list[dict[str, Any]]:
        """The channel messages the caller may have missed since ``since``, after a lost subscription."""

    def relayed(self, item: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        """A channel message as the stream sends it (name, data); None: not news to this caller."""


async def relay(feed: Feed, channels: list[str], fmt: str, key: str, claim: str) -> AsyncIterator[bytes]:
    """A feed stream's body: listen on ``channels`` *before* reading, send ``feed.opening()``, then each
    message heard as ``feed.relayed`` names it, a keep-alive while idle. After a lost subscription
    (``RESYNC``) ``feed.missed`` since the stream opened comes first; ``relayed`` skips what was sent.
    The slot ``claim`` of ``key`` is released when the stream ends."""
    try:
        async with fanout.listen(*channels, hold=(key, claim)) as listener:
            since = timezone.now()
            for kind, data in await feed.opening():
                yield encode(fmt, kind, data)
            async for batch in heard(listener):
                if batch is None:
                    yield keepalive(fmt)
                    continue
                metrics.stream_delivered(listener.sent_take())
                items = [item for item in batch if not fanout.is_resync(item)]
                if len(items) < len(batch):  # the subscription is back: what did it miss?
                    items = [*await feed.missed(since), *items]
                for item in items:
                    message = feed.relayed(item)
                    if message is not None:
                        yield encode(fmt, *message)
    except fanout.Closed:
        return
    finally:
        await slot_release(key, claim)


def require_get(view):
    """Only GET: any other method (HEAD and OPTIONS too: a stream has no head to give) is 405
    ``method_not_allowed`` as problem details, with ``Allow: GET``."""

    @functools.wraps(view)
    async def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if request.method != "GET":
            refused = exceptions.MethodNotAllowed(request.method)  # its detail as DRF says it, translated
            return problem(405, "method_not_allowed", str(refused.detail), headers={"Allow": "GET"})
        return await view(request, *args, **kwargs)

    return wrapped
