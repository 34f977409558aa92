"""The tournament stream (docs/api.md "Live play"): ``GET /api/tournaments/{id}/stream/``.

Anyone may follow it (a token, the session or nobody: a tournament is public). First ``state``: the
tournament as GET /api/tournaments/{id}/ shows it, with the first page of its standings
(``{"count", "results"}`` as GET .../standings/ pages them). Then ``update``, of the same shape,
whenever it changed: the tournament's services publish "tournament T changed"
(``tournaments.services.tournament_changed``) after the commit of every change (a table started or
ended, the standings moved, a round, the start, the finish, an organiser's action), and the stream
reads the tournament again and sends it if it differs from what it sent last. It closes after the
update that finishes the tournament (or cancels it).

As the game streams (goat.games.streams): SSE (the default) or NDJSON (``Accept:
application/x-ndjson``); a keep-alive at most every GOAT_STREAM_KEEPALIVE_SECONDS; refusals are
problem details before the stream starts (404 unknown tournament, 429 ``too_many_streams`` when the
caller's stream slots are taken: per token, per signed-in user, or per client address for anonymous
callers, one budget with the game streams; 429 ``throttled`` for an anonymous caller over the
anonymous rate limit: goat.live.streaming.stream_viewer). Resume: each message's SSE ``id`` is a
digest of what it carries; a client that comes back with ``Last-Event-ID`` (or ``?after=``) gets
nothing until the next change if it had seen the latest, else one ``update`` with the tournament as
it is now, so it misses nothing. When the process's subscription to the live channel comes back
after a loss, the listener hears a catch-up message and the stream reads the tournament again, so a
change published meanwhile is not missed either.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import AsyncIterator
from typing import Any

from asgiref.sync import sync_to_async
from django.db import close_old_connections
from django.http import HttpRequest, HttpResponse
from rest_framework.utils.encoders import JSONEncoder

from goat.live import fanout, streaming
from goat.web.api.pagination import Pagination
from goat.web.errors import ServiceError, WebError

from . import selectors, services
from .models import TournamentStatus

#: statuses after which nothing changes any more: the stream sends the update that reports it and closes
FINAL = frozenset(TournamentStatus.values) - {TournamentStatus.SCHEDULED, TournamentStatus.RUNNING}


def tournament_message(tournament_id: int) -> dict[str, Any] | None:
    """What ``state`` and ``update`` carry: the tournament as GET shows it and the first page of its
    standings (None: no such tournament)."""
    tournament = selectors.tournament_get(tournament_id=tournament_id)
    if tournament is None:
        return None
    standings = selectors.tournament_standings(tournament=tournament)
    return {**selectors.tournament_detail(tournament),
            "standings": {"count": len(standings),
                          "results": [selectors.standing_row(s) for s in standings[:Pagination.page_size]]}}


def _read(tournament_id: int) -> dict[str, Any] | None:
    close_old_connections()
    try:
        return tournament_message(tournament_id)
    finally:
        close_old_connections()


_read_async = sync_to_async(_read, thread_sensitive=False)


def _digest(message: dict[str, Any]) -> str:
    text = json.dumps(message, cls=JSONEncoder, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _resume_from(request: HttpRequest) -> str | None:
    raw = request.GET.get("after")
    if raw is None:
        raw = request.headers.get("Last-Event-ID")
    raw = (raw or "").strip()
    return raw or None


async def _body(tournament_id: int, first: dict[str, Any], seen: str | None, fmt: str, key: str, claim: str
                ) -> AsyncIterator[bytes]:
    try:
        async with fanout.listen(services.tournament_channel(tournament_id), hold=(key, claim)) as listener:
            # read again once subscribed: a change committed from here on is heard, none before it is unread
            message = await _read_async(tournament_id) or first
            last = _digest(message)
            if seen is None:
                yield streaming.encode(fmt, "state", message, last)
            elif seen != last:
                yield streaming.encode(fmt, "update", message, last)
            if message["status"] in FINAL:
                return
            async for batch in streaming.heard(listener):
                if batch is None:
                    yield streaming.keepalive(fmt)
                    continue
                message = await _read_async(tournament_id)
                if message is None:  # deleted meanwhile
                    return
                digest = _digest(message)
                if digest != last:
                    last = digest
                    yield streaming.encode(fmt, "update", message, digest)
                if message["status"] in FINAL:
                    return
    except fanout.Closed:
        return
    finally:
        await streaming.slot_release(key, claim)


@streaming.require_get
async def tournament_stream(request: HttpRequest, tournament_id: int) -> HttpResponse:
    try:
        _viewer, key = await streaming.stream_viewer(request)
        first = await _read_async(tournament_id)
        if first is None:
            raise WebError.NOT_FOUND(services.TOURNAMENT_NOT_FOUND)
        claim = await streaming.slot_claim(key)
    except ServiceError as exc:
        return streaming.refusal(exc)
    fmt = streaming.stream_format(request)
    return streaming.stream_response(_body(tournament_id, first, _resume_from(request), fmt, key, claim), fmt)
