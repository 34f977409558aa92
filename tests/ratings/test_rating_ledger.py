"""The rating ledger (docs/rules.md §9): one entry per seat per ended game, applied exactly once."""

from __future__ import annotations

import random
import threading
from datetime import timedelta

import pytest
from django.db import close_old_connections, connection
from django.utils import timezone
from factories import committed
from ratings_play import play_game, play_moves, start_game
from rest_framework.test import APIClient

from apitest import token_client
from goat.engine.scoring import round_half_up
from goat.games import projections, services
from goat.games.eventstore import state_load
from goat.games.models import Game, ProjectionRecord
from ratings import services as ratings
from ratings.models import LeaderboardRow, RatingEntry

pytestmark = pytest.mark.django_db

NO_CLOCK = {"move_time": 0}


def test_finished_game_writes_one_entry_per_seat_with_the_result_points(make_players):
    players = make_players("masha", "alex", "olya")
    game = play_game(players, options=NO_CLOCK, seed=1)
    assert game.result["reason"] == "limit"
    entries = {e.seat: e for e in RatingEntry.objects.filter(game=game)}
    assert sorted(entries) == [0, 1, 2]
    state = state_load(game)
    for seat, entry in entries.items():
        assert entry.player == players[seat]
        assert entry.points == game.result["rating_points"][seat]
        assert entry.reason == "finished"
        assert entry.ruleset == "goat-classic"
        assert entry.goat == (seat in game.result["goats"])
        assert entry.at == game.ended_at
        points = state.points[seat]
        # §9: a goat earns 0, every other player max(1, round_half_up((100 - points) / 10))
        expected = 0 if seat in game.result["goats"] else max(1, round_half_up(100 - points, 10))
        assert entry.points == expected


def test_resignation_uses_the_timeout_formula_with_the_last_completed_round(make_players):
    players = make_players("masha", "alex", "olya")
    rng = random.Random(7)
    game = start_game(players, options=NO_CLOCK)
    # play into the second round so that there are written points, then resign mid-round
    while state_load(game).round_no < 2:
        game = play_moves(game, players, rng=rng, max_moves=1)
    game = play_moves(game, players, rng=rng, max_moves=2)
    points = state_load(game).points
    quitter_seat = state_load(game).turn
    with committed():
        services.game_resign(game_id=game.pk, player=players[quitter_seat])
    game.refresh_from_db()
    entries = {e.seat: e for e in RatingEntry.objects.filter(game=game)}
    for seat, entry in entries.items():
        assert entry.reason == "resigned"
        if seat == quitter_seat:
            assert entry.points == 0 and entry.goat
        else:
            assert entry.points == max(1, round_half_up(points[quitter_seat] - points[seat], 10))


def test_timeout_is_recorded_as_timeout_and_the_offender_earns_nothing(make_players):
    players = make_players("masha", "alex")
    game = start_game(players, options={"move_time": 30})
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    game.refresh_from_db()
    offender = game.turn
    with committed():
        assert services.game_time_out(game_id=game.pk, expected_version=game.version)
    entries = {e.seat: e for e in RatingEntry.objects.filter(game=game)}
    assert {e.reason for e in entries.values()} == {"timeout"}
    assert entries[offender].points == 0
    # nobody has points yet: (0 - 0) / 10 rounds to 0, at least 1
    assert entries[1 - offender].points == 1


def test_rating_is_the_sum_of_the_ledger_and_never_decreases(make_players):
    players = make_players("masha", "alex", "olya")
    seen = []
    for seed in range(3):
        play_game(players, options=NO_CLOCK, seed=seed, resign_after=20 if seed == 1 else None)
        stats = [ratings_stats(p) for p in players]
        seen.append([s["rating"] for s in stats])
        for player, stat in zip(players, stats, strict=True):
            assert stat["rating"] == sum(RatingEntry.objects.filter(player=player).values_list("points", flat=True))
            assert stat["games_played"] == RatingEntry.objects.filter(player=player).count()
            assert stat["goats"] == RatingEntry.objects.filter(player=player, goat=True).count()
    for before, after in zip(seen, seen[1:], strict=False):
        assert all(a >= b for a, b in zip(after, before, strict=True))


def ratings_stats(player):
    from ratings.selectors import player_rating_stats

    return player_rating_stats(player=player)


def test_applying_a_game_again_changes_nothing(make_players):
    players = make_players("masha", "alex", "olya")
    game = play_game(players, ruleset="goat-gamesburg", options=NO_CLOCK, seed=2)
    rows = list(LeaderboardRow.objects.order_by("board", "player").values())
    assert ratings.ratings_apply_game(game_id=game.pk) is False
    assert RatingEntry.objects.filter(game=game).count() == 3
    assert list(LeaderboardRow.objects.order_by("board", "player").values()) == rows


def test_apply_ignores_running_and_unknown_games(make_players):
    players = make_players("masha", "alex")
    game = start_game(players, options=NO_CLOCK)
    assert ratings.ratings_apply_game(game_id=game.pk) is False
    assert ratings.ratings_apply_game(game_id=10**9) is False
    assert not RatingEntry.objects.exists()


@pytest.mark.django_db(transaction=True)  # four threads, each on its own connection
def test_concurrent_applications_apply_the_game_once(make_players, monkeypatch):
    players = make_players("masha", "alex", "olya")
    # end the game without the post-game hook, then race four appliers
    monkeypatch.setattr(projections, "projections_queue", lambda game_id: None)
    game = play_game(players, options=NO_CLOCK, seed=3)
    assert not RatingEntry.objects.exists()
    barrier = threading.Barrier(4)
    outcomes, errors = [], []

    def apply():
        try:
            barrier.wait()
            outcomes.append(ratings.ratings_apply_game(game_id=game.pk))
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)
        finally:
            close_old_connections()
            connection.close()

    threads = [threading.Thread(target=apply) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    # each of the four ratings projections is tracked per game: the appliers may share them out,
    # but each runs once (one tracking row each, the ledger and the boards counted once)
    assert True in outcomes and len(outcomes) == 4
    assert sorted(ProjectionRecord.objects.filter(game=game).values_list("projection", flat=True)) == \
        sorted(ratings.PROJECTIONS)
    assert RatingEntry.objects.filter(game=game).count() == 3
    assert LeaderboardRow.objects.get(board="ratings:all:*", player=players[0]).games == 1


def test_sweep_applies_games_whose_task_was_lost(make_players, monkeypatch):
    players = make_players("masha", "alex")
    monkeypatch.setattr(projections, "projections_queue", lambda game_id: None)
    game = play_game(players, options=NO_CLOCK, seed=4, resign_after=3)
    assert ratings.ratings_apply_pending() == 0  # within the grace period
    assert ratings.ratings_apply_pending(now=timezone.now() + timedelta(minutes=2)) == 1
    assert RatingEntry.objects.filter(game=game).count() == 2


def test_ledger_api_is_paginated_newest_first(make_players):
    players = make_players("masha", "alex")
    games = [play_game(players, options=NO_CLOCK, seed=s, resign_after=2) for s in range(3)]
    client = token_client(players[1])
    body = client.get("/api/players/masha/ratings/?page_size=2").json()
    assert body["count"] == 3 and body["next"] and body["previous"] is None
    assert [row["game"] for row in body["results"]] == [games[2].pk, games[1].pk]
    assert set(body["results"][0]) == {"game", "points", "reason", "at"}
    assert body["results"][0]["reason"] == "resigned"
    page2 = client.get(body["next"]).json()
    assert [row["game"] for row in page2["results"]] == [games[0].pk]


def test_ledger_api_unknown_player_is_404_and_the_ledger_is_public(make_players):
    players = make_players("masha")
    assert token_client(players[0]).get("/api/players/nobody/ratings/").status_code == 404
    assert APIClient().get("/api/players/nobody/ratings/").status_code == 404
    assert APIClient().get("/api/players/masha/ratings/").status_code == 200


def test_profile_shows_rating_games_goats_skill_and_own_chips(make_players):
    players = make_players("masha", "alex", "olya")
    game = play_game(players, ruleset="goat-gamesburg", options=NO_CLOCK, seed=5)
    me = token_client(players[0]).get("/api/players/me/").json()
    entry = RatingEntry.objects.get(game=game, player=players[0])
    assert me["rating"] == entry.points
    assert me["games_played"] == 1
    assert me["goats"] == int(entry.goat)
    assert set(me["skill"]) == {"goat-gamesburg"}
    assert set(me["skill"]["goat-gamesburg"]) == {"mu", "sigma", "ordinal"}
    assert me["chips"] == 1000 + game.result["chips"][0]
    public = token_client(players[0]).get("/api/players/alex/").json()
    assert "chips" not in public and public["games_played"] == 1
