"""The versioned JSON form of a :class:`GameState` (snapshots, fixtures, debugging).

``state_to_json(state)`` writes one JSON object; ``state_from_json(text)`` reads it back to a state
equal to the one written. The object carries ``"format": FORMAT_VERSION``; a form of any other
version raises :class:`UnknownStateFormat`, and one that cannot be read raises
:class:`StateFormatError` (its base): the caller then rebuilds the state from the game's events.
The layout is documented in docs/rules.md ("The state as JSON"). A sequence of tiles (a hand, the
bazaar) is one string of tile texts separated by spaces (``"2-5 0-0"``), the line the same with each
tile as laid (``"5-2 2-1"``); the bit sets of a table are not written, they follow from its hands and
line. Everything below the top level is a flat array of fixed positions (the options in the order of
``Options``, the table, each account ``[open, score, remembered]`` one seat after the other, each
completed round), so that a form is few JSON values to write and read. Tiles are looked up by
subscript in comprehensions (``PARSE[text]``), which costs less per tile than ``map`` over a bound
``__getitem__``.
"""

from __future__ import annotations

import json
from itertools import chain, repeat
from typing import Any

from .errors import StateFormatError, UnknownStateFormat
from .rulesets import OPTION_KEYS, Options
from .scoring import PlayerScore
from .state import GameState, Result, RoundRecord, RoundState
from .tiles import BIT, LAID_TEXT, PARSE, PARSE_LAID, TEXT, Tile

#: the version of the layout written by :func:`state_to_json`; a change of layout is a new version
FORMAT_VERSION = 2

_dumps = json.JSONEncoder(separators=(",", ":"), check_circular=False).encode  # a tree of our own values
_flat = chain.from_iterable
_new_tuple = tuple.__new__
#: the table's values before its hands: number, left, right, turn, must_lead, last_player, ended, bazaar, line
_TABLE_HEAD = 9
#: a round's values before the per-seat ones: round, end, seat, fish_pot, draw, hand_tiles
_ROUND_HEAD = 6


def _texts(tile_lists: Any) -> list[str]:
    """Each sequence of tiles as one string of tile texts (``"2-5 0-0"``)."""
    return [" ".join([TEXT[tile] for tile in tiles]) for tiles in tile_lists]


def _tile_lists(texts: Any) -> list[tuple[Tile, ...]]:
    """Each string of tile texts as a tuple of tiles (the inverse of :func:`_texts`)."""
    return [tuple([PARSE[text] for text in tiles.split()]) for tiles in texts]


def state_to_dict(state: GameState) -> dict[str, Any]:
    """The JSON form as a dict of JSON values (tuples, and named tuples, standing for arrays)."""
    t = state.table
    return {
        "format": FORMAT_VERSION,
        "ruleset": state.ruleset,
        "options": state.options,  # a named tuple: its values in the order of Options' fields
        "seats": state.seats,
        "commitment": state.commitment,
        "server_seed": state.server_seed,
        "players": state.players,
        "client_seeds": state.client_seeds,
        "status": state.status,
        "round_no": state.round_no,
        "next_attempt": state.next_attempt,
        "table": None if t is None else [
            t.number, t.left, t.right, t.turn, None if t.must_lead is None else TEXT[t.must_lead], t.last_player,
            t.ended, " ".join([TEXT[tile] for tile in t.bazaar]), " ".join([LAID_TEXT[laid] for laid in t.line]),
            *_texts(t.hands),
        ],
        "scores": list(_flat(state.scores)),
        "fish_pot": state.fish_pot,
        "leader": state.leader,
        "rounds": [
            [rr.round, rr.end, rr.seat, rr.fish_pot, rr.draw, "|".join(_texts(rr.hand_tiles)), *rr.hands,
             *rr.round_points, *_flat(rr.players), rr.winners]
            for rr in state.rounds
        ],
        "result": state.result,  # a named tuple: [reason, goats, winners, rating_points, chips]
        "revealed_seed": state.revealed_seed,
        "version": state.version,
    }


def state_to_json(state: GameState) -> str:
    """The JSON form of ``state`` as text (compact, ASCII: other characters escaped)."""
    return _dumps(state_to_dict(state))


def _sized(row: Any, size: int, what: str) -> list[Any]:
    if row.__class__ is not list or len(row) != size:
        raise ValueError(f"{what} is an array of {size} values, not {row!r}")
    return row


def _players(flat: list[Any], seats: int) -> tuple[PlayerScore, ...]:
    """The accounts written one after the other, three values a seat."""
    if len(flat) != 3 * seats:
        raise ValueError(f"the accounts of {seats} seats are {3 * seats} values, not {flat!r}")
    values = iter(flat)
    return tuple(map(_new_tuple, repeat(PlayerScore, seats), zip(values, values, values, strict=True)))


def _table(row: list[Any], seats: int) -> RoundState:
    number, left, right, turn, must_lead, last_player, ended, bazaar, line = _sized(
        row, _TABLE_HEAD + seats, "the table")[:_TABLE_HEAD]
    hands = tuple(_tile_lists(row[_TABLE_HEAD:]))
    held = []
    for hand in hands:
        tiles = 0
        for tile in hand:
            tiles |= BIT[tile]
        held.append(tiles)
    laid = line.split()
    return RoundState(
        number, hands, tuple([PARSE[text] for text in bazaar.split()]), tuple([PARSE_LAID[text] for text in laid]),
        left, right, turn, None if must_lead is None else PARSE[must_lead], last_player, ended, tuple(held),
        sum([BIT[PARSE[text]] for text in laid]),
    )


def _round(row: list[Any], seats: int) -> RoundRecord:
    if len(row) != _ROUND_HEAD + 5 * seats + 1:
        raise ValueError(f"a round of {seats} seats is {_ROUND_HEAD + 5 * seats + 1} values, not {row!r}")
    values, points, winners = _ROUND_HEAD + seats, _ROUND_HEAD + 2 * seats, row[-1]
    return _new_tuple(RoundRecord, (
        row[0], row[1], row[2], tuple(_tile_lists(row[5].split("|"))), tuple(row[_ROUND_HEAD:values]),
        tuple(row[values:points]), row[3], row[4], _players(row[points:-1], seats),
        None if winners is None else tuple(winners),
    ))


def state_from_dict(d: Any) -> GameState:
    """The state of a JSON form given as decoded JSON (see :func:`state_from_json`)."""
    if not isinstance(d, dict):
        raise StateFormatError(detail="a state's JSON form is an object.")
    version = d.get("format")
    if version != FORMAT_VERSION or version.__class__ is not int:
        raise UnknownStateFormat(detail=f"state format {version!r} is not {FORMAT_VERSION}; rebuild from events.",
                                 format=version)
    try:
        table, result, seats = d["table"], d["result"], d["seats"]
        return GameState(
            d["ruleset"], _new_tuple(Options, _sized(d["options"], len(OPTION_KEYS), "the options")), seats,
            d["commitment"], d["server_seed"], tuple(d["players"]), tuple(d["client_seeds"]), d["status"],
            d["round_no"], d["next_attempt"], None if table is None else _table(table, seats),
            _players(d["scores"], seats), d["fish_pot"], d["leader"],
            tuple([_round(row, seats) for row in d["rounds"]]),
            None if result is None else Result(result[0], *[tuple(x) for x in result[1:]]),
            d["revealed_seed"], d["version"],
        )
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise StateFormatError(detail=f"the state's JSON form cannot be read: {exc!r}") from exc


def state_from_json(text: str | bytes) -> GameState:
    """The state written by :func:`state_to_json`; raises :class:`UnknownStateFormat` for a form of
    another version and :class:`StateFormatError` for anything unreadable."""
    try:
        d = json.loads(text)
    except (ValueError, TypeError) as exc:
        raise StateFormatError(detail=f"a state's JSON form is JSON: {exc}") from exc
    return state_from_dict(d)
