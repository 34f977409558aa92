"""Ratings services: what happens to ratings, chips, skill and leaderboards when games end.

Four projections of an ended game (``goat.games.projections``, registered in RatingsConfig.ready):
``ledger_project`` (the rating ledger, here), ``ratings.chips.chips_project`` (the payout),
``ratings.skill.skill_project`` (openskill) and ``ratings.leaderboards.leaderboards_project`` (the
rating boards; places are computed at read). Each runs exactly once per game (its tracking row is written in the
same transaction as its rows), live after the game ended and in ``ratings_rebuild`` alike, which
recomputes every one of them from the game events alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime, timedelta

from django.db import transaction

from goat.games import projections, signals
from goat.games.models import Game
from goat.games.projections import EndedGame

from .chips import (
    chips_balances_rebuild,
    chips_project,
    chips_refund_for_seat,
    chips_stake_for_seat,
    chips_stakes_rebuild,
)
from .errors import RatingError
from .leaderboards import leaderboards_project, leaderboards_recount
from .models import (
    REASONS,
    ChipAccount,
    ChipKind,
    ChipLedgerEntry,
    GameSkillChange,
    LeaderboardBoard,
    LeaderboardRow,
    RatingEntry,
    SkillRating,
)
from .skill import skill_project

# --- the projections of one ended game (goat.games.projections) -----------------------------------
#
# Each is one function from the finished game to rows; projections.projection_apply runs it with its
# tracking row in one transaction (exactly once per game). Registered in RatingsConfig.ready.

LEDGER, CHIPS, SKILL, LEADERBOARDS = "ratings.ledger", "ratings.chips", "ratings.skill", "ratings.leaderboards"
PROJECTIONS = (LEDGER, CHIPS, SKILL, LEADERBOARDS)


def ledger_project(ended: EndedGame) -> None:
    """Projection ``ratings.ledger``: each player's rating points of the game (docs/rules.md §9)."""
    if not ended.game.rated:  # a game with a computer player counts for nothing here
        return
    state, result = ended.state, ended.state.result
    reason, goats = REASONS[result.reason], set(result.goats)
    RatingEntry.objects.bulk_create([
        RatingEntry(game_id=ended.game.pk, player=ended.players[seat], seat=seat, points=result.rating_points[seat],
                    reason=reason, ruleset=state.ruleset, goat=seat in goats, at=ended.ended_at)
        for seat in range(state.seats)
    ])  # unique (game, player): a second application would fail here too


def ratings_register() -> None:
    """Register the ratings projections and connect the ante's receivers (RatingsConfig.ready)."""
    signals.seat_taking.connect(chips_stake_for_seat, sender=Game, dispatch_uid="ratings_chips_stake")
    signals.SEAT_REFUSALS.add(RatingError.INSUFFICIENT_CHIPS)
    signals.RETURN_REFUSALS.add(RatingError.LEFT_GAME)
    signals.seat_freed.connect(chips_refund_for_seat, sender=Game, dispatch_uid="ratings_chips_refund")
    projections.register(LEDGER, ledger_project, order=10)
    projections.register(CHIPS, chips_project, order=20)
    projections.register(SKILL, skill_project, order=30)
    projections.register(LEADERBOARDS, leaderboards_project, order=40)


def ratings_apply_game(*, game_id: int) -> bool:
    """Apply an ended game to the ledger, chips, skill and leaderboards, each exactly once. Returns
    whether this call applied any of them (False: already applied, or the game has not ended)."""
    return bool(projections.projections_apply_game(game_id=game_id, prefix="ratings."))


def ratings_apply_pending(*, now: datetime | None = None, window: timedelta = timedelta(days=7),
                          grace: timedelta = timedelta(minutes=1)) -> int:
    """Safety net: apply the ratings projections to the games that ended in the last ``window`` (more
    than ``grace`` ago) and that they have not tracked. Returns how many games were applied."""
    pending = set()
    for proj in projections.registered("ratings."):
        pending.update(projections.projections_pending(name=proj.name, now=now, window=window, grace=grace))
    return sum(ratings_apply_game(game_id=game_id) for game_id in sorted(pending))


def ratings_rebuild(*, progress: Callable[[Iterable], Iterable] | None = None) -> dict[str, int]:
    """Recompute the ledger, skill ratings, chip stakes/payouts/balances and leaderboards from the
    game events alone (initial chip grants are kept), in ONE transaction: every ratings projection's
    rows and tracking rows are deleted, then the same projection functions as the live path run on
    every ended game in end order (``ended_at``, id). ``progress`` wraps the game iterator (a tqdm bar)."""
    ended = list(Game.objects.filter(ended_at__isnull=False).order_by("ended_at", "id").values_list("pk", flat=True))
    applied = 0
    with transaction.atomic():
        # every board's lock: no post-game task changes a board while it is rebuilt
        list(LeaderboardBoard.objects.select_for_update().order_by("board").values_list("board", flat=True))
        GameSkillChange.objects.all().delete()
        SkillRating.objects.all().delete()
        RatingEntry.objects.all().delete()
        LeaderboardRow.objects.all().delete()
        LeaderboardBoard.objects.update(players=0)
        ChipLedgerEntry.objects.filter(kind__in=[ChipKind.STAKE, ChipKind.PAYOUT, ChipKind.REFUND]).delete()  # games'

        projections.projection_records_forget(names=list(PROJECTIONS))
        ChipAccount.objects.update(balance=0)  # set to the ledger's sums below
        chips_stakes_rebuild()
        for game_id in (progress(ended) if progress else ended):
            applied += bool(projections.projections_apply_game(game_id=game_id, prefix="ratings.",
                                                               from_events=True))
        leaderboards_recount()
        chips_balances_rebuild()
    return {"games": Game.objects.count(), "applied": applied}
