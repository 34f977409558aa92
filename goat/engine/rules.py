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

import functools
from dataclasses import replace
from itertools import chain
from operator import itemgetter
from typing import Any, Iterable, Mapping, NamedTuple

from . import deal as dealing
from . import scoring
from .errors import IllegalMove, InvalidEvent, RulesError
from .rulesets import Options, resolve_options
from .scoring import PlayerScore
from .state import FINISHED, INTERRUPTED, RUNNING, WAITING, GameState, Result, RoundRecord, RoundState
from .tiles import _PARSE, _TEXT, ALL_TILES, Tile, parse_tile, tile_str

Event = dict  # {"type", "seat", "data"} (+ "seq", "at" once stored)

# --- commands (imperative) --------------------------------------------------------------------
#
# Immutable records built by every caller for every move (a bench or a bot makes one per play), so
# they are typed named tuples: a frozen dataclass sets each field through ``object.__setattr__``
# (~1.6x the construction time). Like the dataclasses they were, two commands are equal only when
# they are of the same class with equal fields (``Resign(0) != TimeOut(0)``, ``PlayTile(...) !=`` a
# plain tuple), are hashable by their fields and unordered; being tuples they also unpack.


def _same_command(self, other):
    if other.__class__ is not self.__class__:
        # A tuple's own == would say yes to equal items (and runs when this returns NotImplemented).
        return False if isinstance(other, tuple) else NotImplemented
    return tuple.__eq__(self, other)


def _other_command(self, other):
    if other.__class__ is not self.__class__:
        return True if isinstance(other, tuple) else NotImplemented
    return tuple.__ne__(self, other)


def _unordered(self, other):
    return NotImplemented


def _command(cls):
    """Equality by class and fields, tuple hashing, no ordering (what ``@dataclass(frozen=True)`` gave)."""
    cls.__eq__, cls.__ne__, cls.__hash__ = _same_command, _other_command, tuple.__hash__
    cls.__lt__ = cls.__le__ = cls.__gt__ = cls.__ge__ = _unordered
    return cls


@_command
class CreateGame(NamedTuple):
    ruleset: str
    seats: int
    server_seed_hex: str
    options: Mapping[str, Any] | None = None


@_command
class TakeSeat(NamedTuple):
    player: str
    client_seed: str = ""


@_command
class PlayTile(NamedTuple):
    seat: int
    tile: str | Tile
    end: str | None = None


@_command
class Resign(NamedTuple):
    seat: int


@_command
class TimeOut(NamedTuple):
    seat: int


Command = CreateGame | TakeSeat | PlayTile | Resign | TimeOut

# --- what the game waits for ------------------------------------------------------------------

CREATE, SEAT, PLAY, DEAL, DRAW, KNOCK, REVEAL, DONE = (
    "create", "seat", "play", "deal", "draw", "knock", "reveal", "done",
)
CHOICES = frozenset({CREATE, SEAT, PLAY, DONE})

MAX_CLIENT_SEED = 255
MAX_PLAYER_NAME = 150


_HEX_DIGITS = "0123456789abcdef"
_HEX = frozenset(_HEX_DIGITS)


def is_seed_hex(text: object) -> bool:
    """64 lowercase hex digits, the written form of a 32-byte server seed."""
    if text.__class__ is str:  # strip() leaves nothing exactly when every character is a hex digit
        return len(text) == 64 and not text.strip(_HEX_DIGITS)
    return isinstance(text, str) and len(text) == 64 and _HEX.issuperset(text)


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
        if not t.line:
            return PLAY, seat
        left, right = t.left, t.right
        for a, b in t.hands[seat]:  # a tile of the seat fits an end
            if a == left or b == left or a == right or b == right:
                return PLAY, seat
        if len(t.bazaar) > state.options.bazaar_reserve:
            return DRAW, seat
        return KNOCK, seat
    if status == WAITING:
        return SEAT, None
    return (REVEAL, None) if state.revealed_seed is None else (DONE, None)


def legal_moves(state: GameState, seat: int | None = None) -> list[tuple[Tile, str]]:
    """Every ``(tile, end)`` the seat to move may play now (empty if it is not ``seat``'s choice)."""
    return _legal_moves(state, pending(state), seat)


def _legal_moves(state, waits_for: tuple[str, int | None], seat: int | None) -> list[tuple[Tile, str]]:
    """:func:`legal_moves` given ``waits_for``, what ``pending(state)`` returns."""
    kind, who = waits_for
    if kind != PLAY or (seat is not None and seat != who):
        return []
    t = state.table
    hand = t.hands[who]
    if not t.line:
        return [(t.must_lead, "left")] if t.must_lead is not None else [(tile, "left") for tile in hand]
    left, right = t.left, t.right
    moves = []
    for tile in hand:
        a, b = tile
        if a == left or b == left:
            moves.append((tile, "left"))
        if a == right or b == right:
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
    last = len(hands) - 1
    for tile in _OPENER_ORDERS[opener]:
        for seat in range(last, -1, -1):  # from the last seat: the last holder, were a tile in two hands
            if tile in hands[seat]:
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
    """Validate a play and return the end it goes on (``"left"`` for the first tile of a round).

    The full checks, each with its precise error. ``decide`` and ``tile_played``'s apply test the
    common case (a tile in hand that fits the named end) faster first and come here for the rest.
    """
    t = state.table
    if state.status != RUNNING:
        raise _err("game_not_running", "The game is not running.")
    _expect(state, (PLAY,), seat, "tile_played")
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


# --- the machine: a mutable twin of GameState that events are applied to -----------------------
#
# The public state is immutable (GameState / RoundState). Applying events one by one to frozen
# dataclasses costs two object constructions per event, which dominated replay; so every event
# is applied to a mutable twin with the same attribute names ("thawed"), and the immutable state is
# rebuilt ("frozen") once per call of apply/decide/replay. ``pending``, ``legal_moves`` and
# ``check_play`` read either form: the rules exist once.


class _Table:
    """Mutable twin of :class:`RoundState` (same attribute names), plus ``held``: for each value 0..6,
    how many tiles in all the hands carry it (a double once), kept with the hands so that the blocked
    test (RULES.md §6) is two lookups instead of a scan of every hand."""

    __slots__ = ("number", "hands", "bazaar", "line", "left", "right", "turn", "must_lead", "last_player",
                 "on_table", "ended", "held")


def _held(hands) -> list[int]:
    held = [0] * 7
    for hand in hands:
        for a, b in hand:
            held[a] += 1
            if a != b:
                held[b] += 1
    return held


class _Game:
    """Mutable twin of :class:`GameState` (same attribute names; ``scores`` is the same immutable tuple, replaced
    by each round end)."""

    __slots__ = ("ruleset", "options", "seats", "commitment", "server_seed", "players", "client_seeds", "status",
                 "round_no", "next_attempt", "table", "scores", "fish_pot", "leader", "rounds", "result",
                 "revealed_seed", "version")

    @property
    def ended(self) -> bool:
        return self.status in (FINISHED, INTERRUPTED)


_TABLE_FIELDS = tuple(name for name in _Table.__slots__ if name != "held")


def _thaw(state: GameState) -> _Game:
    g = _Game()
    for name in _Game.__slots__:
        setattr(g, name, getattr(state, name))
    g.players = list(state.players)
    g.client_seeds = list(state.client_seeds)
    g.rounds = list(state.rounds)
    r = state.table
    if r is not None:
        t = _Table()
        for name in _TABLE_FIELDS:
            setattr(t, name, getattr(r, name))
        t.hands = [list(h) for h in r.hands]
        t.held = _held(r.hands)
        t.bazaar = list(r.bazaar)
        t.line = list(r.line)
        t.on_table = list(r.on_table)
        g.table = t
    return g


def _freeze(g: _Game) -> GameState:
    t = g.table
    table = None if t is None else RoundState(
        number=t.number, hands=tuple(tuple(h) for h in t.hands), bazaar=tuple(t.bazaar), line=tuple(t.line),
        left=t.left, right=t.right, turn=t.turn, must_lead=t.must_lead, last_player=t.last_player,
        on_table=tuple(t.on_table), ended=t.ended,
    )
    return GameState(
        ruleset=g.ruleset, options=g.options, seats=g.seats, commitment=g.commitment, server_seed=g.server_seed,
        players=tuple(g.players), client_seeds=tuple(g.client_seeds), status=g.status, round_no=g.round_no,
        next_attempt=g.next_attempt, table=table, scores=g.scores, fish_pot=g.fish_pot, leader=g.leader,
        rounds=tuple(g.rounds), result=g.result, revealed_seed=g.revealed_seed, version=g.version,
    )


def _seat_of(g, event: Mapping[str, Any]) -> int:
    seat = event.get("seat")
    if seat.__class__ is not int or not 0 <= seat < g.seats:
        raise _err("invalid_seat", f"seat {seat!r} is not a seat of this game.", InvalidEvent)
    return seat


def _data(event: Mapping[str, Any]) -> Mapping[str, Any]:
    data = event.get("data")
    if data.__class__ is not dict and not isinstance(data, Mapping):
        raise _err("malformed_event", "the event has no data object.", InvalidEvent)
    return data


# Every _apply_* checks first (when ``check``) and only then changes ``g``: a refused event leaves
# the machine as it was, so a replay can report the state before it.


#: the classes of the option values that :func:`_resolve_stored` takes (what JSON gives for them)
_PLAIN = frozenset({str, int, bool, type(None)})


@functools.lru_cache(maxsize=64)
def _resolve_stored(ruleset: str, seats: int, items: tuple) -> tuple[Options, bool]:
    """``resolve_options(ruleset, seats, stored)`` and whether its ``to_dict()`` equals ``stored`` (the
    stored options are fully resolved), for the ``(key, class, value)`` items of a dict ``stored`` of
    plain values. A pure function of its arguments (Options is frozen), cached because every game of
    a ruleset stores the same few option sets; a refusal raises afresh on every call (not cached)."""
    stored = {k: v for k, _, v in items}
    options = resolve_options(ruleset, seats, stored)
    return options, options.to_dict() == stored


def _apply_game_created(g, event, check) -> _Game:
    if g is not None:
        raise _err("unexpected_event", "game_created can only be the first event.", InvalidEvent)
    data = _data(event)
    try:
        if check:
            ruleset, seats, stored = data["ruleset"], data["seats"], data["options"]
            if (
                ruleset.__class__ is str and seats.__class__ is int and stored.__class__ is dict
                and all(k.__class__ is str and v.__class__ in _PLAIN for k, v in stored.items())
            ):
                # Keyed on each value's class too: True == 1 and hash(True) == hash(1)
                options, resolved = _resolve_stored(
                    ruleset, seats, tuple([(k, v.__class__, v) for k, v in stored.items()]))
            else:
                options = resolve_options(ruleset, seats, stored)
                resolved = options.to_dict() == dict(stored)
            if not resolved:
                raise _err("options_not_resolved", "the stored options are not fully resolved.", InvalidEvent)
        else:
            options = None
        options = options or Options.from_dict(data["options"])
        seats = data["seats"]
        commitment = data["server_seed_commitment"]
    except (KeyError, TypeError) as exc:
        raise _err("malformed_event", f"game_created lacks {exc}.", InvalidEvent) from exc
    # _thaw(GameState(ruleset=..., options=..., seats=..., commitment=..., players=(None,) * seats,
    # client_seeds=(None,) * seats, scores=(PlayerScore(),) * seats, version=1)), without building the
    # GameState (every other field at GameState's default; test_fast_paths compares the two)
    g = _Game()
    g.ruleset, g.options, g.seats, g.commitment = data["ruleset"], options, seats, commitment
    g.server_seed = None
    g.players, g.client_seeds, g.scores = [None] * seats, [None] * seats, (PlayerScore(),) * seats
    g.status, g.round_no, g.next_attempt, g.table, g.fish_pot, g.leader = WAITING, 0, 0, None, 0, None
    g.rounds, g.result, g.revealed_seed, g.version = [], None, None, 1
    return g


def _apply_seat_taken(g, event, check) -> _Game:
    data = _data(event)
    seat, player, client_seed = data.get("seat"), data.get("player"), data.get("client_seed", "")
    if check:
        if g.status != WAITING:
            raise _err("game_not_waiting", "Every seat of this game is taken.")
        if seat.__class__ is not int or not 0 <= seat < g.seats:
            raise _err("invalid_seat", f"seat {seat!r} is not a seat of this game.", InvalidEvent)
        if g.players[seat] is not None:
            raise _err("seat_taken", f"seat {seat} is already taken.", InvalidEvent)
        if not isinstance(player, str) or not player or len(player) > MAX_PLAYER_NAME:
            raise _err("malformed_event", "seat_taken needs a player name.", InvalidEvent)
        if player in g.players:
            raise _err("already_seated", "You already have a seat at this game.")
        if not isinstance(client_seed, str) or len(client_seed) > MAX_CLIENT_SEED:
            raise _err("invalid_client_seed", f"client_seed must be a string of at most {MAX_CLIENT_SEED} characters.")
    g.players[seat] = player
    g.client_seeds[seat] = client_seed
    if None not in g.players:
        g.status = RUNNING
    g.version += 1
    return g


def next_deal(state) -> tuple[int, int, tuple, tuple, bool]:
    """``(round, attempt, hands, bazaar, void)`` of the deal the game waits for (needs the seed)."""
    round_no, attempt, hands, bazaar, void, _, _, _ = _next_deal_written(state)
    return round_no, attempt, tuple(map(tuple, hands)), tuple(bazaar), void


def _next_deal_written(state) -> tuple[int, int, tuple, tuple, bool, list, list, tuple]:
    """:func:`next_deal`, the written form of its hands and bazaar and the ``held`` counts of its hands."""
    if state.server_seed is None:
        raise RulesError("seed_unknown", "the server seed is needed to deal.")
    round_no, attempt = state.round_no + 1, state.next_attempt
    options = state.options
    key = _deal_key(state.server_seed, tuple(state.client_seeds))
    return (round_no, attempt,
            *_deal(key, round_no, attempt, state.seats, options.hand_size, options.redeal))


#: the text of each tile, by its position in ALL_TILES
_TEXT_AT = tuple(map(_TEXT.__getitem__, ALL_TILES))


@functools.lru_cache(maxsize=16)
def _deal_key(server_seed: str, client_seeds: tuple[str, ...]) -> bytes:
    """The key is the same for every deal of a game: derive it once.

    A few entries serve the deals of a game (and of a few games played in turns); more would only
    remember games already verified, which helps nothing but a benchmark that verifies them again."""
    return dealing.deal_key(server_seed, client_seeds)


def _deal(key: bytes, round_no: int, attempt: int, seats: int, hand_size: int, redeal: bool):
    """One deal: hands, bazaar, void, the written hands and bazaar (lists of tile texts) and the
    ``held`` counts of the hands (see :class:`_Table`): every one a fresh list, which the table of the
    round takes as it is.

    Not cached: ``decide`` checks the deal event it writes against the deal it wrote it from (see
    :func:`_advance`), and a replay computes each deal once. (A cache of 16 deals, which served
    ``decide``, cost a verify ~3% in the engine bench, for no hit.)
    """
    positions = dealing.shuffled_positions(key, round_no, attempt)
    pick = itemgetter(*positions)  # (one C call per table read in the dealt order)
    order = pick(ALL_TILES)
    dealt = seats * hand_size
    counts = pick(dealing._POSITION_COUNTS)  # each tile's values (and double), packed (deal.py)
    if seats >= 1 and hand_size >= 1 and dealt <= len(order):
        # deal_hands, by slices (hands, then the bazaar; nothing to refuse): one C call cuts a sequence
        cut = _cutter(seats, hand_size)
        *hands, bazaar = cut(list(order))
        *hands_text, bazaar_text = cut(list(pick(_TEXT_AT)))
    else:
        hands, bazaar = dealing.deal_hands(order, seats, hand_size)  # refuses what cannot be dealt
        hands, bazaar = list(map(list, hands)), list(bazaar)
        text = list(pick(_TEXT_AT))
        hands_text = [text[start:start + hand_size] for start in range(0, dealt, hand_size)]
        bazaar_text = text[dealt:]
    # after deal_hands, which refuses a shape that cannot be dealt
    void = redeal and dealing._needs_redeal_counts(counts, seats, hand_size)
    # The hands hold every tile that is not in the bazaar, and each value is on 7 tiles (a double once).
    x = sum(counts[dealt:])
    held = [7 - (x & 15), 7 - (x >> 4 & 15), 7 - (x >> 8 & 15), 7 - (x >> 12 & 15), 7 - (x >> 16 & 15),
            7 - (x >> 20 & 15), 7 - (x >> 24 & 15)]  # the fields at dealing.VALUE_SHIFTS
    return hands, bazaar, void, hands_text, bazaar_text, held


@functools.lru_cache(maxsize=64)
def _cutter(seats: int, hand_size: int) -> itemgetter:
    """An ``itemgetter`` of the slices of a dealt sequence: each seat's hand, then the bazaar (at least two
    slices, so that it always returns a tuple)."""
    dealt = seats * hand_size
    return itemgetter(*[slice(start, start + hand_size) for start in range(0, dealt, hand_size)],
                      slice(dealt, None))


def _parse_tiles(value) -> tuple[Tile, ...]:
    if not isinstance(value, list):
        raise _err("malformed_event", "a list of tiles was expected.", InvalidEvent)
    try:
        return tuple(parse_tile(x) for x in value)
    except RulesError as exc:
        raise _err("malformed_event", exc.detail, InvalidEvent) from exc


def _apply_round_dealt(g, event, check, dealt=None) -> _Game:
    """Apply a ``round_dealt`` event; ``dealt``, when given, is ``_deal`` of the deal the game waits for,
    already computed by the caller (what this computes from the seeds when it is not given)."""
    data = _data(event)
    if check:
        t = g.table
        if g.status != RUNNING or (t is not None and t.ended is None):  # pending(g) is not DEAL
            _expect(g, (DEAL,), None, "round_dealt")
        if data.get("round") != g.round_no + 1 or data.get("attempt") != g.next_attempt:
            raise _err("deal_mismatch", f"expected the deal of round {g.round_no + 1}, attempt "
                       f"{g.next_attempt}.", InvalidEvent)
    seed = g.server_seed
    if seed is not None:
        if dealt is None:
            options = g.options  # _next_deal_written(g), without its tuple
            dealt = _deal(_deal_key(seed, tuple(g.client_seeds)), g.round_no + 1, g.next_attempt, g.seats,
                          options.hand_size, options.redeal)
        hands, bazaar, void, hands_text, bazaar_text, held = dealt
        if check:
            stored_hands = data.get("hands")
            if (
                data.get("void") is not void
                or data.get("bazaar") != bazaar_text
                or not isinstance(stored_hands, list)
                or stored_hands != hands_text
            ):
                raise _err("deal_mismatch", "the deal does not match the one the server seed and the client "
                           "seeds produce.", InvalidEvent)
    else:
        # No seed: the deal cannot be proved, only checked for shape.
        raw_hands = data.get("hands")
        if not isinstance(raw_hands, list) or len(raw_hands) != g.seats:
            raise _err("malformed_event", "round_dealt needs one hand per seat.", InvalidEvent)
        hands = [list(_parse_tiles(h)) for h in raw_hands]
        bazaar = list(_parse_tiles(data.get("bazaar")))
        void = data.get("void") is True
        held = None
        if check:
            tiles = [t for h in hands for t in h] + bazaar
            if sorted(tiles) != list(ALL_TILES) or any(len(h) != g.options.hand_size for h in hands):
                raise _err("deal_mismatch", "the deal is not a deal of the 28 tiles.", InvalidEvent)
            if void != bool(g.options.redeal and dealing.needs_redeal(hands)):
                raise _err("deal_mismatch", "the deal's void flag contradicts the redeal rule.", InvalidEvent)
    g.version += 1
    if void:
        g.next_attempt += 1
        return g
    g.round_no += 1
    g.next_attempt = 0
    options = g.options
    if g.round_no == 1 or options.later_leader == "opener" or g.leader is None:
        leader, must_lead = opening_tile(options.opener, hands)
    else:
        leader, must_lead = g.leader, None
    t = _Table()
    t.number, t.hands, t.bazaar, t.line = g.round_no, hands, bazaar, []  # fresh lists (_deal, or parsed)
    t.left = t.right = t.last_player = t.ended = None
    t.turn, t.must_lead, t.on_table = leader, must_lead, [0] * 7
    t.held = _held(hands) if held is None else held
    g.table = t
    return g


def _blocked(t: _Table, options: Options) -> bool:
    """Nobody can play and no draw is allowed (RULES.md §6): no tile in any hand carries an end value."""
    if len(t.bazaar) > options.bazaar_reserve:
        return False
    left, right = t.left, t.right
    if left is None:  # an empty line (only from trusted events): no tile carries None
        return True
    held = t.held
    return not held[left] and not held[right]


def _apply_tile_played(g, event, check) -> _Game:
    # The hottest function of replay: written for speed, with the full checks (check_play) taken
    # only when the fast test below does not pass; those raise the precise error.
    t = g.table
    hand = None
    try:  # subscripts, not .get(): a missing key only sends the event to the full checks below
        data = event["data"]
        if data.__class__ is dict:
            tile = _PARSE[data["tile"]]
            end = data["end"]
            seat = event["seat"]
    except (KeyError, TypeError):  # TypeError: a tile that is not a string (unhashable)
        data = None
    if (
        data.__class__ is dict
        and seat.__class__ is int
        and t is not None
        and t.turn == seat
        and t.ended is None
        and g.status == RUNNING
        and t.line
    ):
        a, b = tile
        if (end == "left" and (a == t.left or b == t.left)) or (end == "right" and (a == t.right or b == t.right)):
            # A tile in hand that fits means the seat has a choice, so pending() is PLAY for it
            # whenever it is its turn in a running round. ``remove`` is the in-hand test.
            hand = t.hands[seat]
            try:
                hand.remove(tile)
            except ValueError:
                hand = None
    if hand is None:
        # Every unusual case (and the first tile of a round) gets here, before anything changed.
        seat = _seat_of(g, event)
        data = _data(event)
        if check:
            try:
                tile = parse_tile(data.get("tile"))
            except RulesError as exc:
                raise _err("malformed_event", exc.detail, InvalidEvent) from exc
            expected = check_play(g, seat, tile, data.get("end"))
            if expected != data.get("end"):
                raise _err("malformed_event", f"tile_played must name the end it was put on ({expected}).",
                           InvalidEvent)
        tile, end = parse_tile(data["tile"]), data["end"]
        t = g.table
        hand = t.hands[seat]
        hand.remove(tile)
    return _place(g, t, seat, tile, end, hand)


def _place(g: _Game, t: _Table, seat: int, tile: Tile, end: str, hand: list[Tile]) -> _Game:
    """Put a checked play of ``seat`` on the line: ``tile``, already removed from ``hand`` (its hand in
    the table ``t``), goes on ``end``; then the turn passes, or the round ends (RULES.md §6)."""
    a, b = tile
    held = t.held
    held[a] -= 1
    on_table = t.on_table
    if a != b:
        held[b] -= 1
        on_table[a] += 1
        on_table[b] += 1
    line = t.line
    if not line:
        line.append(tile)
        t.left, left = a, a
        t.right, right = b, b
    elif end == "left":
        right = t.right
        left = t.left
        other = b if a == left else a
        line.insert(0, (other, left))
        t.left = left = other
    else:
        left = t.left
        right = t.right
        other = b if a == right else a
        line.append((right, other))
        t.right = right = other
    t.turn = (seat + 1) % g.seats
    t.must_lead = None
    t.last_player = seat
    g.version += 1
    if not hand:
        _end_round(g, "out", seat)
    else:
        options = g.options
        if left == right and on_table[left] == 6 and options.fish == "positional_or_blocked":
            _end_round(g, "fish", seat)
        elif len(t.bazaar) <= options.bazaar_reserve and not held[left] and not held[right]:
            _end_round(g, "fish", seat)  # blocked: see _blocked
    return g


def _apply_tile_drawn(g, event, check) -> _Game:
    seat = _seat_of(g, event)
    t = g.table
    if check:
        kind, who = pending(g)
        if kind != DRAW or who != seat:
            _expect(g, (DRAW,), seat, "tile_drawn")
        if _data(event).get("tile") != _TEXT[t.bazaar[0]]:
            raise _err("draw_mismatch", "the drawn tile is not the front of the bazaar.", InvalidEvent)
    tile = t.bazaar.pop(0)
    t.hands[seat].append(tile)
    a, b = tile
    held = t.held
    held[a] += 1
    if a != b:
        held[b] += 1
    g.version += 1
    left, right = t.left, t.right
    if not (a == left or a == right or b == left or b == right) and _blocked(t, g.options):
        _end_round(g, "fish", t.last_player)
    return g


def _apply_knocked(g, event, check) -> _Game:
    seat = _seat_of(g, event)
    if check:
        kind, who = pending(g)
        if kind != KNOCK or who != seat:
            _expect(g, (KNOCK,), seat, "knocked")
    g.table.turn = (seat + 1) % g.seats
    g.version += 1
    return g


_DOUBLE_ZERO = (0, 0)
_flat = chain.from_iterable  # sum(_flat(hand)): the pips of a hand, as sum(map(sum, hand))
_new = object.__new__
(_set_round, _set_end, _set_seat, _set_hand_tiles, _set_hands, _set_round_points, _set_fish_pot, _set_draw,
 _set_players) = scoring.field_setters(RoundRecord)


def _round_record(round, end, seat, hand_tiles, hands, round_points, fish_pot, draw, players) -> RoundRecord:
    """``RoundRecord(...)`` positionally, faster (see :func:`scoring.field_setters`)."""
    r = _new(RoundRecord)
    _set_round(r, round)
    _set_end(r, end)
    _set_seat(r, seat)
    _set_hand_tiles(r, hand_tiles)
    _set_hands(r, hands)
    _set_round_points(r, round_points)
    _set_fish_pot(r, fish_pot)
    _set_draw(r, draw)
    _set_players(r, players)
    return r


def _end_round(g: _Game, end: str, seat: int) -> None:
    """Score a finished round (RULES.md §6–§8) and end the game if it is over."""
    options = g.options
    t = g.table
    # scoring.hand_value of each hand (the machine's hands hold (low, high) tuples): the pips, or
    # lone_double_zero for a hand of exactly 0-0
    lone_double_zero = options.lone_double_zero
    hand_values = tuple([
        lone_double_zero if len(h) == 1 and h[0] == _DOUBLE_ZERO else sum(_flat(h)) for h in t.hands
    ])
    if options.scoring == "goat":
        # scoring.score_goat_round / score_fixed_round, as the tuple of the RoundOutcome's fields
        players, round_points, fish_pot, draw = scoring._score_goat(
            g.scores, hand_values, end, seat, options.fish_scoring, options.open_threshold, g.fish_pot,
        )
    else:
        players, round_points, fish_pot, draw = scoring._score_fixed(g.scores, hand_values)
    # RoundRecord(round, end, seat, hand_tiles, hands, round_points, fish_pot, draw, players), by its fast
    # constructor
    g.rounds.append(_round_record(
        t.number, end, seat, tuple(map(tuple, t.hands)), hand_values, round_points, fish_pot, draw, players,
    ))
    t.turn = None
    t.ended = end
    points = [p.score + p.remembered for p in players]  # PlayerScore.points
    result = None
    if options.scoring == "goat":
        if max(points) >= options.limit:  # scoring.goat_game_over (there is always a player)
            goats, winners = scoring.result_by_limit(points, options.limit)
            result = _result("limit", points, goats, winners, options, g.seats)
    elif t.number >= options.rounds:
        goats, winners = scoring.result_by_rounds(points)
        result = _result("rounds", points, goats, winners, options, g.seats)
    g.scores = players
    g.fish_pot = fish_pot if result is None else 0  # D-9: a pot still carried at the end is void
    g.leader = seat
    g.result = result
    g.status = FINISHED if result is not None else RUNNING


def _result(reason, points, goats, winners, options: Options, seats: int) -> Result:
    return Result(
        reason=reason,
        goats=tuple(goats),
        winners=tuple(winners),
        rating_points=tuple(scoring.rating_points_finished(points, goats)),
        chips=tuple(scoring.chips_finished(options.ante, seats, winners)),
    )


def _interrupt(g: _Game, seat: int, reason: str) -> _Game:
    points = [p.points for p in g.scores]  # D-13: written after the last completed round
    goats, winners = scoring.result_interrupted(points, seat)
    g.result = Result(
        reason=reason,
        goats=tuple(goats),
        winners=tuple(winners),
        rating_points=tuple(scoring.rating_points_interrupted(points, seat)),
        chips=tuple(scoring.chips_interrupted(g.options.ante, g.seats, seat)),
    )
    if g.table is not None:
        g.table.turn = None
    g.status = INTERRUPTED
    g.fish_pot = 0
    g.version += 1
    return g


def _apply_timed_out(g, event, check) -> _Game:
    seat = _seat_of(g, event)
    if check:
        _expect(g, (PLAY,), seat, "timed_out")
        if g.options.move_time <= 0:
            raise _err("no_clock", "This game has no move clock.")
    return _interrupt(g, seat, "timeout")


def _apply_resigned(g, event, check) -> _Game:
    seat = _seat_of(g, event)
    if check:
        if g.status != RUNNING:
            raise _err("game_not_running", "The game is not running.")
        _expect(g, (PLAY,), None, "resigned")
    return _interrupt(g, seat, "resigned")


@functools.lru_cache(maxsize=2)
def seed_commitment(server_seed_hex: str) -> str:
    """:func:`deal.commitment` of a seed, remembered for the next call: ``verify_log`` computes it to
    decide whether to deal with the revealed seed, and the reveal event then checks it again (two
    entries: one log's seed, not the logs of a benchmark's earlier repetitions)."""
    return dealing.commitment(server_seed_hex)


def _apply_seed_revealed(g, event, check) -> _Game:
    seed = _data(event).get("server_seed")
    if check:
        _expect(g, (REVEAL,), None, "seed_revealed")
        if not isinstance(seed, str) or not is_seed_hex(seed) or seed_commitment(seed) != g.commitment:
            raise _err("seed_mismatch", "the revealed server seed does not match the commitment.", InvalidEvent)
        if g.server_seed is not None and seed != g.server_seed:
            raise _err("seed_mismatch", "the revealed server seed is not the one the game was dealt with.",
                       InvalidEvent)
    g.revealed_seed = seed
    g.server_seed = seed
    g.version += 1
    return g


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


def _dispatch(g: _Game | None, event, check: bool) -> _Game:
    try:
        handler = _APPLY[event["type"]]
    except (KeyError, TypeError):  # no type, or one that is not even a string (unhashable)
        etype = event.get("type") if isinstance(event, Mapping) else None
        raise _err("unknown_event", f"unknown event type {etype!r}.", InvalidEvent) from None
    if g is None and handler is not _apply_game_created:
        raise _err("unexpected_event", f"a {event['type']} event cannot come before game_created.", InvalidEvent)
    return handler(g, event, check)


#: for each tile text (either order, as _PARSE): the tile, and for each end value 0..6 the value it leaves
#: open when put on an end showing that value (its other half; for a double the same), or None when it
#: does not fit: what _place computes from the tile and the end, looked up by Fold.push_all
_PLAYS = {
    text: (tile, tuple(tile[1] if tile[0] == v else tile[0] if tile[1] == v else None for v in range(7)))
    for text, tile in _PARSE.items()
}


def _write_back(t: _Table, g: _Game, left, right, turn, last_player, version: int, played: bool) -> None:
    """Store what ``Fold.push_all`` held in locals back on the table and the machine ("sync");
    returns None, what the loop then holds."""
    t.left, t.right, t.turn, t.last_player, g.version = left, right, turn, last_player, version
    if played:
        t.must_lead = None


class Fold:
    """A fold over events on one mutable machine: ``Fold(state).push(event)`` ... ``.state``.

    ``push`` checks the event against the rules (``check=True``) or trusts it, and refuses an
    invalid one without changing anything, so ``.state`` is then the state before it.
    """

    __slots__ = ("_g", "check")

    def __init__(self, state: GameState | None = None, *, check: bool = True) -> None:
        self._g = _thaw(state) if state is not None else None
        self.check = check

    def push(self, event: Mapping[str, Any]) -> None:
        self._g = _dispatch(self._g, event, self.check)

    def push_all(self, events: Iterable[Mapping[str, Any]], *, first_seq: int = 1) -> None:
        """Push events whose ``seq`` must run on from ``first_seq``; the hot loop of replay.

        On a refused event raises its :class:`RulesError` with ``.seq`` set to its position.

        While a round is in progress its three events (``tile_played``, ``tile_drawn``, ``knocked``) are
        applied here inline when they are plainly what the rules allow (the same tests as their
        ``_apply_*``: the seat to move, the tile in hand that fits the named end, the forced draw of
        the bazaar's front, the forced knock), with the table's ends, turn, last player and the game's
        version held in local variables and written back ("synced") before anything else reads the
        machine: before ``_end_round``, before ``_dispatch`` and when the loop stops. Every other event,
        and any of these that is not plainly allowed, goes through ``_dispatch`` before anything changed,
        which applies it or raises the precise error. ``push`` (one event through ``_dispatch``) is the
        reference that tests/engine/test_fast_paths.py compares this loop with.
        """
        g, check, dispatch = self._g, self.check, _dispatch
        parse, text_of, plays = _PARSE, _TEXT, _PLAYS
        position = first_seq - 1
        #: the table whose fields are held in the locals below, None when nothing is held
        t = None
        left = right = turn = last_player = version = None
        played = False
        try:
            for position, event in enumerate(events, start=first_seq):
                if event.__class__ is not dict:
                    if t is not None:  # sync
                        t = _write_back(t, g, left, right, turn, last_player, version, played)
                    if not isinstance(event, Mapping):
                        raise InvalidEvent("malformed_event", "an event must be a JSON object.")
                    try:
                        seq = event["seq"]
                    except KeyError:
                        seq = position
                    if seq != position:
                        raise InvalidEvent("wrong_seq", f"expected seq {position}, found {seq!r}.")
                    g = dispatch(g, event, check)
                    continue
                try:  # subscripts are cheaper than .get() on this path
                    seq = event["seq"]
                except KeyError:
                    seq = position
                if seq != position:
                    raise InvalidEvent("wrong_seq", f"expected seq {position}, found {seq!r}.")  # synced below
                if t is None:
                    table = g.table if g is not None else None
                    if table is None or table.ended is not None or g.status != RUNNING:
                        g = dispatch(g, event, check)
                        continue
                    if not table.line:
                        # The first tile of the round: as _apply_tile_played when check_play accepts it (the
                        # seat to move, a tile in hand, the tile the round must open with if there is one,
                        # written as put on the left end); anything else through _dispatch.
                        seat = event.get("seat")
                        data = event.get("data")
                        if (
                            seat.__class__ is int and seat == table.turn and data.__class__ is dict
                            and event.get("type") == "tile_played" and data.get("end") == "left"
                        ):
                            tile = parse.get(data.get("tile")) if data.get("tile").__class__ is str else None
                            if tile is not None and (table.must_lead is None or tile == table.must_lead):
                                hand = table.hands[seat]
                                try:  # the in-hand test
                                    hand.remove(tile)
                                except ValueError:
                                    pass
                                else:
                                    g = _place(g, table, seat, tile, "left", hand)
                                    continue
                        g = dispatch(g, event, check)
                        continue
                    # A round in progress, with a tile on the line: hold what its events change.
                    t = table
                    hands, held, on_table, line, bazaar = t.hands, t.held, t.on_table, t.line, t.bazaar
                    left, right, turn, last_player, version = t.left, t.right, t.turn, t.last_player, g.version
                    played = False
                    seats = g.seats
                    options = g.options
                    reserve = options.bazaar_reserve
                    positional = options.fish == "positional_or_blocked"
                    #: a draw is allowed (len(bazaar) > reserve); the bazaar changes only by a draw here
                    drawing = len(bazaar) > reserve
                try:  # subscripts are cheaper than .get(); a missing key sends the event to _dispatch below
                    seat = event["seat"]
                    data = event["data"]
                    etype = event["type"]
                except KeyError:
                    seat = None
                if seat.__class__ is int and seat == turn and data.__class__ is dict:
                    if etype == "tile_played":
                        try:
                            tile, leaves = plays[data["tile"]]
                            end = data["end"]
                        except (KeyError, TypeError):  # TypeError: a tile that is not a string (unhashable)
                            end = None
                        # As _place, for a line that is not empty: the tile fits the named end and is in
                        # the hand (``remove`` is the in-hand test), then goes on the line.
                        new = None
                        if end == "left" or end == "right":
                            new = leaves[left if end == "left" else right]  # None: it does not fit
                            if new is not None:
                                hand = hands[seat]
                                try:
                                    hand.remove(tile)
                                except ValueError:
                                    new = None
                                else:
                                    if end == "left":
                                        line.insert(0, (new, left))
                                        left = new
                                    else:
                                        line.append((right, new))
                                        right = new
                        if new is not None:
                            a, b = tile
                            held[a] -= 1
                            if a != b:
                                held[b] -= 1
                                on_table[a] += 1
                                on_table[b] += 1
                            turn = (seat + 1) % seats
                            last_player = seat
                            played = True
                            version += 1
                            if not hand:
                                end_as = "out"
                            elif left == right and on_table[left] == 6 and positional:
                                end_as = "fish"
                            elif not drawing and not held[left] and not held[right]:
                                end_as = "fish"  # blocked: see _blocked
                            else:
                                continue
                            t = _write_back(t, g, left, right, turn, last_player, version, played)
                            _end_round(g, end_as, seat)
                            continue
                    elif (etype == "tile_drawn" or etype == "knocked") and 0 <= seat < seats:
                        hand = hands[seat]
                        for a, b in hand:
                            if a == left or b == left or a == right or b == right:
                                break  # the seat has a play: neither is forced (the general path says which error)
                        else:
                            if etype == "knocked":
                                if not drawing:  # as _apply_knocked
                                    turn = (seat + 1) % seats
                                    version += 1
                                    continue
                            elif drawing and data.get("tile") == text_of[bazaar[0]]:  # as _apply_tile_drawn
                                tile = bazaar.pop(0)
                                drawing = len(bazaar) > reserve
                                hand.append(tile)
                                a, b = tile
                                held[a] += 1
                                if a != b:
                                    held[b] += 1
                                version += 1
                                if (
                                    a == left or a == right or b == left or b == right
                                    or drawing or held[left] or held[right]
                                ):
                                    continue
                                # blocked (_blocked: the line is not empty, so its ends are values)
                                t = _write_back(t, g, left, right, turn, last_player, version, played)
                                _end_round(g, "fish", last_player)
                                continue
                # Not plainly allowed: sync, and let _dispatch apply it or say why not.
                t = _write_back(t, g, left, right, turn, last_player, version, played)
                g = dispatch(g, event, check)
        except RulesError as exc:
            exc.seq = position
            raise
        finally:
            if t is not None:  # sync
                _write_back(t, g, left, right, turn, last_player, version, played)
            self._g = g

    def set_server_seed(self, server_seed: str | None) -> None:
        self._g.server_seed = server_seed

    @property
    def state(self) -> GameState | None:
        return _freeze(self._g) if self._g is not None else None

    @property
    def machine(self) -> _Game | None:
        """The mutable machine itself (read it, never change it): what ``state`` would freeze."""
        return self._g


def apply(state: GameState | None, event: Mapping[str, Any]) -> GameState:
    """Check ``event`` against the rules in ``state`` and return the next state."""
    return _freeze(_dispatch(_thaw(state) if state is not None else None, event, True))


def evolve(state: GameState | None, event: Mapping[str, Any]) -> GameState:
    """The next state after a stored (trusted) event; no rule is checked."""
    return _freeze(_dispatch(_thaw(state) if state is not None else None, event, False))


def evolve_all(events: Iterable[Mapping[str, Any]], state: GameState | None = None) -> GameState | None:
    """``functools.reduce(evolve, events, state)``, in one pass (trusted events)."""
    fold = Fold(state, check=False)
    for event in events:
        fold.push(event)
    return fold.state


def with_server_seed(state: GameState, server_seed_hex: str) -> GameState:
    """Give the state the secret seed it deals with (the server's own copy)."""
    if dealing.commitment(server_seed_hex) != state.commitment:
        raise RulesError("seed_mismatch", "the server seed does not match the game's commitment.")
    return replace(state, server_seed=server_seed_hex)


# --- the forced actions and decide ------------------------------------------------------------


def forced_event(state) -> Event | None:
    """The event the rules force next, or ``None`` when the game waits for a choice."""
    return _forced_event(state, *pending(state))


def _forced_event(state, kind: str, seat: int | None) -> Event | None:
    """:func:`forced_event` given what ``pending(state)`` returns."""
    if kind == DRAW:
        return {"type": "tile_drawn", "seat": seat, "data": {"tile": tile_str(state.table.bazaar[0])}}
    if kind == KNOCK:
        return {"type": "knocked", "seat": seat, "data": {}}
    if kind == DEAL:
        return _deal_event(state)[0]
    if kind == REVEAL:
        if state.server_seed is None:
            raise RulesError("seed_unknown", "the server seed is needed to end the game.")
        return {"type": "seed_revealed", "seat": None, "data": {"server_seed": state.server_seed}}
    return None


def _deal_event(state) -> tuple[Event, tuple]:
    """The ``round_dealt`` event of the deal the game waits for, and that deal as ``_deal`` returns it."""
    round_no, attempt, *dealt = _next_deal_written(state)
    _, _, void, hands_text, bazaar_text, _ = dealt
    event = {
        "type": "round_dealt",
        "seat": None,
        "data": {
            "round": round_no,
            "attempt": attempt,
            "hands": [list(h) for h in hands_text],  # copies: the event never shares a list with the deal
            "bazaar": list(bazaar_text),
            "void": void,
        },
    }
    return event, tuple(dealt)


def _advance(g: _Game, events: list[Event], waits_for: tuple[str, int | None] | None = None,
             ) -> tuple[_Game, tuple[str, int | None]]:
    """Apply every forced action; returns the machine and what it then waits for (``pending``).

    ``waits_for``, when given, is ``pending(g)`` already computed by the caller."""
    if waits_for is None:
        waits_for = pending(g)
    while waits_for[0] not in CHOICES:  # what _forced_event would say with None
        if waits_for[0] == DEAL:
            # The deal computed once: the event is written from it, then checked against it (as _dispatch
            # would, which would compute the same deal again from the same machine).
            event, dealt = _deal_event(g)
            g = _apply_round_dealt(g, event, True, dealt)
        else:
            event = _forced_event(g, *waits_for)
            g = _dispatch(g, event, True)
        events.append(event)
        waits_for = pending(g)
    return g, waits_for


def advance(state: GameState) -> tuple[GameState, list[Event]]:
    """Perform every forced action up to the next real choice."""
    events: list[Event] = []
    g, _ = _advance(_thaw(state), events)
    return _freeze(g), events


def _decide_on(g: _Game | None, command: Command, moves: bool = False,
               ) -> tuple[_Game, list[Event], tuple[str, int | None] | None, list[tuple[Tile, str]] | None]:
    """Apply ``command`` and every forced action after it to the machine ``g``.

    Returns the machine, the events, what it then waits for (``pending``, when known) and, when
    ``moves`` is asked for and a play leaves the next seat a choice, that seat's legal moves (what
    ``_legal_moves`` returns; found by the same scan of the hand that tells a choice from a forced
    draw or knock).
    Every check runs before anything changes, so a refused command leaves ``g`` as it was.
    """
    if isinstance(command, PlayTile):
        if g is None:
            raise RulesError("no_game", "the game does not exist.")
        seat, tile, end = command
        if isinstance(tile, str):
            tile = parse_tile(tile)
            text = _TEXT[tile]
        else:
            try:  # dict lookups, not a scan of ALL_TILES; the canonical tile (ints, low first) from its text
                text = _TEXT[tile]
                tile = _PARSE[text]
            except (KeyError, TypeError):  # TypeError: unhashable parts; let the scan below decide
                text = None
            if text is None:
                if tile not in ALL_TILES:
                    raise _err("invalid_tile", f"{command.tile!r} is not a domino tile.")
                tile = ALL_TILES[ALL_TILES.index(tile)]
                text = _TEXT[tile]
        # The common case, tested fast: the seat to move, a tile that fits the end (or the only end it
        # fits), the remove as the in-hand test (one scan of the hand); anything else gets check_play.
        t = g.table
        hand = None
        if (
            t is not None and t.turn == seat and seat.__class__ is int and t.ended is None and t.line
            and g.status == RUNNING
        ):
            a, b = tile
            if end == "left":
                fits = a == t.left or b == t.left
            elif end == "right":
                fits = a == t.right or b == t.right
            elif end is None:
                fits_left = a == t.left or b == t.left
                fits = fits_left != (a == t.right or b == t.right)
                end = "left" if fits_left else "right"
            else:
                fits = False
            if fits:
                hand = t.hands[seat]
                try:
                    hand.remove(tile)
                except ValueError:
                    hand = None
        if hand is None:  # before anything changed
            end = check_play(g, seat, tile, command.end)  # raises the precise error, or accepts a first tile
            if seat.__class__ is not int:  # equal to the seat to move, but not an int: 1.0, True
                raise _err("invalid_seat", f"seat {seat!r} is not a seat of this game.", InvalidEvent)
            hand = t.hands[seat]
            hand.remove(tile)
        # Checked: the event is applied without reading it back.
        events = [{"type": "tile_played", "seat": seat, "data": {"tile": text, "end": end}}]
        g = _place(g, t, seat, tile, end, hand)
        if moves and t.ended is None and g.status == RUNNING:
            # pending(g) for a round that goes on after a play (the line is not empty): PLAY for the next
            # seat exactly when one of its tiles fits an end, i.e. when it has a legal move.
            who = t.turn
            left, right = t.left, t.right
            found = []
            for tile in t.hands[who]:  # as _legal_moves
                a, b = tile
                if a == left or b == left:
                    found.append((tile, "left"))
                if a == right or b == right:
                    found.append((tile, "right"))
            if found:
                return g, events, (PLAY, who), found
        waits_for = pending(g)
        if waits_for[0] not in CHOICES:  # a forced action follows (most plays leave the next seat a choice)
            g, waits_for = _advance(g, events, waits_for)
        return g, events, waits_for, None
    elif isinstance(command, CreateGame):
        if g is not None:
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
        g = _dispatch(None, event, True)
        g.server_seed = command.server_seed_hex
        return g, [event], None, None
    elif g is None:
        raise RulesError("no_game", "the game does not exist.")
    elif isinstance(command, TakeSeat):
        if g.status != WAITING:
            raise _err("game_not_waiting", "Every seat of this game is taken.")
        seat = g.players.index(None)
        event = {"type": "seat_taken", "seat": seat,
                 "data": {"seat": seat, "player": command.player, "client_seed": command.client_seed}}
    elif isinstance(command, Resign):
        event = {"type": "resigned", "seat": command.seat, "data": {}}
    elif isinstance(command, TimeOut):
        event = {"type": "timed_out", "seat": command.seat, "data": {}}
    else:  # pragma: no cover - typing guard
        raise TypeError(f"not a command: {command!r}")
    events = [event]
    g, waits_for = _advance(_dispatch(g, event, True), events)
    return g, events, waits_for, None


def decide(state: GameState | None, command: Command) -> tuple[GameState, list[Event]]:
    """Events produced by ``command`` (and every forced action after it), and the state they lead to.

    Raises :class:`IllegalMove` (or :class:`~goat.engine.errors.InvalidOptions`) when the rules refuse.
    """
    g, events, _, _ = _decide_on(_thaw(state) if state is not None else None, command)
    return _freeze(g), events


class Session:
    """A game played in memory: ``decide`` on the mutable machine, frozen only when ``.state`` is read.

    The same rules as :func:`decide` (it is built on the same functions); for simulations, bots and
    benchmarks that make many moves in a row. A refused command leaves the session unchanged.
    """

    __slots__ = ("_g", "_moves", "_version", "_waits_for")

    def __init__(self, state: GameState | None = None) -> None:
        self._g = _thaw(state) if state is not None else None
        #: ``pending(machine)`` as the last ``decide`` left it, valid while the machine's version is
        #: ``_version`` (every event bumps the version)
        self._waits_for: tuple[str, int | None] | None = None
        self._version: int | None = None
        #: the legal moves of the seat to move, when the last decide found them (valid with _waits_for);
        #: handed out by the first legal_moves() that asks for them, computed afresh after that
        self._moves: list[tuple[Tile, str]] | None = None

    def decide(self, command: Command) -> list[Event]:
        g, events, waits_for, moves = _decide_on(self._g, command, True)
        self._g = g
        self._waits_for = waits_for
        self._version = None if waits_for is None else g.version
        self._moves = moves
        return events

    def pending(self) -> tuple[str, int | None]:
        g = self._g
        if g is not None and g.version == self._version:
            return self._waits_for
        return pending(g)

    def legal_moves(self, seat: int | None = None) -> list[tuple[Tile, str]]:
        g = self._g
        if g is not None and g.version == self._version:
            moves = self._moves
            if moves is not None and (seat is None or seat == self._waits_for[1]):
                self._moves = None  # the caller owns this list
                return moves
            return _legal_moves(g, self._waits_for, seat)
        return _legal_moves(g, pending(g), seat)

    @property
    def state(self) -> GameState | None:
        return _freeze(self._g) if self._g is not None else None
