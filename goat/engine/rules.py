"""The rules: what may happen next, what a command produces, and how an event changes the state.

* :func:`pending` says what the game waits for: a player's choice (``"seat"``, ``"play"``) or a
  server action the rules force (``"deal"``, ``"draw"``, ``"knock"``, ``"reveal"``).
* :func:`legal_moves` is the single source of truth for plays; :func:`decide` looks a command up in
  it and raises :class:`IllegalMove` with a stable ``code`` and a sentence a player understands.
* :func:`apply` checks an event against the rules and evolves the state; :func:`evolve` trusts it.
  ``decide`` and ``replay`` both go through ``apply``, so a command is accepted exactly when the
  event it produces would pass verification.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Iterable, Mapping

from . import deal as dealing
from . import scoring
from .errors import IllegalMove, InvalidEvent, RulesError
from .rulesets import Options, resolve_options
from .scoring import PlayerScore
from .state import FINISHED, INTERRUPTED, RUNNING, WAITING, GameState, Result, RoundRecord, RoundState
from .tiles import ALL_TILES, Tile, parse_tile, tile_str

Event = dict  # {"type", "seat", "data"} (+ "seq", "at" once stored)

# --- commands (imperative) --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CreateGame:
    ruleset: str
    seats: int
    server_seed_hex: str
    options: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class TakeSeat:
    player: str
    client_seed: str = ""


@dataclass(frozen=True, slots=True)
class PlayTile:
    seat: int
    tile: str | Tile
    end: str | None = None


@dataclass(frozen=True, slots=True)
class Resign:
    seat: int


@dataclass(frozen=True, slots=True)
class TimeOut:
    seat: int


Command = CreateGame | TakeSeat | PlayTile | Resign | TimeOut

# --- what the game waits for ------------------------------------------------------------------

CREATE, SEAT, PLAY, DEAL, DRAW, KNOCK, REVEAL, DONE = (
    "create", "seat", "play", "deal", "draw", "knock", "reveal", "done",
)
CHOICES = frozenset({CREATE, SEAT, PLAY, DONE})

MAX_CLIENT_SEED = 255
MAX_PLAYER_NAME = 150


_HEX = frozenset("0123456789abcdef")


def is_seed_hex(text: object) -> bool:
    """64 lowercase hex digits, the written form of a 32-byte server seed."""
    return isinstance(text, str) and len(text) == 64 and _HEX.issuperset(text)


def _fits(hand: Iterable[Tile], left: int, right: int) -> bool:
    for a, b in hand:
        if a == left or b == left or a == right or b == right:
            return True
    return False


def pending(state: GameState | None) -> tuple[str, int | None]:
    """What the game waits for next, and from which seat."""
    if state is None:
        return CREATE, None
    status = state.status
    if status == RUNNING:
        t = state.table
        if t is None or t.ended is not None:
            return DEAL, None
        seat = t.turn
        if not t.line or _fits(t.hands[seat], t.left, t.right):
            return PLAY, seat
        if len(t.bazaar) > state.options.bazaar_reserve:
            return DRAW, seat
        return KNOCK, seat
    if status == WAITING:
        return SEAT, None
    return (REVEAL, None) if state.revealed_seed is None else (DONE, None)


def legal_moves(state: GameState, seat: int | None = None) -> list[tuple[Tile, str]]:
    """Every ``(tile, end)`` the seat to move may play now (empty if it is not ``seat``'s choice)."""
    kind, who = pending(state)
    if kind != PLAY or (seat is not None and seat != who):
        return []
    t = state.table
    hand = t.hands[who]
    if not t.line:
        return [(t.must_lead, "left")] if t.must_lead is not None else [(tile, "left") for tile in hand]
    moves = []
    for tile in hand:
        a, b = tile
        if a == t.left or b == t.left:
            moves.append((tile, "left"))
        if a == t.right or b == t.right:
            moves.append((tile, "right"))
    return moves


# --- leaders (RULES.md §4) --------------------------------------------------------------------

_NON_DOUBLES = [t for t in ALL_TILES if t[0] != t[1]]
DOUBLES_FROM_ONE_ORDER: tuple[Tile, ...] = (
    tuple((v, v) for v in range(1, 7))
    + ((0, 0),)
    + tuple(sorted(_NON_DOUBLES, key=lambda t: (t[1], t[0]), reverse=True))  # D-5
)
SMALLEST_DOUBLE_ORDER: tuple[Tile, ...] = tuple((v, v) for v in range(7)) + tuple(
    sorted(_NON_DOUBLES, key=lambda t: (t[0] + t[1], t[0]))  # D-6
)
_OPENER_ORDERS = {"doubles_from_one": DOUBLES_FROM_ONE_ORDER, "smallest_double": SMALLEST_DOUBLE_ORDER}


def opening_tile(opener: str, hands: tuple[tuple[Tile, ...], ...]) -> tuple[int, Tile]:
    """The seat that leads and the tile it must lead with, by the opener rule."""
    holder = {tile: seat for seat, hand in enumerate(hands) for tile in hand}
    for tile in _OPENER_ORDERS[opener]:
        seat = holder.get(tile)
        if seat is not None:
            return seat, tile
    raise RulesError("no_tiles", "nobody holds a tile")  # unreachable: hands are never all empty


# --- events (past tense) ----------------------------------------------------------------------


def _err(code: str, detail: str, cls=IllegalMove, **context) -> RulesError:
    return cls(code, detail, **context)


def _expect(state: GameState, kinds: tuple[str, ...], seat: int | None, etype: str) -> None:
    """Raise the right error when ``etype`` (by ``seat``) is not what the game waits for."""
    kind, who = pending(state)
    if kind in kinds and (seat is None or who is None or who == seat):
        return
    if kind == DONE:
        raise _err("event_after_end", f"the game is over; a {etype} cannot follow.", InvalidEvent)
    if kind in (DEAL, DRAW, KNOCK, REVEAL):
        what = {DEAL: "the next deal", DRAW: f"seat {who} drawing from the bazaar",
                KNOCK: f"seat {who} knocking", REVEAL: "the seed reveal"}[kind]
        raise _err("forced_action_missing", f"the rules force {what} before any {etype}.", InvalidEvent)
    if etype == "tile_played":
        if kind == PLAY:
            raise _err("not_your_turn", f"It is seat {who}'s turn, not seat {seat}'s.")
        raise _err("game_not_running", "The game is not running.")
    if etype == "tile_drawn":
        raise _err("unforced_draw", f"seat {seat} may not draw now: a draw is only made when no tile fits.",
                   InvalidEvent)
    if etype == "knocked":
        raise _err("unforced_knock", f"seat {seat} may not knock now: a knock is only made when nothing fits "
                   "and no draw is allowed.", InvalidEvent)
    if etype in ("timed_out", "resigned"):
        if kind == PLAY:
            raise _err("not_your_turn", f"It is seat {who}'s turn, not seat {seat}'s.")
        raise _err("game_not_running", "The game is not running.")
    raise _err("unexpected_event", f"a {etype} event cannot come now (the game waits for {kind}).", InvalidEvent)


def check_play(state: GameState, seat: int, tile: Tile, end: str | None) -> str:
    """Validate a play and return the end it goes on (``"left"`` for the first tile of a round)."""
    if state.status != RUNNING:
        raise _err("game_not_running", "The game is not running.")
    _expect(state, (PLAY,), seat, "tile_played")
    t = state.table
    if tile not in t.hands[seat]:
        raise _err("tile_not_in_hand", f"You do not hold {tile_str(tile)}.")
    if end not in (None, "left", "right"):
        raise _err("invalid_end", f"{end!r} is not an end of the line; say \"left\" or \"right\".")
    if not t.line:
        if t.must_lead is not None and tile != t.must_lead:
            lead = tile_str(t.must_lead)
            raise _err("must_lead_with", f"This round must be opened with {lead}.", tile=lead)
        return "left"
    a, b = tile
    fits_left = a == t.left or b == t.left
    fits_right = a == t.right or b == t.right
    if end is None:
        if fits_left and fits_right:
            raise _err("end_required", f"{tile_str(tile)} fits both ends ({t.left} and {t.right}); say which end.")
        if fits_left:
            return "left"
        if fits_right:
            return "right"
        raise _err("tile_does_not_fit", f"{tile_str(tile)} fits neither end of the line ({t.left} and {t.right}).")
    if (end == "left" and not fits_left) or (end == "right" and not fits_right):
        value = t.left if end == "left" else t.right
        raise _err("tile_does_not_fit", f"{tile_str(tile)} does not fit the {end} end ({value}).")
    return end


def _step(s: GameState, table: RoundState) -> GameState:
    """``replace(s, table=table, version=s.version + 1)``, spelled out: it is the per-move hot path."""
    return GameState(
        s.ruleset, s.options, s.seats, s.commitment, s.server_seed, s.players, s.client_seeds, s.status,
        s.round_no, s.next_attempt, table, s.scores, s.fish_pot, s.leader, s.rounds, s.result,
        s.revealed_seed, s.version + 1,
    )


def _seat_of(state: GameState, event: Mapping[str, Any]) -> int:
    seat = event.get("seat")
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state.seats:
        raise _err("invalid_seat", f"seat {seat!r} is not a seat of this game.", InvalidEvent)
    return seat


def _data(event: Mapping[str, Any]) -> Mapping[str, Any]:
    data = event.get("data")
    if data.__class__ is not dict and not isinstance(data, Mapping):
        raise _err("malformed_event", "the event has no data object.", InvalidEvent)
    return data


def _apply_game_created(state, event, check):
    if state is not None:
        raise _err("unexpected_event", "game_created can only be the first event.", InvalidEvent)
    data = _data(event)
    try:
        options = resolve_options(data["ruleset"], data["seats"], data["options"]) if check else None
        if options is not None and options.to_dict() != dict(data["options"]):
            raise _err("options_not_resolved", "the stored options are not fully resolved.", InvalidEvent)
        options = options or Options.from_dict(data["options"])
        seats = data["seats"]
        commitment = data["server_seed_commitment"]
    except (KeyError, TypeError) as exc:
        raise _err("malformed_event", f"game_created lacks {exc}.", InvalidEvent) from exc
    return GameState(
        ruleset=data["ruleset"],
        options=options,
        seats=seats,
        commitment=commitment,
        players=(None,) * seats,
        client_seeds=(None,) * seats,
        scores=(PlayerScore(),) * seats,
        version=1,
    )


def _apply_seat_taken(state: GameState, event, check):
    data = _data(event)
    seat, player, client_seed = data.get("seat"), data.get("player"), data.get("client_seed", "")
    if check:
        if state.status != WAITING:
            raise _err("game_not_waiting", "Every seat of this game is taken.")
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state.seats:
            raise _err("invalid_seat", f"seat {seat!r} is not a seat of this game.", InvalidEvent)
        if state.players[seat] is not None:
            raise _err("seat_taken", f"seat {seat} is already taken.", InvalidEvent)
        if not isinstance(player, str) or not player or len(player) > MAX_PLAYER_NAME:
            raise _err("malformed_event", "seat_taken needs a player name.", InvalidEvent)
        if player in state.players:
            raise _err("already_seated", "You already have a seat at this game.")
        if not isinstance(client_seed, str) or len(client_seed) > MAX_CLIENT_SEED:
            raise _err("invalid_client_seed", f"client_seed must be a string of at most {MAX_CLIENT_SEED} characters.")
    players = state.players[:seat] + (player,) + state.players[seat + 1:]
    seeds = state.client_seeds[:seat] + (client_seed,) + state.client_seeds[seat + 1:]
    status = RUNNING if all(p is not None for p in players) else WAITING
    return replace(state, players=players, client_seeds=seeds, status=status, version=state.version + 1)


def next_deal(state: GameState) -> tuple[int, int, tuple, tuple, bool]:
    """``(round, attempt, hands, bazaar, void)`` of the deal the game waits for (needs the seed)."""
    if state.server_seed is None:
        raise RulesError("seed_unknown", "the server seed is needed to deal.")
    round_no, attempt = state.round_no + 1, state.next_attempt
    key = dealing.deal_key(state.server_seed, state.client_seeds)
    order = dealing.shuffled_order(key, round_no, attempt)
    hands, bazaar = dealing.deal_hands(order, state.seats, state.options.hand_size)
    void = state.options.redeal and dealing.needs_redeal(hands)
    return round_no, attempt, hands, bazaar, void


def _parse_tiles(value) -> tuple[Tile, ...]:
    if not isinstance(value, list):
        raise _err("malformed_event", "a list of tiles was expected.", InvalidEvent)
    try:
        return tuple(parse_tile(x) for x in value)
    except RulesError as exc:
        raise _err("malformed_event", exc.detail, InvalidEvent) from exc


def _apply_round_dealt(state: GameState, event, check):
    data = _data(event)
    if check:
        _expect(state, (DEAL,), None, "round_dealt")
        if data.get("round") != state.round_no + 1 or data.get("attempt") != state.next_attempt:
            raise _err("deal_mismatch", f"expected the deal of round {state.round_no + 1}, attempt "
                       f"{state.next_attempt}.", InvalidEvent)
    if state.server_seed is not None:
        _, _, hands, bazaar, void = next_deal(state)
        if check:
            stored_hands = data.get("hands")
            if (
                data.get("void") is not void
                or data.get("bazaar") != [tile_str(t) for t in bazaar]
                or not isinstance(stored_hands, list)
                or len(stored_hands) != len(hands)
                or any(sh != [tile_str(t) for t in h] for sh, h in zip(stored_hands, hands))
            ):
                raise _err("deal_mismatch", "the deal does not match the one the server seed and the client "
                           "seeds produce.", InvalidEvent)
    else:
        # No seed: the deal cannot be proved, only checked for shape.
        raw_hands = data.get("hands")
        if not isinstance(raw_hands, list) or len(raw_hands) != state.seats:
            raise _err("malformed_event", "round_dealt needs one hand per seat.", InvalidEvent)
        hands = tuple(_parse_tiles(h) for h in raw_hands)
        bazaar = _parse_tiles(data.get("bazaar"))
        void = data.get("void") is True
        if check:
            dealt = [t for h in hands for t in h] + list(bazaar)
            if sorted(dealt) != list(ALL_TILES) or any(len(h) != state.options.hand_size for h in hands):
                raise _err("deal_mismatch", "the deal is not a deal of the 28 tiles.", InvalidEvent)
            if void != bool(state.options.redeal and dealing.needs_redeal(hands)):
                raise _err("deal_mismatch", "the deal's void flag contradicts the redeal rule.", InvalidEvent)
    if void:
        return replace(state, next_attempt=state.next_attempt + 1, version=state.version + 1)
    round_no = state.round_no + 1
    options = state.options
    if round_no == 1 or options.later_leader == "opener" or state.leader is None:
        leader, must_lead = opening_tile(options.opener, hands)
    else:
        leader, must_lead = state.leader, None
    table = RoundState(number=round_no, hands=hands, bazaar=bazaar, turn=leader, must_lead=must_lead)
    return replace(state, round_no=round_no, next_attempt=0, table=table, version=state.version + 1)


def _blocked(table: RoundState, options: Options) -> bool:
    """Nobody can play and no draw is allowed (RULES.md §6)."""
    if len(table.bazaar) > options.bazaar_reserve:
        return False
    left, right = table.left, table.right
    return not any(_fits(hand, left, right) for hand in table.hands)


def _apply_tile_played(state: GameState, event, check):
    seat = _seat_of(state, event)
    data = _data(event)
    if check:
        try:
            tile = parse_tile(data.get("tile"))
        except RulesError as exc:
            raise _err("malformed_event", exc.detail, InvalidEvent) from exc
        end = check_play(state, seat, tile, data.get("end"))
        if end != data.get("end"):
            raise _err("malformed_event", f"tile_played must name the end it was put on ({end}).", InvalidEvent)
    else:
        tile, end = parse_tile(data["tile"]), data["end"]
    t = state.table
    a, b = tile
    hand = t.hands[seat]
    i = hand.index(tile)
    new_hand = hand[:i] + hand[i + 1:]
    hands = t.hands[:seat] + (new_hand,) + t.hands[seat + 1:]
    on_table = t.on_table
    if a != b:
        counts = list(on_table)
        counts[a] += 1
        counts[b] += 1
        on_table = tuple(counts)
    if not t.line:
        line, left, right = ((a, b),), a, b
    elif end == "left":
        other = b if a == t.left else a
        line, left, right = ((other, t.left),) + t.line, other, t.right
    else:
        other = b if a == t.right else a
        line, left, right = t.line + ((t.right, other),), t.left, other
    table = RoundState(
        number=t.number, hands=hands, bazaar=t.bazaar, line=line, left=left, right=right,
        turn=(seat + 1) % state.seats, must_lead=None, last_player=seat, on_table=on_table,
    )
    if not new_hand:
        return _end_round(state, table, "out", seat)
    if state.options.fish == "positional_or_blocked" and left == right and on_table[left] == 6:
        return _end_round(state, table, "fish", seat)
    if _blocked(table, state.options):
        return _end_round(state, table, "fish", seat)
    return _step(state, table)


def _apply_tile_drawn(state: GameState, event, check):
    seat = _seat_of(state, event)
    t = state.table
    if check:
        _expect(state, (DRAW,), seat, "tile_drawn")
        if _data(event).get("tile") != tile_str(t.bazaar[0]):
            raise _err("draw_mismatch", "the drawn tile is not the front of the bazaar.", InvalidEvent)
    tile = t.bazaar[0]
    hands = t.hands[:seat] + (t.hands[seat] + (tile,),) + t.hands[seat + 1:]
    table = replace(t, hands=hands, bazaar=t.bazaar[1:])
    if (
        not (tile[0] in (t.left, t.right) or tile[1] in (t.left, t.right))
        and _blocked(table, state.options)
    ):
        return _end_round(state, table, "fish", t.last_player)
    return _step(state, table)


def _apply_knocked(state: GameState, event, check):
    seat = _seat_of(state, event)
    if check:
        _expect(state, (KNOCK,), seat, "knocked")
    return _step(state, replace(state.table, turn=(seat + 1) % state.seats))


def _end_round(state: GameState, table: RoundState, end: str, seat: int) -> GameState:
    """Score a finished round (RULES.md §6–§8) and end the game if it is over."""
    options = state.options
    hand_values = tuple(scoring.hand_value(h, options.lone_double_zero) for h in table.hands)
    if options.scoring == "goat":
        outcome = scoring.score_goat_round(
            players=state.scores, hand_values=hand_values, end=end, seat=seat,
            fish_scoring=options.fish_scoring, open_threshold=options.open_threshold,
            fish_pot=state.fish_pot,
        )
    else:
        outcome = scoring.score_fixed_round(players=state.scores, hand_values=hand_values)
    players = tuple(outcome.players)
    record = RoundRecord(
        round=table.number, end=end, seat=seat, hand_tiles=table.hands, hands=hand_values,
        round_points=tuple(outcome.round_points), fish_pot=outcome.fish_pot, draw=outcome.draw,
        players=players,
    )
    table = replace(table, turn=None, ended=end)
    points = [p.points for p in players]
    result = None
    if options.scoring == "goat":
        if scoring.goat_game_over(players, options.limit):
            goats, winners = scoring.result_by_limit(points, options.limit)
            result = _result("limit", points, goats, winners, options, state.seats)
    elif table.number >= options.rounds:
        goats, winners = scoring.result_by_rounds(points)
        result = _result("rounds", points, goats, winners, options, state.seats)
    return replace(
        state,
        table=table,
        scores=players,
        fish_pot=outcome.fish_pot if result is None else 0,  # D-9: a pot still carried at the end is void
        leader=seat,
        rounds=state.rounds + (record,),
        result=result,
        status=FINISHED if result is not None else RUNNING,
        version=state.version + 1,
    )


def _result(reason, points, goats, winners, options: Options, seats: int) -> Result:
    return Result(
        reason=reason,
        goats=tuple(goats),
        winners=tuple(winners),
        rating_points=tuple(scoring.rating_points_finished(points, goats)),
        chips=tuple(scoring.chips_finished(options.ante, seats, winners)),
    )


def _interrupt(state: GameState, seat: int, reason: str) -> GameState:
    points = [p.points for p in state.scores]  # D-13: written after the last completed round
    goats, winners = scoring.result_interrupted(points, seat)
    result = Result(
        reason=reason,
        goats=tuple(goats),
        winners=tuple(winners),
        rating_points=tuple(scoring.rating_points_interrupted(points, seat)),
        chips=tuple(scoring.chips_interrupted(state.options.ante, state.seats, seat)),
    )
    table = replace(state.table, turn=None) if state.table is not None else None
    return replace(state, status=INTERRUPTED, result=result, table=table, fish_pot=0, version=state.version + 1)


def _apply_timed_out(state: GameState, event, check):
    seat = _seat_of(state, event)
    if check:
        _expect(state, (PLAY,), seat, "timed_out")
        if state.options.move_time <= 0:
            raise _err("no_clock", "This game has no move clock.")
    return _interrupt(state, seat, "timeout")


def _apply_resigned(state: GameState, event, check):
    seat = _seat_of(state, event)
    if check:
        if state.status != RUNNING:
            raise _err("game_not_running", "The game is not running.")
        _expect(state, (PLAY,), None, "resigned")
    return _interrupt(state, seat, "resigned")


def _apply_seed_revealed(state: GameState, event, check):
    seed = _data(event).get("server_seed")
    if check:
        _expect(state, (REVEAL,), None, "seed_revealed")
        if not isinstance(seed, str) or not is_seed_hex(seed) or dealing.commitment(seed) != state.commitment:
            raise _err("seed_mismatch", "the revealed server seed does not match the commitment.", InvalidEvent)
        if state.server_seed is not None and seed != state.server_seed:
            raise _err("seed_mismatch", "the revealed server seed is not the one the game was dealt with.",
                       InvalidEvent)
    return replace(state, revealed_seed=seed, server_seed=seed, version=state.version + 1)


_APPLY = {
    "game_created": _apply_game_created,
    "seat_taken": _apply_seat_taken,
    "round_dealt": _apply_round_dealt,
    "tile_played": _apply_tile_played,
    "tile_drawn": _apply_tile_drawn,
    "knocked": _apply_knocked,
    "timed_out": _apply_timed_out,
    "resigned": _apply_resigned,
    "seed_revealed": _apply_seed_revealed,
}
EVENT_TYPES = tuple(_APPLY)


def _dispatch(state, event, check):
    try:
        handler = _APPLY[event["type"]]
    except (KeyError, TypeError):
        raise _err("unknown_event", f"unknown event type {event.get('type')!r}.", InvalidEvent) from None
    return handler(state, event, check)


def apply(state: GameState | None, event: Mapping[str, Any]) -> GameState:
    """Check ``event`` against the rules in ``state`` and return the next state."""
    return _dispatch(state, event, True)


def evolve(state: GameState | None, event: Mapping[str, Any]) -> GameState:
    """The next state after a stored (trusted) event; no rule is checked."""
    return _dispatch(state, event, False)


def with_server_seed(state: GameState, server_seed_hex: str) -> GameState:
    """Give the state the secret seed it deals with (the server's own copy)."""
    if dealing.commitment(server_seed_hex) != state.commitment:
        raise RulesError("seed_mismatch", "the server seed does not match the game's commitment.")
    return replace(state, server_seed=server_seed_hex)


# --- the forced actions and decide ------------------------------------------------------------


def forced_event(state: GameState) -> Event | None:
    """The event the rules force next, or ``None`` when the game waits for a choice."""
    kind, seat = pending(state)
    if kind == DRAW:
        return {"type": "tile_drawn", "seat": seat, "data": {"tile": tile_str(state.table.bazaar[0])}}
    if kind == KNOCK:
        return {"type": "knocked", "seat": seat, "data": {}}
    if kind == DEAL:
        round_no, attempt, hands, bazaar, void = next_deal(state)
        return {
            "type": "round_dealt",
            "seat": None,
            "data": {
                "round": round_no,
                "attempt": attempt,
                "hands": [[tile_str(t) for t in h] for h in hands],
                "bazaar": [tile_str(t) for t in bazaar],
                "void": void,
            },
        }
    if kind == REVEAL:
        if state.server_seed is None:
            raise RulesError("seed_unknown", "the server seed is needed to end the game.")
        return {"type": "seed_revealed", "seat": None, "data": {"server_seed": state.server_seed}}
    return None


def advance(state: GameState) -> tuple[GameState, list[Event]]:
    """Perform every forced action up to the next real choice."""
    events: list[Event] = []
    while (event := forced_event(state)) is not None:
        state = apply(state, event)
        events.append(event)
    return state, events


def decide(state: GameState | None, command: Command) -> tuple[GameState, list[Event]]:
    """Events produced by ``command`` (and every forced action after it), and the state they lead to.

    Raises :class:`IllegalMove` (or :class:`~goat.engine.errors.InvalidOptions`) when the rules refuse.
    """
    if isinstance(command, CreateGame):
        if state is not None:
            raise RulesError("game_exists", "the game already exists.")
        if not is_seed_hex(command.server_seed_hex):
            raise RulesError("invalid_seed", "the server seed must be 64 lowercase hex digits.")
        options = resolve_options(command.ruleset, command.seats, command.options)
        event = {
            "type": "game_created",
            "seat": None,
            "data": {
                "ruleset": command.ruleset,
                "options": options.to_dict(),
                "seats": command.seats,
                "server_seed_commitment": dealing.commitment(command.server_seed_hex),
            },
        }
        new = with_server_seed(apply(None, event), command.server_seed_hex)
        return new, [event]
    if state is None:
        raise RulesError("no_game", "the game does not exist.")
    if isinstance(command, TakeSeat):
        if state.status != WAITING:
            raise _err("game_not_waiting", "Every seat of this game is taken.")
        seat = state.players.index(None)
        event = {"type": "seat_taken", "seat": seat,
                 "data": {"seat": seat, "player": command.player, "client_seed": command.client_seed}}
    elif isinstance(command, PlayTile):
        tile = parse_tile(command.tile) if isinstance(command.tile, str) else command.tile
        if tile not in ALL_TILES:
            raise _err("invalid_tile", f"{command.tile!r} is not a domino tile.")
        end = check_play(state, command.seat, tile, command.end)
        event = {"type": "tile_played", "seat": command.seat, "data": {"tile": tile_str(tile), "end": end}}
    elif isinstance(command, Resign):
        event = {"type": "resigned", "seat": command.seat, "data": {}}
    elif isinstance(command, TimeOut):
        event = {"type": "timed_out", "seat": command.seat, "data": {}}
    else:  # pragma: no cover - typing guard
        raise TypeError(f"not a command: {command!r}")
    state = apply(state, event)
    state, forced = advance(state)
    return state, [event, *forced]
