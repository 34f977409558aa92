"""The pure rules engine of goat (docs/rules.md). No Django, no I/O: tiles, rulesets, the verifiable deal,
the rules (decide / evolve / apply), scoring, ratings, chips and replay."""

from .errors import IllegalMove, InvalidEvent, InvalidOptions, RulesError, UnknownStateFormat
from .json_form import FORMAT_VERSION, state_from_json, state_to_json
from .replay import ReplayResult, replay, report, verify_log
from .rules import (
    CancelGame,
    CreateGame,
    LeaveSeat,
    PlayTile,
    Resign,
    Session,
    TakeSeat,
    TimeOut,
    advance,
    apply,
    decide,
    evolve,
    evolve_all,
    legal_moves,
    pending,
    with_server_seed,
)
from .rulesets import MAX_SEATS, MIN_SEATS, PRESETS, RULESETS, Options, resolve_options
from .state import GameState
from .tiles import Tile, tile_str, tiles_str

__all__ = [
    "IllegalMove", "InvalidEvent", "InvalidOptions", "RulesError", "ReplayResult", "replay", "report",
    "verify_log", "CancelGame", "CreateGame", "LeaveSeat",
    "PlayTile", "Resign", "Session", "TakeSeat", "TimeOut", "advance", "apply", "decide",
    "evolve", "legal_moves", "pending", "with_server_seed", "PRESETS", "RULESETS", "Options",
    "resolve_options", "GameState", "MIN_SEATS", "MAX_SEATS", "Tile", "tile_str", "tiles_str", "evolve_all",
    "FORMAT_VERSION", "state_to_json", "state_from_json", "UnknownStateFormat",
]
