"""Reads: what a caller may see of a game. Hidden information is removed here and nowhere else.

While a game runs a player sees their own hand, the counts of the others' hands and of the bazaar,
and in the event log another seat's hand and drawn tiles are replaced (docs/api.md "Events and what is hidden"). Once
the game has ended nothing is hidden. Auditors (the ``goat.audit_game`` permission; superusers have
every permission) see everything too, except in a running game where they hold a seat: there they
see what any player sees (docs/api.md). Who looks is a ``Viewer`` (goat.games.viewer: a seat, a
spectator or an auditor), resolved once per request and handed to the reads here; its
``sees_everything`` is that rule, for the API, the streams and the admin alike.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Exists, F, OuterRef, Prefetch, QuerySet, prefetch_related_objects
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext_lazy

from goat import engine
from goat.engine.rules import pending
from goat.engine.state import GameState
from goat.engine.status import OPEN
from goat.engine.tiles import tile_str, tiles_str
from goat.games import access, eventstore
from goat.games.eventstore import LoadedGame, StoredEvent
from goat.games.models import Game, Seat
from goat.games.shapes import GameSummarySerializer
from goat.games.viewer import Viewer
from goat.web.db import replica
from goat.web.errors import WebError

GAME_NOT_FOUND = gettext_lazy("No game with that id.")


def game_get(*, game_id: int, viewer=None) -> Game:
    """The game row (head and read model); 404 ``not_found`` if there is none, or if it is a private
    table's game that has not ended and ``viewer`` (given: the caller) may not see it (``game_visible``).

    In a public read (goat.web.db.replica) a game that has not ended on the standby is read again on the
    primary, and so is the rest of the request: a running game is always shown as the primary has it
    (an ended game cannot change, so the standby's copy of it is the primary's). So is one the standby
    does not have yet."""
    game = _game_row(game_id)
    if (game is None or not game.ended) and replica.reading_replica():
        replica.read_primary()
        game = _game_row(game_id)
    if game is None or (viewer is not None and not game_visible(game, viewer)):
        raise WebError.NOT_FOUND(GAME_NOT_FOUND)
    return game


def game_visible(game: Game, user, seat: int | None = None) -> bool:
    """Whether ``user`` may see ``game``: any game, except a private table's (docs/api.md "Private
    tables") while it has not ended, which only its seated players (``seat``, when the caller knows
    it) and staff see. Costs a query only for such a game."""
    if not game.private or game.ended:
        return True
    if not getattr(user, "is_authenticated", False):
        return False
    return seat is not None or access.sees_private_games(user) or Seat.objects.filter(game=game, player=user).exists()


def _game_row(game_id: int) -> Game | None:
    try:
        return Game.objects.get(pk=game_id)
    except (Game.DoesNotExist, ValueError, TypeError):
        return None


def game_state(*, game: Game, upto: int | None = None) -> GameState:
    """The engine state of ``game`` at its version (the snapshot when current), or after event ``upto``."""
    if upto is not None and upto != game.version:
        return eventstore.state_rebuild(game, upto=upto)
    return eventstore.state_load(game)


def games_listed() -> QuerySet[Game]:
    """Every game as the lists show it: newest first, with its seats and their players (one query for
    the seats of a whole page)."""
    return Game.objects.order_by("-id").prefetch_related(seats_prefetch())


def games_public(queryset: QuerySet[Game] | None = None) -> QuerySet[Game]:
    """The games of ``queryset`` (default: every game, as listed) that public lists show: not a private
    table's game before it has ended (the lobby and the home page never list a private one)."""
    return (games_listed() if queryset is None else queryset).exclude(private=True, status__in=OPEN)


def games_open(queryset: QuerySet[Game] | None = None, *, user) -> QuerySet[Game]:
    """The waiting games of ``queryset`` (default: every game) with a free seat ``user`` may take: not
    one they already hold a seat at (``?open=true`` of the game list, the play page's "open games")."""
    queryset = games_public(queryset).waiting().filter(private=False)
    queryset = queryset.annotate(_taken=Count("seat_set", distinct=True)).filter(_taken__lt=F("seats"))
    if user is not None and getattr(user, "is_authenticated", False):
        queryset = queryset.exclude(Exists(Seat.objects.filter(game=OuterRef("pk"), player=user)))
    return queryset


#: the permission that lets a user see hidden information (goat.games.access)
AUDIT_PERMISSION = access.AUDIT_PERMISSION


def game_view_for(*, game: Game, viewer: Viewer) -> dict[str, Any]:
    """The game view of ``game`` for ``viewer`` (their seat's view, or a spectator's)."""
    return game_view(game=game, state=game_state(game=game), seat=viewer.seat)


def loaded_view(loaded: LoadedGame) -> dict[str, Any]:
    """The game view of a command's answer: ``loaded`` as the seat it was loaded for sees it."""
    return game_view(game=loaded.game, state=loaded.state, seat=loaded.seat)


def game_view(*, game: Game, state: GameState, seat: int | None) -> dict[str, Any]:
    """The game as ``seat`` (``None``: a spectator) sees it."""
    public = state.public_dict()
    own = seat_part(state, seat)
    now = timezone.now()
    deadline = game.deadline if public["turn"] is not None else None
    return {
        "id": game.pk,
        "ruleset": public["ruleset"],
        "options": public["options"],
        "status": public["status"],
        "version": public["version"],
        "round": public["round"],
        "turn": public["turn"],
        "deadline": game.deadline,
        "seats": [{**seat_view, "computer": game.computer_seat(seat_view["seat"]),
                   "bot": game.bot_seat(seat_view["seat"])} for seat_view in public["seats"]],
        "line": public["line"],
        "bazaar": public["bazaar"],
        "hand": own["hand"],
        "legal_moves": own["legal_moves"],
        "fish_pot": public["fish_pot"],
        "server_seed_commitment": public["server_seed_commitment"],
        "server_seed": state.revealed_seed if state.ended else None,
        "result": public["result"],
        "created_at": game.created_at,
        # a game with a computer player counts for no rating, skill, chips, leaderboard or tournament
        "rated": game.rated,
        "computer_level": game.computer_level or None,
        "your_seat": seat,
        "server_time": now,
        # the player to move's time left, by the server's clock (null without a clock)
        "remaining_ms": max(0, int((deadline - now).total_seconds() * 1000)) if deadline is not None else None,
    }


def seat_part(state: GameState, seat: int | None) -> dict[str, Any]:
    """What only ``seat`` sees of the view: its ``hand`` and ``legal_moves`` (a spectator: none)."""
    if seat is None:
        return {"hand": [], "legal_moves": []}
    return {"hand": tiles_str(state.hand(seat)),
            "legal_moves": [{"tile": tile_str(t), "end": e} for t, e in engine.legal_moves(state, seat)]}


#: the fields of a view that depend on the moment it is written (a stream sets them when it writes)
CLOCK_FIELDS = ("server_time", "remaining_ms")


def stream_content(*, game: Game, state: GameState, stored: list[StoredEvent]
                   ) -> tuple[dict[str, Any], dict[int, dict[str, Any]]]:
    """What a committed command's update shows, built once by the command for every stream of the game
    (docs/architecture.md "Live delivery") and for the command's own answer (``command_view``): the
    public part, ``{"game", "events", "ended"}`` (a spectator's view, its clock fields None, and the
    events redacted for a spectator), and each seat's own part, ``{seat: {"seat", "hand",
    "legal_moves", "events"}}`` (the events redacted for that seat). A hidden tile is only ever in the
    own part of the seat that holds it."""
    view = game_view(game=game, state=state, seat=None)
    view.update(dict.fromkeys(CLOCK_FIELDS))
    dicts = [eventstore.event_dict(e) for e in stored]  # shaped once, redacted per viewer below

    def shown(seat: int | None) -> list[dict[str, Any]]:
        return dicts if game.ended else [redact(e, seat) for e in dicts]

    public = {"game": view, "events": shown(None), "ended": game.ended}
    own = {seat: {"seat": seat, **seat_part(state, seat), "events": shown(seat)} for seat in range(state.seats)}
    return public, own


def stream_view(public: dict[str, Any], own: dict[str, Any] | None) -> dict[str, Any]:
    """A viewer's view from a command's ``stream_content`` (``own``: the viewer's seat's part, None for a
    spectator), with the clock fields of now: what ``game_view`` gives that viewer at that version.
    ``public`` as the command built it or as a stream heard it (its deadline then an ISO 8601 text)."""
    view = dict(public)
    if own is not None:
        view.update(hand=own["hand"], legal_moves=own["legal_moves"], your_seat=own["seat"])
    now = timezone.now()
    deadline = view["deadline"] if view["turn"] is not None else None
    if isinstance(deadline, str):
        deadline = parse_datetime(deadline)
    view["server_time"] = now
    view["remaining_ms"] = max(0, int((deadline - now).total_seconds() * 1000)) if deadline is not None else None
    return view


def command_view(loaded: LoadedGame, stored: list[StoredEvent], *, user
                 ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A command's answer to ``user``, who holds ``loaded.seat`` (None: no seat; the viewer is resolved from
    it): the game view and the command's events, redacted for them. From the update the command built for the streams
    (``loaded.update``) when it has one, so the view and the redaction are made once for both; else
    read as any view is."""
    if loaded.update is not None and loaded.seat is not None:  # a seat's part: what game_view gives that seat
        public, own = loaded.update
        mine = own[loaded.seat]
        return stream_view(public["game"], mine), mine["events"]
    return (loaded_view(loaded),
            redact_events(stored, game=loaded.game, viewer=Viewer.at(loaded.game, user, loaded.seat)))


def redact(event: dict[str, Any], seat: int | None) -> dict[str, Any]:
    """Hide what ``seat`` may not see of ``event`` while the game runs."""
    etype = event["type"]
    if etype == "round_dealt":
        data = dict(event["data"])
        data["hands"] = [h if s == seat else len(h) for s, h in enumerate(data["hands"])]
        data["bazaar"] = len(data["bazaar"])
        return {**event, "data": data}
    if etype == "tile_drawn" and event["seat"] != seat:
        return {**event, "data": {"tile": None}}
    return event


def event_log(*, game: Game) -> list[dict[str, Any]]:
    """The whole stream, unredacted (the audit views of those who may see it; ended games)."""
    return [eventstore.event_dict(e) for e in eventstore.events_load(game_id=game.pk)]


def events_for(*, game: Game, viewer: Viewer, after: int = 0) -> list[dict[str, Any]]:
    """The stream after ``after``, redacted for ``viewer``."""
    return redact_events(eventstore.events_load(game_id=game.pk, after=after), game=game, viewer=viewer)


def redact_events(events: list[StoredEvent], *, game: Game, viewer: Viewer) -> list[dict[str, Any]]:
    """Stored events, shaped and redacted for ``viewer``."""
    dicts = [eventstore.event_dict(e) for e in events]
    if viewer.sees_everything(game):
        return dicts
    return [redact(e, viewer.seat) for e in dicts]


def scoresheet(*, game: Game, state: GameState) -> dict[str, Any]:
    """Per round per player: round points, remembered, total; fish rounds and the carried pot; the
    winners of each fixed-rounds round. ``points`` follow the game's rule (D-8: the score alone when
    remembered points do not count); ``remembered`` is shown either way."""
    counts = state.options.remembered_counts
    rounds = []
    for record in state.rounds:
        row = record.to_dict(counts)
        row["draw"] = record.draw
        row["hand_tiles"] = [tiles_str(h) for h in record.hand_tiles]  # revealed at the round's end
        rounds.append(row)
    return {
        "rounds": rounds,
        "fish_pot": state.fish_pot,
        "totals": [{"seat": s, "player": state.players[s], **state.scores[s].to_dict(counts)}
                   for s in range(state.seats)],
    }


def full_state(state: GameState, *, game: Game | None = None) -> dict[str, Any]:
    """Everything, hands and bazaar order included (ended games, staff). With ``game``, each seat
    says whether a computer player holds it, as in the game view (the API's replay)."""
    kind, seat = pending(state)
    t = state.table
    public = state.public_dict()
    if game is not None:
        public["seats"] = [{**s, "computer": game.computer_seat(s["seat"]), "bot": game.bot_seat(s["seat"])}
                           for s in public["seats"]]
    return {
        **public,
        "hands": state.hands_str(),
        "bazaar_tiles": tiles_str(t.bazaar) if t is not None else [],
        "must_lead": tile_str(t.must_lead) if t is not None and t.must_lead else None,
        "pending": {"action": kind, "seat": seat},
        "rounds": [r.to_dict(state.options.remembered_counts) for r in state.rounds],
        "server_seed": state.revealed_seed,
    }


def seats_prefetch() -> Prefetch:
    """Each game's seats in seat order with their players: one query for a whole list of games."""
    return Prefetch("seat_set", queryset=Seat.objects.select_related("player").order_by("seat"))


def games_recent_ended(*, limit: int) -> list[Game]:
    """The ``limit`` games that ended last (finished or interrupted), newest first, with their seats
    (two queries: the ``ended_at`` index read backwards, and the seats of those games)."""
    return list(Game.objects.played().filter(ended_at__isnull=False, private=False)
                .order_by("-ended_at", "-id").prefetch_related(seats_prefetch())[:limit])


def player_games(*, player) -> QuerySet[Game]:
    """The games ``player`` holds a seat at, newest first, each with its seats (a queryset to page:
    one count, one page and one query for the seats of the page's games). GET /api/players/me/games/,
    the player page and the play page's "my games"."""
    return games_listed().filter(seat_set__player=player)


def game_summary(game: Game) -> dict[str, Any]:
    """``game`` as GET /api/games/ lists it (goat.games.shapes: the list's one shape), for the lobby's
    live rows: its seats and their players are read (one query)."""
    prefetch_related_objects([game], seats_prefetch())
    return dict(GameSummarySerializer(game).data)
