"""Helpers of the tournament tests (imported as a top-level module, like tests/ratings/ratings_play.py)."""

from __future__ import annotations

from django.db.models import Sum
from factories import FAST  # noqa: F401 - short games without a clock, for the tournament tests

from goat.games.models import Game, GameStatus


def chips_total() -> int:
    """Σ balances + stakes in escrow (games not paid out) + prize pools not yet paid (must equal Σ grants)."""
    from ratings.models import ChipAccount, ChipKind, ChipLedgerEntry
    from tournaments.models import Tournament

    balances = ChipAccount.objects.aggregate(s=Sum("balance"))["s"] or 0
    unpaid = Game.objects.exclude(status__in=[GameStatus.FINISHED, GameStatus.INTERRUPTED])
    # stakes less the refunds of games cancelled (left, expired, their tournament cancelled)
    stakes = ChipLedgerEntry.objects.filter(kind__in=[ChipKind.STAKE, ChipKind.REFUND], game__in=unpaid)
    escrow = -(stakes.aggregate(s=Sum("amount"))["s"] or 0)
    pools = Tournament.objects.filter(prizes_paid_at__isnull=True).aggregate(s=Sum("prize_pool"))["s"] or 0
    return balances + escrow + pools


def chips_granted() -> int:
    from ratings.models import ChipKind, ChipLedgerEntry

    return ChipLedgerEntry.objects.filter(kind=ChipKind.INITIAL).aggregate(s=Sum("amount"))["s"] or 0


def play_out(game_id: int, rng) -> None:
    """Random legal moves by whoever is to move until the game ends."""
    from goat import engine
    from goat.engine.tiles import tile_str
    from goat.games import services
    from goat.games.eventstore import state_load
    from goat.games.models import Seat

    while True:
        game = Game.objects.get(pk=game_id)
        if game.ended:
            return
        state = state_load(game)
        tile, end = rng.choice(engine.legal_moves(state))
        player = Seat.objects.get(game=game, seat=state.turn).player
        services.game_play_tile(game_id=game_id, player=player, tile=tile_str(tile), end=end)
