"""What the game waits for, and which plays are legal (docs/rules.md §1, §5).

* :func:`playable` is the rule "a tile fits an end when it shows the end's value": the seat's tiles
  that may go on the left and on the right end, as sets (``hand & SHOWS[end]``). :data:`ENDS` and
  :data:`PLAYS` are built from it at import: for each line's ends, the ends and plays of each tile,
  which ``check_play`` and ``legal_moves`` read.
* :func:`pending` says what the game waits for: a player's choice (``"seat"``, ``"play"``) or a
  server action the rules force (``"deal"``, ``"draw"``, ``"knock"``, ``"reveal"``).
* :func:`legal_moves` lists the plays; :func:`check_play` accepts a play exactly when it is one of
  them, and otherwise raises :class:`IllegalMove` with a stable ``code`` and a sentence a player
  understands. Everything here reads a ``GameState`` or the machine alike, and changes nothing.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Protocol

from .errors import NOT_RUNNING, IllegalMove, InvalidEvent, RulesError
from .rulesets import Options, seat_number
from .status import RUNNING, WAITING
from .tiles import ALL_TILES, BIT, EVERY_TILE, SHOWS, TEXT, TILE_COUNT, Tile

CREATE, SEAT, PLAY, DEAL, DRAW, KNOCK, REVEAL, DONE = (
    "create", "seat", "play", "deal", "draw", "knock", "reveal", "done",
)
#: what a game waits for that is not forced by the rules
CHOICES = frozenset({CREATE, SEAT, PLAY, DONE})
LEFT, RIGHT = "left", "right"

Waits = tuple[str, int | None]
Move = tuple[Tile, str]


class TableView(Protocol):
    """What the rules read of a table (a ``RoundState`` or the machine's ``RoundMachine``)."""

    @property
    def hands(self) -> Any: ...
    @property
    def bazaar(self) -> Any: ...
    @property
    def line(self) -> Any: ...
    @property
    def left(self) -> int | None: ...
    @property
    def right(self) -> int | None: ...
    @property
    def turn(self) -> int | None: ...
    @property
    def must_lead(self) -> Tile | None: ...
    @property
    def ended(self) -> str | None: ...
    @property
    def held(self) -> Any: ...


class GameView(Protocol):
    """What the rules read of a game (a ``GameState`` or the machine's ``GameMachine``)."""

    @property
    def status(self) -> str: ...
    @property
    def options(self) -> Options: ...
    @property
    def table(self) -> TableView | None: ...
    @property
    def revealed_seed(self) -> str | None: ...
    @property
    def seats(self) -> int: ...


def playable(t: TableView, seat: int) -> tuple[int, int]:
    """The sets of ``seat``'s tiles that may go on the left end and on the right end.

    On an empty line every tile (or only the tile the round must open with) goes on the left.
    """
    hand: int = t.held[seat]
    left = t.left
    if left is None:
        lead = t.must_lead
        return (hand if lead is None else hand & BIT[lead]), 0
    right: int = t.right  # type: ignore[assignment]
    return hand & SHOWS[left], hand & SHOWS[right]


def pending(state: GameView | None) -> Waits:
    """What the game waits for next, and from which seat."""
    if state is None:
        return CREATE, None
    status = state.status
    if status == RUNNING:
        t = state.table
        if t is None or t.ended is not None:
            return DEAL, None
        seat: int = t.turn  # type: ignore[assignment]
        left = t.left
        if left is None or t.held[seat] & (SHOWS[left] | SHOWS[t.right]):  # type: ignore[index]
            return PLAY, seat  # as playable(t, seat) != (0, 0): the leader always holds a tile
        if len(t.bazaar) > state.options.bazaar_reserve:
            return DRAW, seat
        return KNOCK, seat
    if status == WAITING:
        return SEAT, None
    return (REVEAL, None) if state.revealed_seed is None else (DONE, None)


def legal_moves(state: GameView, seat: int | None = None) -> list[Move]:
    """Every ``(tile, end)`` the seat to move may play now, in the order of its hand, left before right
    (empty if it is not ``seat``'s choice)."""
    return moves_of(state, pending(state), seat)


def moves_of(state: GameView, waits: Waits, seat: int | None = None) -> list[Move]:
    """:func:`legal_moves` given what the game waits for (``pending(state)``): each tile's entry in
    :data:`PLAYS` (the table of :func:`playable`), in the order of the hand."""
    kind, who = waits
    if kind != PLAY or (seat is not None and seat != who):
        return []
    t: TableView = state.table  # type: ignore[assignment]
    left = t.left
    if left is None:
        lead = t.must_lead
        plays = OPENING_PLAYS[TILE_COUNT if lead is None else lead]
    else:
        plays = PLAYS[7 * left + t.right]  # type: ignore[operator]
    moves: list[Move] = []
    for tile in t.hands[who]:
        moves += plays[tile]
    return moves


def _ends(tile: Tile, on_left: int, on_right: int) -> tuple[str, ...]:
    """The ends ``tile`` may go on given the sets of tiles that fit the left and the right end."""
    bit = BIT[tile]
    return (LEFT,) * bool(on_left & bit) + (RIGHT,) * bool(on_right & bit)


class _EveryTile(NamedTuple):
    """A table whose one seat holds every tile: :func:`playable` of it is every tile that fits."""

    left: int | None
    right: int | None
    must_lead: Tile | None
    held: tuple[int] = (EVERY_TILE,)


def _row(left: int | None, right: int | None, must_lead: Tile | None) -> tuple[tuple[str, ...], ...]:
    """Each tile's ends on a line with these ends, as :func:`playable` says."""
    on_left, on_right = playable(_EveryTile(left, right, must_lead), 0)  # type: ignore[arg-type]
    return tuple(_ends(tile, on_left, on_right) for tile in ALL_TILES)


#: for the ends ``(left, right)`` at ``7 * left + right``: the ends each tile may go on (``playable`` as
#: a table)
ENDS: tuple[tuple[tuple[str, ...], ...], ...] = tuple(
    _row(left, right, None) for left in range(7) for right in range(7)
)
#: on an empty line, for the tile the round must open with (``TILE_COUNT``: any tile): each tile's ends
OPENING_ENDS: tuple[tuple[tuple[str, ...], ...], ...] = tuple(
    _row(None, None, ALL_TILES[lead] if lead < TILE_COUNT else None) for lead in range(TILE_COUNT + 1)
)


def _as_plays(table: tuple[tuple[tuple[str, ...], ...], ...]) -> tuple[tuple[tuple[Move, ...], ...], ...]:
    """A table of each tile's ends as the plays ``(tile, end)``."""
    return tuple(tuple(tuple((tile, end) for end in ends) for tile, ends in zip(ALL_TILES, row, strict=True))
                 for row in table)


#: the same tables as plays, which ``legal_moves`` lists
PLAYS = _as_plays(ENDS)
OPENING_PLAYS = _as_plays(OPENING_ENDS)


def check_play(state: GameView, seat: object, tile: Tile, end: object) -> str:
    """Accept a play of ``tile`` by ``seat`` on ``end`` (``None``: the end it fits) and return the end it
    goes on, exactly when ``(tile, that end)`` is among :func:`legal_moves`; otherwise raise the
    precise error. The first tile of a round goes on ``"left"``."""
    t = state.table
    if (t is not None and seat.__class__ is int and seat == t.turn and state.status == RUNNING and t.ended is None
            and t.held[seat] & BIT[tile]):
        left = t.left
        if left is None:
            lead = t.must_lead
            ends = OPENING_ENDS[TILE_COUNT if lead is None else lead][tile]
        else:
            ends = ENDS[7 * left + t.right][tile]  # type: ignore[operator]
        if end in ends:
            return end
        if end is None and len(ends) == 1:
            return ends[0]
    return _refuse_play(state, seat, tile, end)


def _refuse_play(state: GameView, seat: object, tile: Tile, end: object) -> str:
    """The checks of :func:`check_play` in the order a player reads them, for a play that is not plainly
    legal: raises the first that fails, or returns the end of a first tile named without an end."""
    if state.status != RUNNING:
        raise IllegalMove("game_not_running", NOT_RUNNING)
    expect(state, (PLAY,), seat, "tile_played")
    t: TableView = state.table  # type: ignore[assignment]
    if seat.__class__ is not int:  # equal to the seat to move, but not an int: 1.0, True
        raise InvalidEvent("invalid_seat", f"seat {seat!r} is not a seat of this game.")
    on_left, on_right = playable(t, seat)
    text = TEXT[tile]
    if not t.held[seat] & BIT[tile]:
        raise IllegalMove("tile_not_in_hand", f"You do not hold {text}.", tile=text)
    if end not in (None, LEFT, RIGHT):
        raise IllegalMove.said("invalid_end", '{end!r} is not an end of the line; say "left" or "right".', end=end)
    if t.left is None:
        if not on_left & BIT[tile]:
            lead = TEXT[t.must_lead]  # type: ignore[index]
            raise IllegalMove("must_lead_with", f"This round must be opened with {lead}.", tile=lead)
        return LEFT
    fits_left, fits_right = bool(on_left & BIT[tile]), bool(on_right & BIT[tile])
    if end is None:
        if fits_left and fits_right:
            raise IllegalMove("end_required", f"{text} fits both ends ({t.left} and {t.right}); say which end.",
                              tile=text, left=t.left, right=t.right)
        raise IllegalMove("tile_does_not_fit", f"{text} fits neither end of the line ({t.left} and {t.right}).",
                          tile=text, left=t.left, right=t.right)
    value = t.left if end == LEFT else t.right
    raise IllegalMove("tile_does_not_fit", f"{text} does not fit the {end} end ({value}).", tile=text, end=end,
                      value=value)


_FORCED_WHAT = {DEAL: "the next deal", DRAW: "seat {who} drawing from the bazaar", KNOCK: "seat {who} knocking",
                REVEAL: "the seed reveal"}


def _person(seat: object) -> object:
    """A seat in a sentence, as people count it (``seat_number``); anything else as given."""
    return seat_number(seat) if isinstance(seat, int) and not isinstance(seat, bool) else seat


def expect(state: GameView, kinds: tuple[str, ...], seat: object, etype: str) -> None:
    """Raise the right error when ``etype`` (by ``seat``) is not what the game waits for."""
    kind, who = pending(state)
    if kind in kinds and (seat is None or who is None or who == seat):
        return
    raise _unexpected(kind, who, seat, etype)


def _unexpected(kind: str, who: int | None, seat: object, etype: str) -> RulesError:
    if kind == DONE:
        return InvalidEvent("event_after_end", f"the game is over; a {etype} cannot follow.")
    if kind in _FORCED_WHAT:
        what = _FORCED_WHAT[kind].format(who=_person(who))
        return InvalidEvent("forced_action_missing", f"the rules force {what} before any {etype}.")
    if etype in ("tile_played", "timed_out", "resigned"):
        if kind == PLAY:
            return IllegalMove("not_your_turn", f"It is seat {_person(who)}'s turn, not seat {_person(seat)}'s.",
                               turn=_person(who), seat=_person(seat))
        return IllegalMove("game_not_running", NOT_RUNNING)
    if etype == "tile_drawn":
        return InvalidEvent("unforced_draw",
                            f"seat {_person(seat)} may not draw now: a draw is only made when no tile fits.")
    if etype == "knocked":
        return InvalidEvent("unforced_knock", f"seat {_person(seat)} may not knock now: a knock is only made when "
                            "nothing fits and no draw is allowed.")
    return InvalidEvent("unexpected_event", f"a {etype} event cannot come now (the game waits for {kind}).")
