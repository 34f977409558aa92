"""Live streams (docs/api.md "Live play"): ``GET /api/games/{id}/stream/`` and ``GET /api/stream/``.

A game's stream is public, as its GET is: without credentials the caller is an anonymous spectator
(goat.live.streaming.stream_viewer); the player feed needs a login (``_user``).

Async views served under ASGI. Before the stream starts every refusal is a problem-details answer
(401, 404, 400 for a bad ``after``/``Last-Event-ID``, 429 ``too_many_streams``). Then:

* the game stream subscribes to the game's channel and to its viewer's own channel of the game
  (goat.live.fanout, goat.games.notify) *before* reading, sends ``state`` (or, resuming after version
  V, the events after V as one ``update``), and for every version published after that sends one
  ``update``: built from what the command published (its public part, and the viewer's seat's own
  part: ``_from_content``), with no database read, when the messages lead on from the last version
  it sent; otherwise (a message missed, a command that published no content, an auditor's
  unredacted view, a resync) read through the selectors (the same ones as GET, so the same
  redaction). A stream that fell behind (several commands committed while it was reading) sends
  what they appended as one update. It closes after the update that ends the game;
* the player feed sends ``hello`` (the caller's waiting and running games) and then relays the feed
  events published for the caller, and, asked with ``?lobby=1``, the lobby's ``lobby`` events
  (goat.games.notify). The lobby is opt-in: every change of a waiting game goes to every feed that
  follows it, so only a client showing the open games asks for it (not one seated at a table).

Both are catch-up subscriptions (goat.live.fanout): when the process's subscription comes back after
a loss (Redis restarting), every listener hears ``RESYNC`` and its stream reads what it may have
missed from the database: the game stream the events after the last version it sent (as a
client's ``Last-Event-ID``), the feed the events the database says it owes (``feed_catch_up``).
Nothing is sent twice: the game stream sends only versions above its last, the feed skips what it
already sent (``FeedSent``).

While idle a stream waits on its listener (goat.live.fanout): no thread, no timer of its own, no
database query; a keep-alive at most every 15 s. Its process refreshes the claims of all its
streams on the token's stream slots in one batch.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any

from asgiref.sync import sync_to_async
from django.db.models import OuterRef, Subquery
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext

from goat.engine.state import GameState
from goat.games import access, audit, eventstore, notify, selectors
from goat.games.eventstore import StoredEvent
from goat.games.models import Game, GameStatus, Seat
from goat.games.viewer import Viewer
from goat.live import fanout, streaming
from goat.web.api.query import ascii_whole_number
from goat.web.errors import ServiceError, WebError
from goat.web.observe import metrics

logger = logging.getLogger(__name__)

_user = streaming.stream_user  # the player feed needs a login


def _after(request: HttpRequest) -> int | None:
    """The version to resume after (``?after=`` wins over ``Last-Event-ID``), or None."""
    raw = request.GET.get("after")
    name = "after"
    if raw is None:
        raw, name = request.headers.get("Last-Event-ID"), "Last-Event-ID"
    if raw is None or (name == "Last-Event-ID" and not raw.strip()):
        return None
    # the query's value is its digits alone, as every number in a query (goat.web.api.query); a header's
    # value may come with the spaces around it that HTTP allows
    version = ascii_whole_number(raw if name == "after" else raw.strip())
    if version is None or version >= 10**10:
        message = gettext("A game version: a whole number from 0.")
        raise WebError.INVALID(f"{name}: {message}", errors={name: [message]})
    return version


# --- reads (sync, in a worker thread; the same selectors as GET) ------------------------------



_connected = streaming.connected


@_connected
def _shared_read(game_id: int, after: int | None) -> tuple[Game, dict[int, int], GameState, list[StoredEvent] | None]:
    """What every viewer's message is built from, nothing redacted yet: the game row, its seats
    (player -> seat), the engine state at its version and the stored events after ``after`` up to
    that version (None without ``after``). The same for every viewer, so one read serves them all.
    The row and its seats are the event store's head, one statement (as a command loads them)."""
    head = eventstore.game_head(game_id=game_id)
    if head is None:
        raise Game.DoesNotExist(f"game {game_id}")
    game, _seat, players = head
    seats = {player: seat for seat, player in enumerate(players) if player is not None}
    state = eventstore.state_load(game)
    stored = None
    if after is not None:
        stored = [e for e in eventstore.events_load(game_id=game_id, after=after) if e.seq <= game.version]
    return game, seats, state, stored


def _unseated(shared, user) -> bool:
    """Whether ``user`` is signed in and holds no seat in ``shared`` (``_shared_read``): a viewer whose
    redaction asks whether they audit."""
    return getattr(user, "is_authenticated", False) and user.pk not in shared[1]


@_connected
def _audit_ask(user) -> None:
    """Ask whether ``user`` may audit (the audit permission), off the event loop: Django's ModelBackend
    keeps a user's permissions on the user object once asked, so the redaction for them, on the
    loop, then runs no query. Asked for a viewer without a seat only: a seat's view is its own,
    auditor or not (goat.games.viewer.Viewer)."""
    access.may_audit(user)


def _for_viewer(shared, user) -> tuple[dict[str, Any], list[dict[str, Any]] | None, bool]:
    """``user``'s view of ``shared`` and the events redacted for them (the selectors of GET: the
    seat's view, or a spectator's; an auditor's unredacted events), and whether the game is over.
    No query for a viewer with a seat, nor for one without whose permissions were asked
    (``_audit_ask``)."""
    game, seats, state, stored = shared
    viewer = Viewer.at(game, user, seats.get(user.pk) if getattr(user, "is_authenticated", False) else None)
    view = selectors.game_view(game=game, state=state, seat=viewer.seat)
    events = None if stored is None else selectors.redact_events(stored, game=game, viewer=viewer)
    return view, events, game.ended


@_connected
def _game_read(game_id: int, user, after: int | None) -> tuple[dict[str, Any], list[dict[str, Any]] | None, bool]:
    """The caller's view now, the events after ``after`` (redacted for them; None without ``after``)
    up to the view's version, and whether the game is over. A caller without a seat is asked whether
    they audit (``_audit_ask``)."""
    shared = _shared_read(game_id, after)
    if _unseated(shared, user):
        _audit_ask(user)
    return _for_viewer(shared, user)


@_connected
def _game_check(game_id: int, user, after: int | None) -> None:
    """The refusals before a game stream starts: 404 for no such game, 400 for an ``after`` beyond its
    version; and an auditor's look at a running game recorded. One query (the game and the caller's
    seat); a signed-in caller without a seat has their permissions asked as well."""
    games = Game.objects.filter(pk=game_id).only("id", "status", "version", "private")
    signed_in = getattr(user, "is_authenticated", False)
    if signed_in:  # the caller's seat in the same query
        games = games.annotate(caller_seat=Subquery(
            Seat.objects.filter(game=OuterRef("pk"), player=user).order_by().values("seat")[:1]))
    game = games.first()
    seat = game.caller_seat if game is not None and signed_in else None
    if game is None or not selectors.game_visible(game, user, seat):  # a private table's, while it runs
        raise WebError.NOT_FOUND(gettext("No game with that id."))
    if after is not None and after > game.version:
        message = gettext("The game is only at version %(version)s.") % {"version": game.version}
        raise WebError.INVALID(f"after: {message}", errors={"after": [message]})
    if Viewer.at(game, user, seat).sees_everything(game):  # an auditor sees it unredacted: who looked is recorded
        audit.audit_record_hidden_view(user=user, game=game, what="api_stream")


@_connected
def _feed_hello(user) -> dict[str, Any]:
    games = (Game.objects.open().filter(seat_set__player=user).order_by("-id")
             .values("id", "status", "version", "turn", "deadline")[:200])
    return {"games": list(games)}


@_connected
def _feed_missed(user, since) -> list[dict[str, Any]]:
    return notify.feed_catch_up(user=user, since=since)


_game_read_async = sync_to_async(_game_read, thread_sensitive=False)
_shared_read_async = sync_to_async(_shared_read, thread_sensitive=False)
_audit_ask_async = sync_to_async(_audit_ask, thread_sensitive=False)

#: reads under way, by (event loop, game, after, version heard): every stream of this process that
#: heard the same version of the same game after the same version waits on ONE read
_flights: dict[tuple[Any, int, int, Any], asyncio.Future] = {}


async def _update_read(game_id: int, user, after: int, heard: int | tuple[str, int]
                       ) -> tuple[dict[str, Any], list[dict[str, Any]] | None, bool]:
    """As ``_game_read(game_id, user, after)`` once version ``heard`` is committed (or, for
    ``("resync", generation)``, once the process's subscription is back), sharing the read with the
    process's other streams waiting for the same: a read under way for the same key started after
    ``heard`` was heard (so after its commit), so what it reads is at least at ``heard``. Only the
    viewer-independent part is shared; each stream redacts for its own viewer. A stream that goes
    away leaves the read to the others (each waits through a shield)."""
    key = (asyncio.get_running_loop(), game_id, after, heard)
    flight = _flights.get(key)
    if flight is None:
        flight = _flights[key] = asyncio.ensure_future(_shared_read_async(game_id, after))
        flight.add_done_callback(lambda done: _flights.pop(key) if _flights.get(key) is done else None)
    shared = await asyncio.shield(flight)
    if _unseated(shared, user):  # a spectator, or a player who left a waiting game
        await _audit_ask_async(user)
    return _for_viewer(shared, user)


def _from_content(batch: list[dict[str, Any]], last: int, player_id: int | None
                  ) -> tuple[dict[str, Any], list[dict[str, Any]], bool] | None:
    """The update that the messages of ``batch`` carry for the viewer ``player_id`` (None: anonymous)
    after version ``last``, as ``_game_read`` would give it, without a database read: each command's
    public part (``notify.command_committed``), with the viewer's own part where they hold a seat.
    None when they do not lead from ``last`` to the newest version heard (a message missed, or one
    without content): the stream then reads."""
    public = {m["from"]: m for m in batch if "update" in m and "from" in m}
    own = {m["version"]: m["own"] for m in batch if "own" in m}
    heard = max(m.get("version", 0) for m in batch)
    at, events, head, mine = last, [], None, None
    while at < heard:
        head = public.get(at)
        if head is None:
            return None
        seated = player_id is not None and player_id in head.get("seated", ())
        mine = own.get(head["version"]) if seated else None
        if seated and mine is None:
            return None
        events.extend((mine or head["update"])["events"])
        at = head["version"]
    if head is None:
        return None
    update = head["update"]
    return selectors.stream_view(update["game"], mine), events, update["ended"]


# --- views ---------------------------------------------------------------------------------


async def _game_body(game_id: int, user, after: int | None, fmt: str, key: str, claim: str) -> AsyncIterator[bytes]:
    try:
        player_id = user.pk if getattr(user, "is_authenticated", False) else None
        channels = [notify.game_channel(game_id)]
        if player_id is not None:  # what only this viewer's seat sees
            channels.append(notify.seat_channel(game_id, player_id))
        async with fanout.listen(*channels, hold=(key, claim)) as listener:  # Closed: stopping
            view, events, ended = await _game_read_async(game_id, user, after)
            last = view["version"]
            # an auditor without a seat sees the running game unredacted: not what the messages carry
            reads = view["your_seat"] is None and player_id is not None and access.may_audit(user)
            if events is None:
                yield streaming.encode(fmt, "state", view, last)
            elif events:
                yield streaming.encode(fmt, "update", {"version": last, "events": events, "game": view}, last)
            if ended:
                return
            async for batch in streaming.heard(listener):
                if batch is None:
                    yield streaming.keepalive(fmt)
                    continue
                resync = [m[fanout.RESYNC] for m in batch if fanout.is_resync(m)]
                heard = max(m.get("version", 0) for m in batch)
                sent = listener.sent_take()
                if heard <= last and not resync:
                    continue
                carried = None if resync or reads else _from_content(batch, last, player_id)
                if carried is not None:
                    view, events, ended = carried
                else:  # after a resync, whatever the event store holds after ``last``: nothing missed
                    view, events, ended = await _update_read(
                        game_id, user, last, (fanout.RESYNC, max(resync)) if resync else heard)
                if view["version"] > last:
                    last = view["version"]
                    metrics.stream_delivered(sent)
                    yield streaming.encode(fmt, "update", {"version": last, "events": events, "game": view}, last)
                if ended:
                    return
    except fanout.Closed:
        return
    finally:
        await streaming.slot_release(key, claim)


class PlayerFeed:
    """The player feed (a ``streaming.Feed``): ``hello``, then the caller's feed events and, asked
    for, the lobby's; after a resync what the database says it owes and a lobby refresh."""

    def __init__(self, user, lobby: bool) -> None:
        self.user, self.lobby = user, lobby
        self.sent = FeedSent()

    async def opening(self) -> list[tuple[str, dict[str, Any]]]:
        hello = await sync_to_async(_feed_hello, thread_sensitive=False)(self.user)
        self.sent = FeedSent.from_hello(hello["games"])
        return [("hello", hello)]

    async def missed(self, since) -> list[dict[str, Any]]:
        missed = await sync_to_async(_feed_missed, thread_sensitive=False)(self.user, since)
        return [*missed, *([notify.lobby_message(None, None)] if self.lobby else [])]

    def relayed(self, item: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        return (item["kind"], item["data"]) if self.sent.first(item["kind"], item["data"]) else None


def _feed_body(user, fmt: str, key: str, claim: str, lobby: bool = False) -> AsyncIterator[bytes]:
    channels = [notify.player_channel(user.pk), *([notify.LOBBY_CHANNEL] if lobby else [])]
    return streaming.relay(PlayerFeed(user, lobby), channels, fmt, key, claim)


class FeedSent:
    """What a feed stream has told its client, so that a catch-up (or a live message that repeats
    it) is not sent twice: each event once per game (``your_turn``: once per game and version)."""

    def __init__(self) -> None:
        self.once: set[tuple[str, Any]] = set()
        self.turns: dict[Any, int] = {}

    @classmethod
    def from_hello(cls, games: list[dict[str, Any]]) -> FeedSent:
        sent = cls()
        for game in games:  # hello told of these: a start or a turn already shown is not news
            if game["status"] == GameStatus.RUNNING:
                sent.once.add(("game_started", game["id"]))
                sent.turns[game["id"]] = game["version"]
        return sent

    def first(self, kind: str, data: dict[str, Any]) -> bool:
        """Whether ``kind``/``data`` is news to the client (and note that it is told now). Each ``lobby``
        event is: a waiting game changes several times."""
        game = data.get("game")
        if kind == "lobby":
            return True
        if kind == "your_turn":
            version = data.get("version") or 0
            if version <= self.turns.get(game, -1):
                return False
            self.turns[game] = version
            return True
        if kind == "tournament_table":
            game = (data.get("tournament"), game)
        if kind == "challenge":  # each of a challenge's events once (an accept once per player)
            game = ((data.get("challenge") or {}).get("id"), data.get("event"), data.get("by"))
        if (kind, game) in self.once:
            return False
        self.once.add((kind, game))
        return True


@streaming.require_get
async def game_stream(request: HttpRequest, game_id: int) -> HttpResponse:
    try:
        user, key = await streaming.stream_viewer(request)
        after = _after(request)
        await sync_to_async(_game_check, thread_sensitive=False)(game_id, user, after)
        claim = await streaming.slot_claim(key)
    except ServiceError as exc:
        return streaming.refusal(exc)
    fmt = streaming.stream_format(request)
    return streaming.stream_response(_game_body(game_id, user, after, fmt, key, claim), fmt)


def _lobby(request: HttpRequest) -> bool:
    """Whether the feed follows the lobby (``?lobby=1`` or ``true``; ``0``, ``false`` or absent: not)."""
    raw = request.GET.get("lobby")
    if raw is None or raw in ("0", "false"):
        return False
    if raw in ("1", "true"):
        return True
    message = gettext("1 (follow the lobby) or 0.")
    raise WebError.INVALID(f"lobby: {message}", errors={"lobby": [message]})


@streaming.require_get
async def player_stream(request: HttpRequest) -> HttpResponse:
    try:
        lobby = _lobby(request)
        user, key = await _user(request)
        claim = await streaming.slot_claim(key)
    except ServiceError as exc:
        return streaming.refusal(exc)
    fmt = streaming.stream_format(request)
    return streaming.stream_response(_feed_body(user, fmt, key, claim, lobby), fmt)
