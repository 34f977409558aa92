"""Tournament services, one module per concern: ``creation`` (create, options, invite codes), ``entry``
(register, withdraw before the start, entry conditions), ``lifecycle`` (start, advance: swiss rounds
and arena tables, finish and prizes, the tick), ``organiser`` (cancel, withdraw a player while it
runs), ``standings`` (the lines, the rank, the projection, the rebuild) and ``live`` (the streams'
channel, the feed's catch-up, the advance job). The rules themselves (pairing, table sizes, prizes,
the standings order) are tournaments.core, pure. Every name callers use is here.

Every write takes the tournament row lock (``SELECT ... FOR UPDATE``, ``base.locked``) and checks
the status first, so the Celery jobs that call these (tournaments.tasks) can run twice or
concurrently: the second caller finds the work done. The unique constraints of tournaments.models
back this up. docs/tournaments.md describes formats, pairing, byes, tiebreaks and prizes.
"""

from __future__ import annotations

from goat.games import projections, signals
from goat.games.models import Game

from ..core import (
    BYE_POINTS,
    PAIRING_LOOKAHEAD,
    PRIZE_SHARES,
    opponents_points,
    prize_amounts,
    standings_key,
    swiss_pairing,
    table_sizes,
)
from .base import TOURNAMENT_NOT_FOUND
from .creation import NO_ANTE, invite_code_digest, tournament_create, tournament_options
from .entry import (
    ALREADY_REGISTERED,
    COMPUTER_PLAYER,
    ENTRY_MAX_RATING,
    ENTRY_MIN_GAMES,
    ENTRY_MIN_RATING,
    INSUFFICIENT_CHIPS,
    INVITE_CODE_REQUIRED,
    INVITE_CODE_WRONG,
    NOT_REGISTERED,
    REGISTRATION_CLOSED,
    TOURNAMENT_FULL,
    entry_check,
    registration_open,
    tournament_register,
    tournament_withdraw,
)
from .lifecycle import (
    NOT_SCHEDULED,
    tournament_advance,
    tournament_start,
    tournament_start_now,
    tournaments_start_due,
    tournaments_tick,
)
from .live import ADVANCE_TASK, tournament_changed, tournament_channel, tournament_tables_owed
from .organiser import (
    ALREADY_WITHDRAWN,
    CANCEL_REASON,
    NOT_RUNNING,
    NOT_RUNNING_SCHEDULED,
    PLAYER_NOT_REGISTERED,
    TOURNAMENT_ENDED,
    tournament_cancel,
    tournament_withdraw_running,
)
from .standings import STANDINGS, standings_project, standings_rebuild, table_outcome

__all__ = [
    "ADVANCE_TASK", "ALREADY_REGISTERED", "ALREADY_WITHDRAWN", "BYE_POINTS", "CANCEL_REASON", "COMPUTER_PLAYER",
    "ENTRY_MAX_RATING", "ENTRY_MIN_GAMES", "ENTRY_MIN_RATING", "INSUFFICIENT_CHIPS", "INVITE_CODE_REQUIRED",
    "INVITE_CODE_WRONG", "NOT_REGISTERED", "NOT_RUNNING", "NOT_RUNNING_SCHEDULED", "NOT_SCHEDULED", "NO_ANTE",
    "PAIRING_LOOKAHEAD", "PLAYER_NOT_REGISTERED", "PRIZE_SHARES", "REGISTRATION_CLOSED", "STANDINGS",
    "TOURNAMENT_ENDED", "TOURNAMENT_FULL", "TOURNAMENT_NOT_FOUND", "entry_check", "invite_code_digest",
    "opponents_points", "prize_amounts", "registration_open", "standings_key", "standings_project",
    "standings_rebuild", "swiss_pairing", "table_outcome", "table_sizes", "tournament_advance", "tournament_cancel",
    "tournament_changed", "tournament_channel", "tournament_create", "tournament_options", "tournament_register",
    "tournament_start", "tournament_start_now", "tournament_tables_owed", "tournament_withdraw",
    "tournament_withdraw_running", "tournaments_register", "tournaments_start_due", "tournaments_tick",
]


def tournaments_register() -> None:
    """Register the standings projection and connect the feed's catch-up of tables (TournamentsConfig.ready)."""
    projections.register(STANDINGS, standings_project, order=50)
    signals.feed_catch_up.connect(tournament_tables_owed, sender=Game, dispatch_uid="tournaments_tables_owed")
