"""Applying events (past tense) to the machine: one small function per event type.

Each reads its event, checks it against the rules when asked (``check``; a stored event is trusted)
and then calls the rule of :mod:`goat.engine.rounds` that the event records. Every check runs before
anything changes, so a refused event leaves the machine as it was.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from . import deal as dealing
from .errors import ALREADY_SEATED, NOT_RUNNING, NOT_WAITING, STARTED, IllegalMove, InvalidEvent, RulesError
from .machine import GameMachine, RoundMachine
from .moves import DEAL, DRAW, KNOCK, PLAY, REVEAL, check_play, expect, pending
from .rounds import draw_tile, interrupt, knock, next_deal, place_tile, start_round
from .rulesets import (
    SECOND_EDITION_OPENERS,
    Options,
    is_first_edition,
    resolve_options,
    seat_number,
    with_first_edition,
)
from .scoring import PlayerScore
from .status import (
    CANCEL_LEFT,
    CANCEL_REASONS,
    CANCEL_RUNNING_REASONS,
    CANCELLED,
    OPEN,
    REASON_RESIGNED,
    REASON_TIMEOUT,
    RUNNING,
    WAITING,
)
from .tiles import ALL_TILES, PARSE, TEXT, Tile, parse_tile, tile_set

Event = dict[str, Any]  # {"type", "seat", "data"} (+ "seq", "at" once stored)
Handler = Callable[[GameMachine | None, Mapping[str, Any], bool], GameMachine]

MAX_CLIENT_SEED = 255
MAX_PLAYER_NAME = 150
_HEX_DIGITS = "0123456789abcdef"


def is_seed_hex(text: object) -> bool:
    """64 lowercase hex digits, the written form of a 32-byte server seed."""
    return isinstance(text, str) and len(text) == 64 and not text.strip(_HEX_DIGITS)


def _seat_of(g: GameMachine, event: Mapping[str, Any]) -> int:
    seat = event.get("seat")
    if seat.__class__ is not int or not 0 <= seat < g.seats:
        raise InvalidEvent("invalid_seat", f"seat {seat!r} is not a seat of this game.")
    return seat


def _data(event: Mapping[str, Any]) -> Mapping[str, Any]:
    data = event.get("data")
    if data.__class__ is not dict and not isinstance(data, Mapping):  # (the ABC check only for non-dicts)
        raise InvalidEvent("malformed_event", "the event has no data object.")
    return data


def _table(g: GameMachine) -> RoundMachine:
    if g.table is None:
        raise InvalidEvent("unexpected_event", "no round has been dealt.")
    return g.table


def _game_created(g: GameMachine | None, event: Mapping[str, Any], check: bool) -> GameMachine:
    if g is not None:
        raise InvalidEvent("unexpected_event", "game_created can only be the first event.")
    data = _data(event)
    try:
        ruleset, seats, stored = data["ruleset"], data["seats"], data["options"]
        if check:
            # a first-edition record (no remembered_counts) is read with that edition's meaning (docs/rules.md §2)
            full = with_first_edition(stored)
            if is_first_edition(stored) and full.get("opener") in SECOND_EDITION_OPENERS:
                raise InvalidEvent("options_not_resolved", "the stored options lack 'remembered_counts'.")
            options = resolve_options(ruleset, seats, full)
            if options.to_dict() != dict(full):
                raise InvalidEvent("options_not_resolved", "the stored options are not fully resolved.")
        else:
            options = Options.from_dict(stored)
        commitment = data["server_seed_commitment"]
    except (KeyError, TypeError) as exc:
        raise InvalidEvent("malformed_event", f"game_created lacks {exc}.") from exc
    g = GameMachine()
    g.ruleset, g.options, g.seats, g.commitment, g.server_seed = ruleset, options, seats, commitment, None
    g.players, g.client_seeds, g.scores = [None] * seats, [None] * seats, (PlayerScore(),) * seats
    g.status, g.round_no, g.next_attempt, g.table, g.fish_pot, g.leader = WAITING, 0, 0, None, 0, None
    g.rounds, g.result, g.revealed_seed, g.version, g.stream = [], None, None, 1, None
    return g


def _seat_taken(g: GameMachine, event: Mapping[str, Any], check: bool) -> GameMachine:
    data = _data(event)
    seat, player, client_seed = data.get("seat"), data.get("player"), data.get("client_seed", "")
    if check:
        if g.status != WAITING:
            raise IllegalMove("game_not_waiting", NOT_WAITING)
        if seat.__class__ is not int or not 0 <= seat < g.seats:
            raise InvalidEvent("invalid_seat", f"seat {seat!r} is not a seat of this game.")
        if g.players[seat] is not None:
            raise InvalidEvent("seat_taken", f"seat {seat} is already taken.")
        if not isinstance(player, str) or not player or len(player) > MAX_PLAYER_NAME:
            raise InvalidEvent("malformed_event", "seat_taken needs a player name.")
        if player in g.players:
            raise IllegalMove("already_seated", ALREADY_SEATED)
        if not isinstance(client_seed, str) or len(client_seed) > MAX_CLIENT_SEED:
            raise IllegalMove.said("invalid_client_seed", "client_seed must be a string of at most {most} characters.",
                                   most=MAX_CLIENT_SEED)
    g.players[seat] = player  # type: ignore[index]
    g.client_seeds[seat] = client_seed  # type: ignore[index]
    g.stream = None
    if None not in g.players:
        g.status = RUNNING
    g.version += 1
    return g


def _seat_left(g: GameMachine, event: Mapping[str, Any], check: bool) -> GameMachine:
    """A seated player leaves a game that has not started. Only their seat is freed (later seats do
    not move), and it may be taken again by the next joiner (``seat_taken`` takes the lowest free seat)."""
    data = _data(event)
    seat, player = data.get("seat"), data.get("player")
    if check:
        if g.status != WAITING:
            raise IllegalMove("game_not_waiting", STARTED)
        if seat.__class__ is not int or not 0 <= seat < g.seats:
            raise InvalidEvent("invalid_seat", f"seat {seat!r} is not a seat of this game.")
        if not isinstance(player, str) or g.players[seat] != player:
            raise IllegalMove.said("not_seated", "{player!r} does not hold seat {seat}.", player=player,
                                   seat=seat_number(seat))
    g.players[seat] = None  # type: ignore[index]
    g.client_seeds[seat] = None  # type: ignore[index]
    g.stream = None
    g.version += 1
    return g


def _game_cancelled(g: GameMachine, event: Mapping[str, Any], check: bool) -> GameMachine:
    """The game ends without a result: a waiting game (no round was dealt), or a running game whose
    tournament was cancelled or that sat idle (no rating points; the interrupted round does not count). The seed is
    revealed after it as after every ended game, so the commitment can still be opened by anyone."""
    reason = _data(event).get("reason")
    if check:
        if reason in CANCEL_RUNNING_REASONS:
            if g.status not in OPEN:
                raise IllegalMove("game_not_running", NOT_RUNNING)
        elif g.status != WAITING:
            raise IllegalMove("game_not_waiting", NOT_WAITING)
        if reason not in CANCEL_REASONS:
            raise InvalidEvent("malformed_event", f"game_cancelled needs a reason of {list(CANCEL_REASONS)}.")
        if reason == CANCEL_LEFT and any(player is not None for player in g.players):
            raise InvalidEvent("seats_taken", "a game is cancelled as left only once no seat is taken.")
    g.status = CANCELLED
    g.version += 1
    return g


def _parse_tiles(value: object) -> list[Tile]:
    if not isinstance(value, list):
        raise InvalidEvent("malformed_event", "a list of tiles was expected.")
    try:
        return [parse_tile(x) for x in value]
    except RulesError as exc:
        raise InvalidEvent("malformed_event", exc.detail) from exc


def _round_dealt(g: GameMachine, event: Mapping[str, Any], check: bool) -> GameMachine:
    data = _data(event)
    if check:
        if pending(g)[0] != DEAL:
            expect(g, (DEAL,), None, "round_dealt")
        if data.get("round") != g.round_no + 1 or data.get("attempt") != g.next_attempt:
            raise InvalidEvent("deal_mismatch", f"expected the deal of round {g.round_no + 1}, attempt "
                               f"{g.next_attempt}.")
    if g.server_seed is not None:
        deal = next_deal(g)[2]
        hands, bazaar, void, held = deal.hands, deal.bazaar, deal.void, deal.held
        if check and (data.get("void") is not void
                      or (data.get("hands"), data.get("bazaar")) != dealing.deal_texts(deal)):
            raise InvalidEvent("deal_mismatch", "the deal does not match the one the server seed and the client "
                               "seeds produce.")
    else:  # no seed: the deal cannot be proved, only checked for shape
        raw_hands = data.get("hands")
        if not isinstance(raw_hands, list) or len(raw_hands) != g.seats:
            raise InvalidEvent("malformed_event", "round_dealt needs one hand per seat.")
        hands = [_parse_tiles(hand) for hand in raw_hands]
        bazaar = _parse_tiles(data.get("bazaar"))
        void = data.get("void") is True
        if check:
            every = sorted([tile for hand in hands for tile in hand] + bazaar)
            if every != list(ALL_TILES) or any(len(hand) != g.options.hand_size for hand in hands):
                raise InvalidEvent("deal_mismatch", "the deal is not a deal of the 28 tiles.")
            if void != bool(g.options.redeal and dealing.needs_redeal(hands)):
                raise InvalidEvent("deal_mismatch", "the deal's void flag contradicts the redeal rule.")
        held = [tile_set(hand) for hand in hands]
    start_round(g, hands, bazaar, void, held)
    return g


def _tile_played(g: GameMachine, event: Mapping[str, Any], check: bool) -> GameMachine:
    try:  # the fields a stored play has; whatever is missing or wrong is named below
        seat, data = event["seat"], event["data"]
        tile, end = PARSE[data["tile"]], data["end"]
    except (KeyError, TypeError):  # TypeError: not even hashable, or no mapping
        seat, data, tile, end = _play_fields(g, event)
    if check:
        try:  # check_play accepts only the seat to move, so the seat is tested only when it refuses
            expected = check_play(g, seat, tile, end)
        except RulesError:
            _seat_of(g, event)  # a seat that is not one of the game's is named before why the play is refused
            raise
        if expected != end:
            raise InvalidEvent("malformed_event", f"tile_played must name the end it was put on ({expected}).")
    elif seat.__class__ is not int or not 0 <= seat < g.seats:
        _seat_of(g, event)
    place_tile(g, g.table, seat, tile, end)  # type: ignore[arg-type]
    return g


def _play_fields(g: GameMachine, event: Mapping[str, Any]) -> tuple[Any, Mapping[str, Any], Tile, Any]:
    """The seat, data, tile and end of a ``tile_played`` that lacks one of them: raises the error."""
    _seat_of(g, event)
    data = _data(event)
    text = data.get("tile")
    try:
        return event["seat"], data, parse_tile(text), data.get("end")
    except RulesError as exc:
        raise InvalidEvent("malformed_event", exc.detail) from exc


def _tile_drawn(g: GameMachine, event: Mapping[str, Any], check: bool) -> GameMachine:
    seat = _seat_of(g, event)
    if check:
        if pending(g) != (DRAW, seat):
            _table(g)  # a missing round is named first
            expect(g, (DRAW,), seat, "tile_drawn")
        t: RoundMachine = g.table  # type: ignore[assignment]  # the game waits for this draw: a round is dealt
        if _data(event).get("tile") != TEXT[t.bazaar[0]]:
            raise InvalidEvent("draw_mismatch", "the drawn tile is not the front of the bazaar.")
    else:
        t = _table(g)
    draw_tile(g, t, seat)
    return g


def _knocked(g: GameMachine, event: Mapping[str, Any], check: bool) -> GameMachine:
    seat = _seat_of(g, event)
    if check and pending(g) != (KNOCK, seat):
        expect(g, (KNOCK,), seat, "knocked")
    knock(g, _table(g), seat)
    return g


def _timed_out(g: GameMachine, event: Mapping[str, Any], check: bool) -> GameMachine:
    seat = _seat_of(g, event)
    if check:
        expect(g, (PLAY,), seat, "timed_out")
        if g.options.move_time <= 0:
            raise IllegalMove("no_clock", "This game has no move clock.")
    interrupt(g, seat, REASON_TIMEOUT)
    return g


def _resigned(g: GameMachine, event: Mapping[str, Any], check: bool) -> GameMachine:
    seat = _seat_of(g, event)
    if check:
        if g.status != RUNNING:
            raise IllegalMove("game_not_running", NOT_RUNNING)
        expect(g, (PLAY,), None, "resigned")
    interrupt(g, seat, REASON_RESIGNED)
    return g


def _seed_revealed(g: GameMachine, event: Mapping[str, Any], check: bool) -> GameMachine:
    seed = _data(event).get("server_seed")
    if check:
        expect(g, (REVEAL,), None, "seed_revealed")
        if not is_seed_hex(seed) or dealing.commitment(seed) != g.commitment:  # type: ignore[arg-type]
            raise InvalidEvent("seed_mismatch", "the revealed server seed does not match the commitment.")
        if g.server_seed is not None and seed != g.server_seed:
            raise InvalidEvent("seed_mismatch", "the revealed server seed is not the one the game was dealt with.")
    reveal(g, seed)  # type: ignore[arg-type]
    return g


def reveal(g: GameMachine, seed: str) -> None:
    """The server publishes its seed once the game has ended (docs/rules.md §3)."""
    g.revealed_seed = seed
    g.server_seed = seed
    g.stream = None
    g.version += 1


HANDLERS: dict[str, Handler] = {
    "game_created": _game_created,
    "seat_taken": _seat_taken,  # type: ignore[dict-item]
    "seat_left": _seat_left,  # type: ignore[dict-item]
    "game_cancelled": _game_cancelled,  # type: ignore[dict-item]
    "round_dealt": _round_dealt,  # type: ignore[dict-item]
    "tile_played": _tile_played,  # type: ignore[dict-item]
    "tile_drawn": _tile_drawn,  # type: ignore[dict-item]
    "knocked": _knocked,  # type: ignore[dict-item]
    "timed_out": _timed_out,  # type: ignore[dict-item]
    "resigned": _resigned,  # type: ignore[dict-item]
    "seed_revealed": _seed_revealed,  # type: ignore[dict-item]
}


def dispatch(g: GameMachine | None, event: Mapping[str, Any], check: bool) -> GameMachine:
    """Apply ``event`` to the machine ``g`` (``None`` before the first event); check it when ``check``."""
    try:
        handler = HANDLERS[event["type"]]
    except (KeyError, TypeError):  # no type, or one that is not even a string (unhashable)
        etype = event.get("type") if isinstance(event, Mapping) else None
        raise InvalidEvent("unknown_event", f"unknown event type {etype!r}.") from None
    if g is None and handler is not _game_created:
        raise InvalidEvent("unexpected_event", f"a {event['type']} event cannot come before game_created.")
    return handler(g, event, check)
