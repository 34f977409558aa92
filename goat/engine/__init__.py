"""The pure rules engine of goat (RULES.md). No Django, no I/O: tiles, rulesets, the verifiable deal,
the rules (decide / evolve / apply), scoring, ratings, chips and replay."""

from .errors import IllegalMove, InvalidEvent, InvalidOptions, RulesError
from .replay import ReplayResult, replay, report, verify_log
from .rules import (
    CreateGame, PlayTile, Resign, Session, TakeSeat, TimeOut, advance, apply, decide, evolve, legal_moves, pending,
    with_server_seed,
)
from .rulesets import PRESETS, RULESETS, Options, resolve_options
from .state import GameState

__all__ = [
    "IllegalMove", "InvalidEvent", "InvalidOptions", "RulesError", "ReplayResult", "replay", "report",
    "verify_log", "CreateGame", "PlayTile", "Resign", "Session", "TakeSeat", "TimeOut", "advance", "apply", "decide",
    "evolve", "legal_moves", "pending", "with_server_seed", "PRESETS", "RULESETS", "Options",
    "resolve_options", "GameState",
]
