"""Deciding commands: what a command produces (its event and every forced action after it).

``decide`` checks a command with the rules of :mod:`goat.engine.moves` (a play is accepted exactly
when it is one of ``legal_moves``), writes its event, and applies it and the forced actions that
follow (deal, draw, knock, reveal) with the same rule functions a replay runs. :class:`Session` does
the same on one machine kept in memory.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from . import deal as dealing
from .commands import CancelGame, Command, CreateGame, LeaveSeat, PlayTile, Resign, TakeSeat, TimeOut
from .errors import NO_SUCH_SEAT, NOT_SEATED, NOT_WAITING, SEAT_TAKEN, STARTED, IllegalMove, RulesError
from .events import Event, dispatch, is_seed_hex, reveal
from .machine import GameMachine, RoundMachine, freeze, thaw
from .moves import CHOICES, DEAL, DRAW, KNOCK, PLAY, Move, Waits, check_play, moves_of, pending
from .rounds import draw_tile, knock, next_deal, place_tile, start_round
from .rulesets import resolve_options
from .state import GameState
from .status import CANCEL_LEFT, WAITING
from .tiles import TEXT, Tile, as_tile, parse_tile


def _deal_event(round_no: int, attempt: int, deal: dealing.Deal) -> Event:
    hands, bazaar = dealing.deal_texts(deal)
    return {"type": "round_dealt", "seat": None, "data": {
        "round": round_no, "attempt": attempt, "hands": hands, "bazaar": bazaar, "void": deal.void,
    }}


def _advance(g: GameMachine, events: list[Event]) -> Waits:
    """Perform every forced action, appending its event; returns what the game then waits for."""
    while True:
        waits = pending(g)
        kind, seat = waits
        if kind in CHOICES:
            return waits
        t: RoundMachine = g.table  # type: ignore[assignment]
        if kind == DRAW:
            events.append({"type": "tile_drawn", "seat": seat, "data": {"tile": TEXT[t.bazaar[0]]}})
            draw_tile(g, t, seat)  # type: ignore[arg-type]
        elif kind == KNOCK:
            events.append({"type": "knocked", "seat": seat, "data": {}})
            knock(g, t, seat)  # type: ignore[arg-type]
        elif kind == DEAL:
            round_no, attempt, deal = next_deal(g)
            events.append(_deal_event(round_no, attempt, deal))
            start_round(g, deal.hands, deal.bazaar, deal.void, deal.held)
        else:  # REVEAL
            if g.server_seed is None:
                raise RulesError("seed_unknown", "the server seed is needed to end the game.")
            events.append({"type": "seed_revealed", "seat": None, "data": {"server_seed": g.server_seed}})
            reveal(g, g.server_seed)


def play_round_out(g: GameMachine, choose: Callable[[GameMachine, int, list[Move]], Move],
                   forced: Callable[[GameMachine, str, int], None] | None = None) -> None:
    """Play the round on the machine ``g`` to its end: ``choose(g, seat, legal)`` picks each play among
    the engine's legal moves, and the draws and knocks are made as the rules force them (``forced(g,
    kind, seat)``, when given, hears of each just before it is made: what the table then shows the
    others). It stops where the next deal would be (or the game's end), so it needs no seed: the
    expert's playouts (:mod:`goat.engine.expert`) on a sampled table."""
    while True:
        waits = pending(g)
        kind, seat = waits
        t: RoundMachine = g.table  # type: ignore[assignment]
        if kind == PLAY:
            tile, end = choose(g, seat, moves_of(g, waits))  # type: ignore[arg-type]
            place_tile(g, t, seat, tile, end)  # type: ignore[arg-type]
        elif kind == DRAW:
            if forced is not None:
                forced(g, kind, seat)  # type: ignore[arg-type]
            draw_tile(g, t, seat)  # type: ignore[arg-type]
        elif kind == KNOCK:
            if forced is not None:
                forced(g, kind, seat)  # type: ignore[arg-type]
            knock(g, t, seat)  # type: ignore[arg-type]
        else:
            return


def advance(state: GameState) -> tuple[GameState, list[Event]]:
    """Perform every forced action up to the next real choice."""
    events: list[Event] = []
    g = thaw(state)
    _advance(g, events)
    return freeze(g), events


def _create(command: CreateGame) -> tuple[GameMachine, Event]:
    if not is_seed_hex(command.server_seed_hex):
        raise RulesError("invalid_seed", "the server seed must be 64 lowercase hex digits.")
    options = resolve_options(command.ruleset, command.seats, command.options)
    event: Event = {"type": "game_created", "seat": None, "data": {
        "ruleset": command.ruleset, "options": options.to_dict(), "seats": command.seats,
        "server_seed_commitment": dealing.commitment(command.server_seed_hex),
    }}
    g = dispatch(None, event, True)
    g.server_seed, g.stream = command.server_seed_hex, None
    return g, event


def _decide_on(g: GameMachine | None, command: Command) -> tuple[GameMachine, list[Event], Waits]:
    """Apply ``command`` and every forced action after it to the machine ``g``; the machine, the events
    and what the game then waits for. A refused command leaves ``g`` as it was."""
    if command.__class__ is PlayTile and g is not None:  # a play: checked, applied, its event
        seat, given, end = command
        tile = given if given.__class__ is Tile else parse_tile(given) if isinstance(given, str) else as_tile(given)
        if tile is None:
            raise IllegalMove("invalid_tile", f"{given!r} is not a domino tile.", given=repr(given))
        end = check_play(g, seat, tile, end)
        place_tile(g, g.table, seat, tile, end)  # type: ignore[arg-type]
        events = [{"type": "tile_played", "seat": seat, "data": {"tile": TEXT[tile], "end": end}}]
        return g, events, _advance(g, events)
    if isinstance(command, CreateGame):
        if g is not None:
            raise RulesError("game_exists", "the game already exists.")
        g, created = _create(command)
        return g, [created], pending(g)
    if g is None:
        raise RulesError("no_game", "the game does not exist.")
    event: Event
    if isinstance(command, TakeSeat):
        if g.status != WAITING:
            raise IllegalMove("game_not_waiting", NOT_WAITING)
        seat = g.players.index(None) if command.seat is None else command.seat
        if command.seat is not None:
            if command.seat.__class__ is not int or not 0 <= command.seat < g.seats:
                raise IllegalMove("invalid_seat", NO_SUCH_SEAT)
            if g.players[command.seat] is not None:
                raise IllegalMove("seat_taken", SEAT_TAKEN)
        event = {"type": "seat_taken", "seat": seat,
                 "data": {"seat": seat, "player": command.player, "client_seed": command.client_seed}}
    elif isinstance(command, LeaveSeat):
        if g.status != WAITING:
            raise IllegalMove("game_not_waiting", STARTED)
        if command.player not in g.players:
            raise IllegalMove("not_seated", NOT_SEATED)
        seat = g.players.index(command.player)
        events = [{"type": "seat_left", "seat": seat, "data": {"seat": seat, "player": command.player}}]
        g = dispatch(g, events[0], True)
        if all(player is None for player in g.players):  # the last one out cancels the game
            events.append({"type": "game_cancelled", "seat": None, "data": {"reason": CANCEL_LEFT}})
            g = dispatch(g, events[-1], True)
        return g, events, _advance(g, events)
    elif isinstance(command, CancelGame):
        event = {"type": "game_cancelled", "seat": None, "data": {"reason": command.reason}}
    elif isinstance(command, Resign):
        event = {"type": "resigned", "seat": command.seat, "data": {}}
    elif isinstance(command, TimeOut):
        event = {"type": "timed_out", "seat": command.seat, "data": {}}
    else:  # pragma: no cover - typing guard
        raise TypeError(f"not a command: {command!r}")
    events = [event]
    g = dispatch(g, event, True)
    return g, events, _advance(g, events)


def decide(state: GameState | None, command: Command) -> tuple[GameState, list[Event]]:
    """Events produced by ``command`` (and every forced action after it), and the state they lead to.

    Raises :class:`IllegalMove` (or :class:`~goat.engine.errors.InvalidOptions`) when the rules refuse.
    """
    g, events, _ = _decide_on(thaw(state) if state is not None else None, command)
    return freeze(g), events


def with_server_seed(state: GameState, server_seed_hex: str) -> GameState:
    """Give the state the secret seed it deals with (the server's own copy)."""
    if dealing.commitment(server_seed_hex) != state.commitment:
        raise RulesError("seed_mismatch", "the server seed does not match the game's commitment.")
    return replace(state, server_seed=server_seed_hex)


class Session:
    """A game played in memory: :func:`decide` on one machine, frozen only when ``.state`` is read.

    For simulations, bots and benchmarks that make many moves in a row. A refused command leaves the
    session unchanged.
    """

    __slots__ = ("_g", "_waits")

    def __init__(self, state: GameState | None = None) -> None:
        self._g: GameMachine | None = thaw(state) if state is not None else None
        #: what the game waits for, as the last decide left it
        self._waits: Waits = pending(self._g)

    def decide(self, command: Command) -> list[Event]:
        self._g, events, self._waits = _decide_on(self._g, command)
        return events

    def pending(self) -> Waits:
        return self._waits

    def legal_moves(self, seat: int | None = None) -> list[Move]:
        return moves_of(self._g, self._waits, seat) if self._g is not None else []

    @property
    def state(self) -> GameState | None:
        return freeze(self._g) if self._g is not None else None
