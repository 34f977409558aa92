"""Leaderboard places computed at read (decisions.md R-9): after every write the pages (read forwards or
backwards) and a player's place (the rows ahead) equal a full sort, a game end writes the same number
of rows whatever the board's size, and pages keep the API contract (no COUNT(*))."""

from __future__ import annotations

import random
import threading

import pytest
from django.db import close_old_connections, connection, transaction
from django.test.utils import CaptureQueriesContext
from ratings_play import play_game
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from ratings import leaderboards, selectors
from ratings.models import LeaderboardBoard, LeaderboardRow

pytestmark = pytest.mark.django_db(transaction=True)

NO_CLOCK = {"move_time": 0}
BOARDS = ["ratings:all:*", "ratings:all:goat-classic"]


@pytest.fixture
def client(make_players):
    viewer = make_players("viewer")[0]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=viewer).key}")
    return client


def board_state(board: str) -> list[tuple]:
    """The board as its pages show it: (rank, username, rating, games, goats), read page by page."""
    ranked = selectors.RankedBoard(board)
    pages = [selectors.ranked(ranked[start:start + 7], start) for start in range(0, ranked.count(), 7)]
    return [(rank, r.username, r.rating, r.games, r.goats) for page in pages for rank, r in page]


def assert_exact(board: str) -> None:
    """The pages (forwards in the board's first half, backwards in its second) give the board in full-sort
    order, each player's place (the rows ahead) is their position, and the count is exact."""
    rows = board_state(board)
    assert [r[0] for r in rows] == list(range(1, len(rows) + 1))
    # lowercase ASCII names: the database collation and Python agree on their order
    stored = LeaderboardRow.objects.filter(board=board).values_list("username", "rating", "games", "goats")
    expected = sorted(stored, key=lambda r: (-r[1], r[2], r[0]))
    assert [r[1:] for r in rows] == expected
    places = dict(selectors.with_places(LeaderboardRow.objects.filter(board=board)).values_list("username", "rank"))
    assert places == {r[1]: r[0] for r in rows}
    assert LeaderboardBoard.objects.get(board=board).players == len(rows)
    assert leaderboards.leaderboards_recount([board]) == 0  # nothing to correct


@pytest.mark.parametrize("seed", range(4))
def test_incremental_ranks_equal_a_full_recompute_after_every_game(seed, django_user_model):
    """Random games (1-4 players, 0-4 points: many ties on rating and games) on two boards; the places
    read are checked against a full sort after every game."""
    rng = random.Random(seed)
    names = sorted({"".join(rng.choice("abcab") for _ in range(rng.randint(1, 4))) for _ in range(40)})[:24]
    users = [django_user_model.objects.create_user(username=name, password="x") for name in names]
    for _ in range(120):
        players = rng.sample(users, rng.randint(1, 4))
        entries = [(p.pk, p.username, rng.choice([0, 0, 1, 2, 3, 4]), rng.random() < 0.3) for p in players]
        boards = BOARDS if rng.random() < 0.8 else BOARDS[:1]
        with transaction.atomic():
            leaderboards._bump_boards(boards, entries)
        for board in BOARDS:
            if LeaderboardBoard.objects.filter(board=board).exists():
                assert_exact(board)


def test_a_big_jump_and_a_zero_point_game_move_exactly_the_rows_between(django_user_model):
    users = {name: django_user_model.objects.create_user(username=name, password="x") for name in "abcdefgh"}
    with transaction.atomic():
        for i, name in enumerate("abcdefgh"):
            leaderboards._bump_boards(BOARDS[:1], [(users[name].pk, name, 10 * (8 - i), False)])
    assert [r[1] for r in board_state(BOARDS[0])] == list("abcdefgh")
    with transaction.atomic():  # h jumps from last to second
        leaderboards._bump_boards(BOARDS[:1], [(users["h"].pk, "h", 65, True)])
    assert [r[1] for r in board_state(BOARDS[0])] == list("ahbcdefg")
    assert_exact(BOARDS[0])
    with transaction.atomic():  # c (60 in 1 game) and b (70) tie at 70 in 2 games: the username decides
        leaderboards._bump_boards(BOARDS[:1], [(users["c"].pk, "c", 10, False), (users["b"].pk, "b", 0, False)])
    assert [r[1:3] for r in board_state(BOARDS[0])][:4] == [("a", 80), ("h", 75), ("b", 70), ("c", 70)]
    assert_exact(BOARDS[0])


def test_played_games_rank_every_board_and_the_refresh_changes_nothing(make_players):
    players = make_players("masha", "alex", "olya", "serg")
    for seed in range(4):
        seated = players[seed % 2:][:3] if seed < 3 else players[:2]
        play_game(seated, ruleset=("goat-classic", "goat-gamesburg")[seed % 2], options=NO_CLOCK, seed=seed,
                  resign_after=6 if seed == 2 else None)
    boards = set(LeaderboardRow.objects.values_list("board", flat=True))
    assert len(boards) == 3 * 3
    for board in boards:
        assert_exact(board)
    before = {b: board_state(b) for b in boards}
    for full in (False, True):
        leaderboards.leaderboards_refresh(full=full)
        assert {b: board_state(b) for b in boards} == before


def test_refresh_repairs_figures_ranks_and_counts(make_players):
    players = make_players("masha", "alex", "olya")
    play_game(players, options=NO_CLOCK, seed=1)
    play_game(players, options=NO_CLOCK, seed=2)
    expected = board_state("ratings:all:*")
    LeaderboardRow.objects.filter(board="ratings:all:*", player=players[0]).update(rating=999)
    LeaderboardRow.objects.filter(board="ratings:all:*", player=players[1]).delete()
    LeaderboardBoard.objects.filter(board="ratings:all:*").update(players=42)
    leaderboards.leaderboards_refresh()
    assert board_state("ratings:all:*") == expected
    assert LeaderboardBoard.objects.get(board="ratings:all:*").players == 3


def test_a_page_is_an_index_range_without_count(client, django_user_model):
    """Page 1 and the last page step over no row (the last is read backwards); the count is the board row's."""
    users = [django_user_model.objects.create_user(username=f"p{i:03d}", password="x") for i in range(25)]
    with transaction.atomic():
        for i, user in enumerate(users):
            leaderboards._bump_boards(BOARDS[:1], [(user.pk, user.username, 100 - i, i % 2 == 0)])
    for page in (1, 3):
        with CaptureQueriesContext(connection) as queries:
            body = client.get(f"/api/leaderboards/ratings/?page_size=10&page={page}").json()
        board_sql = [q["sql"] for q in queries.captured_queries if "leaderboard" in q["sql"].lower()]
        assert board_sql and not any("COUNT(" in sql.upper() or "OFFSET" in sql.upper() for sql in board_sql), \
            board_sql
    assert body["count"] == 25
    assert [(r["rank"], r["player"]) for r in body["results"]] == [(21 + i, f"p{20 + i:03d}") for i in range(5)]
    assert body["next"] is None and "page=2" in body["previous"]
    assert set(body["results"][0]) == {"rank", "player", "bot", "rating", "games", "goats"}
    assert body["results"][0] == {"rank": 21, "player": "p020", "bot": False, "rating": 80, "games": 1,
                                   "goats": 1}


def test_pagination_contract_is_unchanged(client, django_user_model):
    empty = client.get("/api/leaderboards/ratings/").json()
    assert empty == {"count": 0, "next": None, "previous": None, "results": []}
    response = client.get("/api/leaderboards/ratings/?page=2")
    assert response.status_code == 404 and response.json()["code"] == "not_found"
    users = [django_user_model.objects.create_user(username=f"q{i:03d}", password="x") for i in range(230)]
    with transaction.atomic():
        leaderboards._bump_boards(BOARDS[:1], [(u.pk, u.username, i % 17, False) for i, u in enumerate(users)])
    first = client.get("/api/leaderboards/ratings/").json()
    assert first["count"] == 230 and len(first["results"]) == 50 and first["previous"] is None
    assert "page=2" in first["next"]
    capped = client.get("/api/leaderboards/ratings/?page_size=1000").json()
    assert [r["rank"] for r in capped["results"]] == list(range(1, 201))
    last = client.get("/api/leaderboards/ratings/?page=last&page_size=100").json()
    assert [r["rank"] for r in last["results"]] == list(range(201, 231))
    for page in ("6", "0", "x"):
        response = client.get(f"/api/leaderboards/ratings/?page={page}")
        assert response.status_code == 404, page
        assert response["Content-Type"].startswith("application/problem+json")
    everything = [r for p in range(1, 6) for r in client.get(f"/api/leaderboards/ratings/?page={p}").json()["results"]]
    assert [r["rank"] for r in everything] == list(range(1, 231))
    assert [(r["rating"], r["games"], r["player"]) for r in everything] == sorted(
        ((r["rating"], r["games"], r["player"]) for r in everything), key=lambda t: (-t[0], t[1], t[2]))


def _rows_written() -> int:
    """Rows inserted, updated or deleted so far by this connection (SQLite) or this transaction (PostgreSQL)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0) FROM pg_stat_xact_user_tables")
            return int(cursor.fetchone()[0])
    return connection.connection.total_changes


def _game_end_writes(django_user_model, size: int, prefix: str) -> tuple[int, list[str]]:
    """A board of ``size`` players tied at 5 points, three of whom (at 1 point) end a game: one gains 9
    points and passes the whole board, one enters the boards with this game, one gains none. Returns the
    rows written by the game end and its write statements on the leaderboard tables."""
    fillers = django_user_model.objects.bulk_create(
        [django_user_model(username=f"{prefix}f{i:04d}") for i in range(size)])
    low = [django_user_model.objects.create_user(username=f"{prefix}{name}", password="x") for name in ("a", "b")]
    new = django_user_model.objects.create_user(username=f"{prefix}c", password="x")
    at = leaderboards.timezone.now()
    boards = leaderboards.boards_of("goat-classic", at)
    with transaction.atomic():
        leaderboards._bump_boards(boards, [(u.pk, u.username, 5, False) for u in fillers]
                                  + [(u.pk, u.username, 1, False) for u in low])
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        before = _rows_written()
        leaderboards._bump_boards(boards, [(low[0].pk, low[0].username, 9, False),
                                           (low[1].pk, low[1].username, 0, True), (new.pk, new.username, 3, False)])
        written = _rows_written() - before
    for board in boards:
        assert_exact(board)
    statements = [q["sql"].split()[0].upper() for q in queries.captured_queries
                  if q["sql"].split()[0].upper() in ("INSERT", "UPDATE", "DELETE")]
    return written, statements


def test_a_game_end_writes_the_same_rows_whatever_the_board_size(django_user_model):
    """Six boards, three players: one row each per board plus the new player's board counts, at 20 and at
    200 players on the boards (a stored rank would shift every row the player passes)."""
    small = _game_end_writes(django_user_model, 20, "s")
    large = _game_end_writes(django_user_model, 200, "l")
    assert small == large
    assert small[0] == 6 * 3 + 6  # a row per board and player, and each board's count for the new one


@pytest.mark.database  # PostgreSQL's row locks
def test_concurrent_games_on_the_same_boards_keep_ranks_exact(django_user_model):
    """Post-game writes from several threads (own connections) lock the boards in order: no deadlock,
    no lost update, ranks exact at the end."""
    users = [django_user_model.objects.create_user(username=f"c{i:02d}", password="x") for i in range(30)]
    errors: list[BaseException] = []

    def worker(seed: int) -> None:
        rng = random.Random(seed)
        try:
            for _ in range(25):
                players = rng.sample(users, 3)
                boards = rng.sample(BOARDS + ["ratings:month:2025-01:*"], 2)
                with transaction.atomic():
                    leaderboards._bump_boards(boards, [(p.pk, p.username, rng.randint(0, 3), False) for p in players])
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            close_old_connections()
            connection.close()

    threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    total = sum(sum(LeaderboardRow.objects.filter(board=b).values_list("games", flat=True))
                for b in BOARDS + ["ratings:month:2025-01:*"])
    assert total == 4 * 25 * 3 * 2
    for board in BOARDS + ["ratings:month:2025-01:*"]:
        assert_exact(board)
