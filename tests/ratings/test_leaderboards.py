"""Leaderboards: order, periods (calendar month / ISO week in UTC), rulesets, pagination, validation."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from django.db.models import Count, Q, Sum
from ratings_play import play_game
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from ratings import leaderboards
from ratings.models import LeaderboardRow, RatingEntry, SkillRating

pytestmark = pytest.mark.django_db

NO_CLOCK = {"move_time": 0}


@pytest.fixture
def client(make_players):
    viewer = make_players("viewer")[0]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=viewer).key}")
    return client


def rows(board: str, values: list[tuple[str, int, int, int]], django_user_model):
    """Rows loaded directly (as a bulk load would), then counted (R-9)."""
    for username, rating, games, goats in values:
        player = django_user_model.objects.create_user(username=username, password="x")
        LeaderboardRow.objects.create(board=board, player=player, username=username, rating=rating, games=games,
                                      goats=goats)
    leaderboards.leaderboards_recount([board])


def test_period_keys_are_calendar_periods_in_utc():
    assert leaderboards.period_key("month", datetime(2025, 1, 31, 23, 59, tzinfo=UTC)) == "month:2025-01"
    moscow = timezone(timedelta(hours=3))
    assert leaderboards.period_key("month", datetime(2025, 2, 1, 1, 0, tzinfo=moscow)) == "month:2025-01"
    assert leaderboards.period_key("week", datetime(2024, 12, 30, tzinfo=UTC)) == "week:2025-W01"
    assert leaderboards.period_key("week", datetime(2025, 1, 5, 23, 0, tzinfo=UTC)) == "week:2025-W01"
    assert leaderboards.period_key("week", datetime(2025, 1, 6, tzinfo=UTC)) == "week:2025-W02"
    assert leaderboards.board_key("all", None) == "ratings:all:*"


def test_rating_board_order_rating_then_fewer_games_then_username(client, django_user_model):
    rows("ratings:all:*", [("zed", 30, 5, 0), ("bob", 30, 4, 2), ("amy", 30, 5, 1), ("cid", 40, 9, 3),
                           ("dan", 2, 1, 0)], django_user_model)
    body = client.get("/api/leaderboards/ratings/").json()
    assert [(r["rank"], r["player"]) for r in body["results"]] == [
        (1, "cid"), (2, "bob"), (3, "amy"), (4, "zed"), (5, "dan")]
    assert body["results"][1] == {"rank": 2, "player": "bob", "bot": False, "rating": 30, "games": 4, "goats": 2}


def test_pagination_continues_the_ranks(client, django_user_model):
    rows("ratings:all:*", [(f"p{i:02d}", 100 - i, 1, 0) for i in range(5)], django_user_model)
    first = client.get("/api/leaderboards/ratings/?page_size=2").json()
    assert first["count"] == 5 and [r["rank"] for r in first["results"]] == [1, 2]
    third = client.get("/api/leaderboards/ratings/?page_size=2&page=3").json()
    assert [(r["rank"], r["player"]) for r in third["results"]] == [(5, "p04")]
    assert third["next"] is None


def test_unknown_period_or_ruleset_is_a_400_problem(client):
    for query in ("period=year", "ruleset=chess"):
        response = client.get(f"/api/leaderboards/ratings/?{query}")
        assert response.status_code == 400
        assert response["Content-Type"].startswith("application/problem+json")
        assert response.json()["code"] == "invalid"
    assert client.get("/api/leaderboards/skill/?ruleset=chess").status_code == 400


def test_boards_are_public():
    assert APIClient().get("/api/leaderboards/ratings/").status_code == 200
    assert APIClient().get("/api/leaderboards/skill/?ruleset=goat-classic").status_code == 200


def test_played_games_fill_every_board_of_their_period_and_ruleset(client, make_players):
    players = make_players("masha", "alex", "olya")
    classic = [play_game(players, options=NO_CLOCK, seed=s) for s in range(2)]
    rounds = play_game(players, ruleset="domino-3rounds", options=NO_CLOCK, seed=5)
    all_board = {r["player"]: r for r in client.get("/api/leaderboards/ratings/").json()["results"]}
    for player in players:
        ledger = RatingEntry.objects.filter(player=player)
        assert all_board[player.username]["rating"] == sum(e.points for e in ledger)
        assert all_board[player.username]["games"] == 3
        assert all_board[player.username]["goats"] == sum(e.goat for e in ledger)
    for period in ("all", "month", "week"):
        body = client.get(f"/api/leaderboards/ratings/?period={period}&ruleset=domino-3rounds").json()
        assert {r["player"]: r["rating"] for r in body["results"]} == {
            p.username: RatingEntry.objects.get(game=rounds, player=p).points for p in players}
        assert [r["rating"] for r in body["results"]] == sorted((r["rating"] for r in body["results"]), reverse=True)
    assert classic
    skill = client.get("/api/leaderboards/skill/?ruleset=goat-classic").json()
    assert skill["count"] == 3
    assert [r["ordinal"] for r in skill["results"]] == sorted((r["ordinal"] for r in skill["results"]), reverse=True)
    assert set(skill["results"][0]) == {"rank", "player", "bot", "ordinal", "mu", "sigma", "games"}
    assert {r["games"] for r in skill["results"]} == {2}
    assert client.get("/api/leaderboards/skill/").json()["count"] == 3  # goat-classic by default


def test_refresh_gives_the_incremental_rows(make_players):
    players = make_players("masha", "alex", "olya")
    for seed in range(3):
        play_game(players, ruleset=("goat-classic", "goat-gamesburg", "domino-3rounds")[seed], options=NO_CLOCK,
                  seed=seed, resign_after=10 if seed == 1 else None)
    incremental = list(LeaderboardRow.objects.order_by("board", "player").values_list(
        "board", "player", "username", "rating", "games", "goats"))
    assert len(incremental) == 3 * (3 + 3 * 3)  # 3 players x (3 "*" boards + 3 periods x 3 rulesets)
    for full in (False, True):
        leaderboards.leaderboards_refresh(full=full)
        assert list(LeaderboardRow.objects.order_by("board", "player").values_list(
            "board", "player", "username", "rating", "games", "goats")) == incremental


def test_month_and_week_boards_only_count_their_period(make_players):
    players = make_players("masha", "alex")
    old, new = (play_game(players, options=NO_CLOCK, seed=s, resign_after=3) for s in range(2))
    long_ago = datetime(2024, 3, 15, 12, tzinfo=UTC)
    RatingEntry.objects.filter(game=old).update(at=long_ago)
    leaderboards.leaderboards_refresh(full=True)
    now_month = leaderboards.board_key("month", None)
    for player in players:
        new_points = RatingEntry.objects.get(game=new, player=player).points
        old_points = RatingEntry.objects.get(game=old, player=player).points
        assert LeaderboardRow.objects.get(board=now_month, player=player).rating == new_points
        assert LeaderboardRow.objects.get(board=leaderboards.board_key("week", None), player=player).games == 1
        assert LeaderboardRow.objects.get(board="ratings:month:2024-03:*", player=player).rating == old_points
        assert LeaderboardRow.objects.get(board="ratings:week:2024-W11:*", player=player).games == 1
        assert LeaderboardRow.objects.get(board="ratings:all:*", player=player).games == 2
    # the periodic (current periods only) refresh leaves past periods alone
    leaderboards.leaderboards_refresh()
    assert LeaderboardRow.objects.filter(board="ratings:month:2024-03:*").count() == 2
    totals = RatingEntry.objects.values("player").annotate(r=Sum("points"), g=Count("id"),
                                                          gt=Count("id", filter=Q(goat=True)))
    for total in totals:
        row = LeaderboardRow.objects.get(board="ratings:all:*", player=total["player"])
        assert (row.rating, row.games, row.goats) == (total["r"], total["g"], total["gt"])
    assert SkillRating.objects.count() == 2
