"""The bot stream, ``GET /api/bot/stream/events/`` (docs/api.md "Bots"): NDJSON, one message per
line, the message's name in ``kind``, an empty line as a keep-alive (at least every 15 s).

For a bot account only (401 without credentials, 403 ``not_a_bot``), on the caller's stream slots.
It listens to the bot's feed channel (goat.games.notify) *before* it reads, then sends what is
already there (each open challenge naming the bot as ``challenge`` with ``event: created``, each of
its running games as ``game_start``) and then what its feed hears, renamed for bots: ``challenge``
as it is, ``game_started`` as ``game_start`` ``{"game"}``, ``game_ended`` as ``game_finish``
``{"game", "result"}``. After a lost subscription (``RESYNC``) it reads what the feed is owed since
it opened (goat.games.notify.feed_catch_up); nothing is sent twice (goat.games.streams.FeedSent).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from asgiref.sync import sync_to_async
from django.http import HttpRequest, HttpResponse
from django.utils import timezone

from goat.games import notify
from goat.games.models import Game
from goat.games.streams import FeedSent
from goat.live import streaming
from goat.web.errors import ServiceError

from . import bots
from .models import Answer, ChallengeStatus

#: the feed's events a bot hears, by their names on the bot stream
RENAMED = {"challenge": "challenge", "game_started": "game_start", "game_ended": "game_finish"}


def bot_message(item: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """A feed message as the bot stream names it (None: not a bot's business)."""
    kind = RENAMED.get(item["kind"])
    return (kind, item["data"]) if kind is not None else None


@streaming.connected
def _hello(user) -> list[dict[str, Any]]:
    """What a bot's stream starts with: the open challenges waiting for its answer, its running games."""
    from .selectors import challenge_view, challenges_listed

    now = timezone.now()
    waiting = (challenges_listed().filter(status=ChallengeStatus.OPEN, expires_at__gt=now, entries__player=user,
                                          entries__answer=Answer.PENDING).order_by("id")[:100])
    messages = [notify.feed_message("challenge", {"event": "created", "by": None,
                                                  "challenge": challenge_view(challenge, None)})
                for challenge in waiting]
    for game_id in Game.objects.running().filter(seat_set__player=user).order_by("id").values_list("pk", flat=True):
        messages.append(notify.feed_message("game_started", {"game": game_id}))
    return messages


@streaming.connected
def _missed(user, since) -> list[dict[str, Any]]:
    return notify.feed_catch_up(user=user, since=since)


@streaming.connected
def _bot_check(user) -> None:
    bots.bot_required(user)


class BotFeed:
    """The bot stream (a ``streaming.Feed``): what is already there, then the feed renamed for bots."""

    def __init__(self, user) -> None:
        self.user = user
        self.sent = FeedSent()

    async def opening(self) -> list[tuple[str, dict[str, Any]]]:
        hello = await sync_to_async(_hello, thread_sensitive=False)(self.user)
        return [message for message in map(self.relayed, hello) if message is not None]

    async def missed(self, since) -> list[dict[str, Any]]:
        return await sync_to_async(_missed, thread_sensitive=False)(self.user, since)

    def relayed(self, item: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        message = bot_message(item)
        return message if message is not None and self.sent.first(*message) else None


def _body(user, key: str, claim: str) -> AsyncIterator[bytes]:
    return streaming.relay(BotFeed(user), [notify.player_channel(user.pk)], streaming.NDJSON, key, claim)


@streaming.require_get
async def bot_stream(request: HttpRequest) -> HttpResponse:
    try:
        user, key = await streaming.stream_user(request)
        await sync_to_async(_bot_check, thread_sensitive=False)(user)
        claim = await streaming.slot_claim(key)
    except ServiceError as exc:
        return streaming.refusal(exc)
    return streaming.stream_response(_body(user, key, claim), streaming.NDJSON)


