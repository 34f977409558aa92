"""Live delivery of committed commands (docs/architecture.md "Live delivery", docs/api.md "Live play").

After a command commits, ``command_committed`` publishes on the game's channel ``{"version"}`` and
the update itself (``"from"``: the version before it, ``"update"``: the public part of
``selectors.stream_content``), with each seated player's own part (their seat, hand, legal moves
and the events redacted for their seat) on that player's channel of the game (``seat_channel``),
and the feed events on the seated players' channels: ``game_started``,
``your_turn``, ``game_ended``; and, when the command changed a waiting game (created, a seat taken
or left, started, cancelled), ``lobby`` ``{"game", "status"}`` on the one lobby channel every feed
also listens to, so a lobby's open games update live. A game stream writes an update from those
messages without reading the database; it reads (through the selectors) only what they do not carry:
a version it missed, a command whose seats were not known to it (``players`` None), an auditor's
unredacted view. Rematch offers and tournament tables are published by their own services with
``feed_publish``. Publishing happens on commit, so a stream never hears of a version that a rollback
took back.

A message published while a web process's subscription was down is lost to that process; its streams
then catch up from the database (goat.live.fanout ``RESYNC``): a game stream from the event store,
the feed from ``feed_catch_up``, which derives from the rows what the feed would have told since a
moment. Apps that publish feed events of their own derive theirs as receivers of
``goat.games.signals.feed_catch_up`` (the tournaments app for ``tournament_table``).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any

from goat.engine.status import CANCELLED, OPEN, RUNNING, WAITING
from goat.games import selectors, signals
from goat.games.models import Game, Seat
from goat.live import fanout


def game_channel(game_id: int) -> str:
    return f"game:{game_id}"


def player_channel(player_id: int) -> str:
    return f"player:{player_id}"


#: the channel of the lobby's changes (``lobby`` feed events), heard by every player feed
LOBBY_CHANNEL = "lobby"


def lobby_message(game_id: int | None, status: str | None, summary: dict[str, Any] | None = None
                  ) -> dict[str, Any]:
    """The feed event that tells a lobby waiting game ``game_id`` is now at ``status`` (``None``, None:
    anything may have changed, after the feed's subscription was lost); a game still waiting comes
    with its ``summary`` as the game list shows it, so a lobby updates its row without a request."""
    return feed_message("lobby", {"game": game_id, "status": status, **({"summary": summary} if summary else {})})


def lobby_summary(game: Game) -> dict[str, Any]:
    """``game``, the row as a command committed it, as GET /api/games/ lists it (``selectors.game_summary``)."""
    return selectors.game_summary(game)


def seat_channel(game_id: int, player_id: int) -> str:
    """What only ``player_id``'s seat at ``game_id`` may see of each update: heard by their streams of
    that game alone."""
    return f"game:{game_id}:player:{player_id}"


def feed_publish(player_ids: Iterable[int], kind: str, data: dict[str, Any]) -> None:
    """The feed event ``kind`` to each of ``player_ids``, in one payload."""
    fanout.publish_all([(player_channel(player_id), feed_message(kind, data)) for player_id in player_ids])


def feed_message(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    return {"kind": kind, "data": data}


def _seats(game_id: int) -> dict[int, int]:
    return dict(Seat.objects.filter(game_id=game_id).order_by().values_list("seat", "player_id"))


def command_committed(game: Game, was_status: str, was_version: int | None = None,
                      content: tuple[dict[str, Any], dict[int, dict[str, Any]]] | None = None,
                      players: Sequence[int | None] | None = None) -> Callable[[], None]:
    """What to publish once the command that brought ``game`` from ``was_version`` to its current version
    commits (the values are taken now: the row object may change before the commit). ``content``:
    ``selectors.stream_content`` of the command. ``players``: who holds each seat once the command has
    committed (the seats its load read, with the seat it took or freed); None: not known, so the
    seats are read once it has committed and no content is published (the streams read)."""
    game_id, version, status, turn = game.pk, game.version, game.status, game.turn
    deadline = game.deadline.isoformat() if game.deadline is not None else None
    result = game.result
    # a game still waiting is told to the lobby with its summary: the row as this command leaves it
    waiting = copy.copy(game) if was_status == WAITING and status == WAITING else None
    if was_version is None or players is None:
        content = None  # whose own part is whose is not known: the streams read
    held = {seat: player for seat, player in enumerate(players) if player is not None} if players is not None else None

    def send() -> None:
        head: dict[str, Any] = {"version": version}
        messages = [(game_channel(game_id), head)]
        if was_status == WAITING:  # a game of the lobby: created, a seat taken or left, started, cancelled
            summary = lobby_summary(waiting) if waiting is not None else None
            messages.append((LOBBY_CHANNEL, lobby_message(game_id, status, summary)))
        started = was_status == WAITING and status == RUNNING
        ended = was_status in OPEN and status not in OPEN
        if started or ended or turn is not None or content is not None:
            seats = held if held is not None else _seats(game_id)
            if content is not None:
                public, own = content
                parts = [(seats[seat], part) for seat, part in own.items() if seat in seats]
                # "seated": whose streams wait for an own part (carried by this same payload)
                head.update({"from": was_version, "update": public, "seated": [player for player, _ in parts]})
                messages.extend((seat_channel(game_id, player), {"version": version, "own": part})
                                for player, part in parts)
            for player_id in seats.values():
                if started:
                    messages.append((player_channel(player_id), feed_message("game_started", {"game": game_id})))
                if ended:
                    messages.append((player_channel(player_id),
                                     feed_message("game_ended", {"game": game_id, "result": result})))
            if turn is not None and turn in seats:
                turn_data = {"game": game_id, "version": version, "deadline": deadline}
                messages.append((player_channel(seats[turn]), feed_message("your_turn", turn_data)))
        fanout.publish_all(messages)  # one payload: one round trip to the backend per command

    return send




def feed_catch_up(*, user, since: datetime, limit: int = 200) -> list[dict[str, Any]]:
    """The feed messages ``user`` is owed by what happened since ``since``, from the database: for
    their games, ``game_ended`` (ended since), ``game_started`` (running now), ``your_turn`` (running,
    their turn now, at the current version), ``rematch_offered`` (offered to them since); then what
    each receiver of ``signals.feed_catch_up`` answers. A feed sends each once
    (goat.games.streams.FeedSent), so what was already delivered live is not repeated. At most
    ``limit`` games of each kind, the newest."""
    messages: list[dict[str, Any]] = []
    mine = Seat.objects.filter(player=user)
    for game in (Game.objects.filter(pk__in=mine.values("game_id"), ended_at__gte=since)
                 .exclude(status__in=OPEN).order_by("-ended_at").values("id", "result")[:limit]):
        messages.append(feed_message("game_ended", {"game": game["id"], "result": game["result"]}))
    running = (Seat.objects.filter(player=user, game__status=RUNNING).order_by("-game_id")
               .values("game_id", "seat", "game__version", "game__turn", "game__deadline")[:limit])
    for seat in running:
        messages.append(feed_message("game_started", {"game": seat["game_id"]}))
        if seat["game__turn"] == seat["seat"]:
            deadline = seat["game__deadline"]
            messages.append(feed_message("your_turn", {
                "game": seat["game_id"], "version": seat["game__version"],
                "deadline": deadline.isoformat() if deadline is not None else None}))
    offers = (Game.objects.filter(rematch_of__in=mine.values("game_id"), created_at__gte=since)
              .exclude(pk__in=mine.values("game_id")).exclude(status=CANCELLED)
              .order_by("-id").values("id", "created_by__username", "rematch_of_id")[:limit])
    for offer in offers:
        messages.append(feed_message("rematch_offered", {
            "game": offer["id"], "from": offer["created_by__username"], "rematch_of": offer["rematch_of_id"]}))
    for _receiver, owed in signals.feed_catch_up.send(sender=Game, user=user, since=since):
        messages.extend(owed)
    return messages
