"""The versioned JSON form of a :class:`GameState` (snapshots, fixtures, debugging).

``state_to_json(state)`` writes one JSON object; ``state_from_json(text)`` reads it back to a state
equal to the one written. The object carries ``"format": FORMAT_VERSION``; a form of any other
version raises :class:`UnknownStateFormat`, and one that cannot be read raises
:class:`StateFormatError` (its base): the caller then rebuilds the state from the game's events.
The layout is documented in docs/rules.md ("The state as JSON"). A sequence of tiles (a hand, the
bazaar) is one string of tile texts separated by spaces (``"2-5 0-0"``), the line the same with each
tile as laid (``"5-2 2-1"``); the bit sets of a table are not written, they follow from its hands and
line.
"""

from __future__ import annotations

import json
from typing import Any

from .errors import StateFormatError, UnknownStateFormat
from .rulesets import Options
from .scoring import PlayerScore
from .state import GameState, Result, RoundRecord, RoundState
from .tiles import LAID_TEXT, PARSE, PARSE_LAID, TEXT, Tile, tile_set

#: the version of the layout written by :func:`state_to_json`; a change of layout is a new version
FORMAT_VERSION = 1

_dumps = json.JSONEncoder(separators=(",", ":"), check_circular=False).encode  # a tree of our own values


def _tiles(tiles: tuple[Tile, ...]) -> str:
    return " ".join(map(TEXT.__getitem__, tiles))


def state_to_dict(state: GameState) -> dict[str, Any]:
    """The JSON form as a dict of JSON values (tuples, and named tuples, standing for arrays)."""
    text = TEXT.__getitem__
    t = state.table
    r = state.result
    return {
        "format": FORMAT_VERSION,
        "ruleset": state.ruleset,
        "options": state.options.to_dict(),
        "seats": state.seats,
        "commitment": state.commitment,
        "server_seed": state.server_seed,
        "players": list(state.players),
        "client_seeds": list(state.client_seeds),
        "status": state.status,
        "round_no": state.round_no,
        "next_attempt": state.next_attempt,
        "table": None if t is None else {
            "number": t.number,
            "hands": [_tiles(hand) for hand in t.hands],
            "bazaar": _tiles(t.bazaar),
            "line": " ".join(map(LAID_TEXT.__getitem__, t.line)),
            "left": t.left,
            "right": t.right,
            "turn": t.turn,
            "must_lead": None if t.must_lead is None else TEXT[t.must_lead],
            "last_player": t.last_player,
            "ended": t.ended,
        },
        "scores": state.scores,  # named tuples: JSON arrays [open, score, remembered]
        "fish_pot": state.fish_pot,
        "leader": state.leader,
        "rounds": [
            [rr.round, rr.end, rr.seat, "|".join([" ".join(map(text, hand)) for hand in rr.hand_tiles]), rr.hands,
             rr.round_points, rr.fish_pot, rr.draw, rr.players]
            for rr in state.rounds
        ],
        "result": r,  # a named tuple: [reason, goats, winners, rating_points, chips]
        "revealed_seed": state.revealed_seed,
        "version": state.version,
    }


def state_to_json(state: GameState) -> str:
    """The JSON form of ``state`` as text (compact, ASCII: other characters escaped)."""
    return _dumps(state_to_dict(state))


def _parse(text: str) -> tuple[Tile, ...]:
    return tuple(map(PARSE.__getitem__, text.split()))


def _players(rows: list[list[Any]]) -> tuple[PlayerScore, ...]:
    return tuple(map(_player, rows))


def _player(row: list[Any]) -> PlayerScore:
    if len(row) != 3:
        raise ValueError(f"a player's account is [open, score, remembered], not {row!r}")
    return PlayerScore._make(row)


def _table(d: dict[str, Any]) -> RoundState:
    hands = tuple([_parse(hand) for hand in d["hands"]])
    laid = d["line"].split()
    line = tuple(map(PARSE_LAID.__getitem__, laid))
    must_lead = d["must_lead"]
    return RoundState(
        d["number"], hands, _parse(d["bazaar"]), line, d["left"], d["right"], d["turn"],
        None if must_lead is None else PARSE[must_lead], d["last_player"], d["ended"],
        tuple([tile_set(hand) for hand in hands]), tile_set(map(PARSE.__getitem__, laid)),
    )


def _round(row: list[Any]) -> RoundRecord:
    number, end, seat, hand_tiles, hands, round_points, fish_pot, draw, players = row
    tile = PARSE.__getitem__
    return RoundRecord(number, end, seat, tuple([tuple(map(tile, hand.split())) for hand in hand_tiles.split("|")]),
                       tuple(hands),
                       tuple(round_points), fish_pot, draw, _players(players))


def state_from_dict(d: Any) -> GameState:
    """The state of a JSON form given as decoded JSON (see :func:`state_from_json`)."""
    if not isinstance(d, dict):
        raise StateFormatError(detail="a state's JSON form is an object.")
    version = d.get("format")
    if version != FORMAT_VERSION or version.__class__ is not int:
        raise UnknownStateFormat(detail=f"state format {version!r} is not {FORMAT_VERSION}; rebuild from events.",
                                 format=version)
    try:
        table, result = d["table"], d["result"]
        return GameState(
            d["ruleset"], Options.from_dict(d["options"]), d["seats"], d["commitment"], d["server_seed"],
            tuple(d["players"]), tuple(d["client_seeds"]), d["status"], d["round_no"], d["next_attempt"],
            None if table is None else _table(table), _players(d["scores"]), d["fish_pot"], d["leader"],
            tuple([_round(row) for row in d["rounds"]]),
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
