"""Rebuilding every ratings projection from the game events gives the rows of the incremental path."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone
from factories import committed
from ratings_play import play_game, start_game

from goat.games import services
from goat.games.models import Game
from ratings import tasks
from ratings.models import (
    ChipAccount,
    ChipLedgerEntry,
    GameSkillChange,
    LeaderboardBoard,
    LeaderboardRow,
    RatingEntry,
    SkillRating,
)

pytestmark = pytest.mark.django_db

NO_CLOCK = {"move_time": 0}


def projection_rows() -> dict[str, list]:
    return {
        "ledger": list(RatingEntry.objects.order_by("game", "player").values_list(
            "game", "player", "seat", "points", "reason", "ruleset", "goat", "at")),
        "skill": list(SkillRating.objects.order_by("player", "ruleset").values_list(
            "player", "ruleset", "mu", "sigma", "ordinal", "games", "username")),
        "skill_changes": list(GameSkillChange.objects.order_by("game", "player").values_list(
            "game", "player", "ruleset", "rank", "mu_before", "sigma_before", "mu_after", "sigma_after")),
        "boards": list(LeaderboardRow.objects.order_by("board", "player").values_list(
            "board", "player", "username", "rating", "games", "goats")),
        "board_counts": list(LeaderboardBoard.objects.order_by("board").values_list("board", "players")),
        "accounts": list(ChipAccount.objects.order_by("player").values_list("player", "balance")),
        # a stake's time is when the seat was taken: the hook runs just before the event is stamped
        "chips": list(ChipLedgerEntry.objects.order_by("player", "game", "kind").values_list(
            "player", "game", "kind", "amount")),
        "payout_times": list(ChipLedgerEntry.objects.filter(kind="payout").order_by("player", "game")
                             .values_list("player", "game", "at")),
    }


@pytest.fixture
def history(make_players):
    """A mixed history: every ruleset, a resignation, a timeout, a running game with stakes in escrow."""
    masha, alex, olya, serg = make_players("masha", "alex", "olya", "serg")
    play_game([masha, alex, olya], options=NO_CLOCK, seed=1)
    play_game([alex, olya, serg], ruleset="goat-gamesburg", options=NO_CLOCK, seed=2)
    play_game([masha, serg], ruleset="goat-gamesburg", options=NO_CLOCK, seed=3, resign_after=7, resigner=serg)
    play_game([olya, masha, alex, serg], ruleset="domino-3rounds", options=NO_CLOCK, seed=4)
    timed = start_game([serg, alex, olya], ruleset="goat-gamesburg", options={"move_time": 30})
    Game.objects.filter(pk=timed.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    timed.refresh_from_db()
    with committed():
        assert services.game_time_out(game_id=timed.pk, expected_version=timed.version)
    play_game([alex, masha, olya], options=NO_CLOCK, seed=5)
    start_game([masha, olya], ruleset="goat-gamesburg", options=NO_CLOCK)  # running: stakes escrowed
    with committed():
        services.game_create(player=serg, ruleset="goat-gamesburg", seats=3, options=NO_CLOCK)  # waiting
    assert RatingEntry.objects.values("game").distinct().count() == 6


def test_rebuild_command_gives_the_incremental_rows(history):
    incremental = projection_rows()
    out = StringIO()
    call_command("rebuild_ratings", stdout=out)
    assert "8 games (6 ended)" in out.getvalue()
    rebuilt = projection_rows()
    for name in incremental:
        assert rebuilt[name] == incremental[name], name


def test_rebuild_repairs_damaged_projections(history):
    incremental = projection_rows()
    RatingEntry.objects.filter(pk=RatingEntry.objects.first().pk).delete()
    SkillRating.objects.update(mu=1.0)
    LeaderboardRow.objects.filter(board="ratings:all:*").update(rating=999)
    ChipAccount.objects.update(balance=0)
    ChipLedgerEntry.objects.filter(kind="payout").delete()
    tasks.ratings_rebuild.delay()
    assert projection_rows() == incremental


def test_rebuild_keeps_the_initial_grants(history, settings):
    grants = list(ChipLedgerEntry.objects.filter(kind="initial").order_by("player").values_list("player", "amount"))
    settings.GOAT_INITIAL_CHIPS = 5
    call_command("rebuild_ratings", stdout=StringIO())
    assert list(ChipLedgerEntry.objects.filter(kind="initial").order_by("player").values_list(
        "player", "amount")) == grants
