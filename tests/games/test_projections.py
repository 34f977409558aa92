"""Projections registered once (goat.games.projections): exactly once per game, tracked in the same
transaction as their rows, caught up when a trigger was lost, and existing databases migrated."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps
from django.utils import timezone

from goat.games import projections, services
from goat.games.models import Game, ProjectionRecord
from ratings.models import LeaderboardRow, RatingEntry

pytestmark = pytest.mark.django_db


@pytest.fixture
def ended_game(django_user_model, monkeypatch):
    """A game resigned without its on-commit trigger (as if the task had been lost)."""
    monkeypatch.setattr(projections, "projections_queue", lambda game_id: None)
    ann, ben = (django_user_model.objects.create_user(username=n, password="x" * 12) for n in ("pann", "pben"))
    game = services.game_create(player=ann, ruleset="goat-classic", seats=2, options={"move_time": 0}).game
    services.game_join(game_id=game.pk, player=ben)
    services.game_resign(game_id=game.pk, player=ann)
    return Game.objects.get(pk=game.pk)


def test_every_projection_is_registered_once_by_name():
    names = [p.name for p in projections.registered()]
    assert names == ["ratings.ledger", "ratings.chips", "ratings.skill", "ratings.leaderboards",
                     "tournaments.standings"]
    with pytest.raises(ValueError):
        projections.register("ratings.ledger", lambda ended: None)


def test_a_projection_applies_once_however_often_it_is_triggered(ended_game):
    assert not ProjectionRecord.objects.filter(game=ended_game).exists()
    first = projections.projections_apply_game(game_id=ended_game.pk)
    assert first == [p.name for p in projections.registered()]
    assert projections.projections_apply_game(game_id=ended_game.pk) == []
    assert projections.projection_apply(name="ratings.ledger", game_id=ended_game.pk) is False
    assert RatingEntry.objects.filter(game=ended_game).count() == 2
    assert {row.games for row in LeaderboardRow.objects.filter(board="ratings:all:*")} == {1}


def test_a_projection_that_fails_leaves_neither_rows_nor_its_tracking_row(ended_game, monkeypatch):
    def broken(ended):
        RatingEntry.objects.create(game=ended.game, player=ended.players[0], seat=0, points=1, reason="resigned",
                                   ruleset="goat-classic", at=timezone.now())
        raise RuntimeError("the projection broke half-way")

    monkeypatch.setitem(projections._registry, "ratings.ledger",
                        projections.Projection(name="ratings.ledger", apply=broken, order=10))
    with pytest.raises(RuntimeError):
        projections.projection_apply(name="ratings.ledger", game_id=ended_game.pk)
    assert not RatingEntry.objects.filter(game=ended_game).exists()
    assert not ProjectionRecord.objects.filter(game=ended_game, projection="ratings.ledger").exists()


def test_a_running_game_is_not_tracked(django_user_model):
    ann, ben = (django_user_model.objects.create_user(username=n, password="x" * 12) for n in ("rann", "rben"))
    game = services.game_create(player=ann, ruleset="goat-classic", seats=2).game
    services.game_join(game_id=game.pk, player=ben)
    assert projections.projections_apply_game(game_id=game.pk) == []
    assert projections.projection_apply(name="ratings.ledger", game_id=game.pk) is False
    assert not ProjectionRecord.objects.filter(game_id=game.pk).exists()


def test_the_catch_up_finds_what_no_trigger_applied(ended_game):
    later = timezone.now() + timezone.timedelta(minutes=5)
    assert projections.projections_catch_up(now=timezone.now()) == 0  # within the grace period
    assert projections.projections_catch_up(now=later) == len(projections.registered())
    assert projections.projections_catch_up(now=later) == 0
    assert RatingEntry.objects.filter(game=ended_game).count() == 2


def test_a_database_from_before_projection_records_keeps_what_it_applied(ended_game):
    """ratings 0004 records the games applied before projection records existed (they have ledger entries), so the
    catch-up never applies them a second time."""
    projections.projections_apply_game(game_id=ended_game.pk)
    ProjectionRecord.objects.all().delete()  # as a database migrated before ratings 0004 has it
    migration = importlib.import_module("ratings.migrations.0004_projection_records_of_applied_games")
    migration.record_applied(apps, None)
    later = timezone.now() + timezone.timedelta(minutes=5)
    assert projections.projections_catch_up(now=later, prefix="ratings.") == 0
    assert RatingEntry.objects.filter(game=ended_game).count() == 2
    assert {row.games for row in LeaderboardRow.objects.filter(board="ratings:all:*")} == {1}
