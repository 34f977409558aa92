"""The rules in one import: commands, what the game waits for, deciding commands and folding events.

Each rule lives in one module (:mod:`~goat.engine.moves`, :mod:`~goat.engine.rounds`,
:mod:`~goat.engine.events`, :mod:`~goat.engine.decide`, :mod:`~goat.engine.fold`); this module only
names them together for callers that want the whole engine's vocabulary.
"""

from __future__ import annotations

from .commands import CancelGame, Command, CreateGame, LeaveSeat, PlayTile, Resign, TakeSeat, TimeOut
from .decide import Session, advance, decide, with_server_seed
from .events import MAX_CLIENT_SEED, MAX_PLAYER_NAME, Event, is_seed_hex
from .fold import Fold, apply, evolve, evolve_all
from .moves import (
    CHOICES,
    CREATE,
    DEAL,
    DONE,
    DRAW,
    KNOCK,
    PLAY,
    REVEAL,
    SEAT,
    check_play,
    legal_moves,
    pending,
    playable,
)
from .rounds import (
    DOUBLES_FROM_ONE_BY_SUM_ORDER,
    DOUBLES_FROM_ONE_ORDER,
    OPENER_ORDERS,
    SMALLEST_DOUBLE_ORDER,
    next_deal,
    opening_tile,
)

__all__ = [
    "Command", "CreateGame", "LeaveSeat", "CancelGame", "PlayTile", "Resign", "TakeSeat", "TimeOut", "Session",
    "advance", "decide",
    "with_server_seed", "MAX_CLIENT_SEED", "MAX_PLAYER_NAME", "Event", "is_seed_hex",
    "Fold", "apply", "evolve", "evolve_all", "CHOICES", "CREATE", "DEAL", "DONE", "DRAW", "KNOCK", "PLAY", "REVEAL",
    "SEAT", "check_play", "legal_moves", "pending", "playable", "DOUBLES_FROM_ONE_ORDER", "OPENER_ORDERS",
    "DOUBLES_FROM_ONE_BY_SUM_ORDER", "SMALLEST_DOUBLE_ORDER", "next_deal", "opening_tile",
]
