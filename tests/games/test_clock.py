"""The move clock (docs/rules.md §5, §9): deadlines, the one ticker, and a move racing a timeout."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import close_old_connections, connection
from django.utils import timezone
from factories import make_players, start_game

from goat.engine import legal_moves
from goat.engine.errors import RulesError
from goat.engine.tiles import tile_str
from goat.games import eventstore, services, tasks
from goat.games.models import Game, GameEvent
from goat.web.errors import ServiceError


@pytest.fixture
def players(db):
    return make_players("p0", "p1", "p2")


def _running_game(players, *, move_time=30, seats=2, ruleset="goat-classic"):
    return start_game(players, seats=seats, ruleset=ruleset, options={"move_time": move_time})


def _expire(game):
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    game.refresh_from_db()


@pytest.mark.django_db
def test_deadline_set_when_turn_reaches_a_player_with_a_choice(players):
    before = timezone.now()
    game = _running_game(players, move_time=30)
    assert game.turn is not None
    assert before + timedelta(seconds=29) < game.deadline <= timezone.now() + timedelta(seconds=30)


@pytest.mark.django_db
def test_no_clock_without_move_time(players):
    game = _running_game(players, move_time=0)
    assert game.deadline is None
    assert services.game_time_out(game_id=game.pk, expected_version=game.version) is False


@pytest.mark.django_db
def test_time_out_only_after_the_deadline(players):
    game = _running_game(players)
    assert services.game_time_out(game_id=game.pk, expected_version=game.version) is False
    assert Game.objects.get(pk=game.pk).status == "running"


@pytest.mark.django_db
def test_time_out_ends_game_interrupted_and_reveals_seed(players):
    game = _running_game(players)
    offender = game.turn
    _expire(game)
    assert services.game_time_out(game_id=game.pk, expected_version=game.version) is True
    game.refresh_from_db()
    assert game.status == "interrupted"
    assert game.result["reason"] == "timeout"
    assert game.result["goats"] == [offender]
    assert game.deadline is None and game.turn is None
    types = list(GameEvent.objects.filter(game=game).order_by("seq").values_list("type", flat=True))
    assert types[-2:] == ["timed_out", "seed_revealed"]


@pytest.mark.django_db
def test_time_out_twice_appends_exactly_one_timed_out(players):
    game = _running_game(players)
    _expire(game)
    version = game.version
    assert services.game_time_out(game_id=game.pk, expected_version=version) is True
    assert services.game_time_out(game_id=game.pk, expected_version=version) is False
    assert tasks.games_tick_clocks() == 0
    assert GameEvent.objects.filter(game=game, type="timed_out").count() == 1


@pytest.mark.django_db
def test_stale_countdown_after_a_move_does_nothing(players):
    game = _running_game(players)
    version = game.version
    state = eventstore.state_load(game)
    tile, end = legal_moves(state)[0]
    services.game_play_tile(game_id=game.pk, player=players[game.turn], tile=tile_str(tile), end=end)
    _expire(game)
    assert services.game_time_out(game_id=game.pk, expected_version=version) is False
    assert not GameEvent.objects.filter(game=game, type="timed_out").exists()


def _due_games(n: int) -> list[Game]:
    games = [_running_game(make_players(f"s{g}-0", f"s{g}-1")) for g in range(n)]
    for game in games:
        _expire(game)
    return games


def _statuses(games) -> dict[int, str]:
    return dict(Game.objects.filter(pk__in=[g.pk for g in games]).values_list("pk", "status"))


@pytest.mark.django_db
def test_each_share_of_the_ticker_times_out_only_its_own_games(settings):
    settings.GOAT_TICK_SHARES = 2
    games = _due_games(4)
    ones = {g.pk for g in games if g.pk % 2 == 1}
    assert tasks.games_tick_clocks(share=1) == len(ones)
    assert {pk for pk, status in _statuses(games).items() if status == "interrupted"} == ones
    assert tasks.games_tick_clocks(share=0) == len(games) - len(ones)
    assert set(_statuses(games).values()) == {"interrupted"}


@pytest.mark.django_db
def test_the_beats_tick_sends_the_other_shares_and_times_out_the_first(settings, monkeypatch):
    settings.GOAT_TICK_SHARES = 3
    games = _due_games(6)
    sent = []
    monkeypatch.setattr(tasks.games_tick_clocks, "apply_async", lambda **options: sent.append(options))
    assert tasks.games_tick_clocks(budget_seconds=60) == sum(g.pk % 3 == 0 for g in games)
    # each other share is a task of its own, dropped if no worker starts it within a second
    assert sent == [{"kwargs": {"budget_seconds": 60, "share": share}, "expires": 1, "retry": False}
                    for share in (1, 2)]
    assert {pk for pk, status in _statuses(games).items() if status == "interrupted"} == {
        g.pk for g in games if g.pk % 3 == 0}


@pytest.mark.django_db
def test_with_the_broker_away_the_beats_tick_still_times_out_its_own_share(settings, monkeypatch):
    from kombu.exceptions import OperationalError as BrokerError

    settings.GOAT_TICK_SHARES = 2
    games = _due_games(4)

    def broker_away(**options):
        raise BrokerError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(tasks.games_tick_clocks, "apply_async", broker_away)
    assert tasks.games_tick_clocks(budget_seconds=60) == sum(g.pk % 2 == 0 for g in games)


@pytest.mark.django_db
def test_with_shares_the_beats_tick_times_out_every_due_game_when_tasks_run_inline(settings):
    settings.GOAT_TICK_SHARES = 3  # the shares it sends run inline (eager Celery), before its own
    games = _due_games(5)
    tasks.games_tick_clocks()
    assert set(_statuses(games).values()) == {"interrupted"}


@pytest.mark.django_db
def test_a_share_sent_by_a_node_with_more_shares_does_nothing(settings):
    settings.GOAT_TICK_SHARES = 2
    games = _due_games(2)
    assert tasks.games_tick_clocks(share=2) == 0
    assert set(_statuses(games).values()) == {"running"}


@pytest.mark.django_db
def test_a_tick_reads_again_what_came_due_while_it_worked(monkeypatch):
    first, later = _due_games(2)
    Game.objects.filter(pk=later.pk).update(deadline=timezone.now() + timedelta(hours=1))
    time_out = services.game_time_out

    def and_another_comes_due(**kwargs):
        if kwargs["game_id"] == first.pk:  # once: moved again later, its deadline would pass the tick's `now`
            Game.objects.filter(pk=later.pk).update(deadline=timezone.now() - timedelta(milliseconds=1))
        return time_out(**kwargs)

    monkeypatch.setattr(services, "game_time_out", and_another_comes_due)
    assert tasks.games_tick_clocks(budget_seconds=60) == 2  # not left for the next tick, a second later
    assert set(_statuses([first, later]).values()) == {"interrupted"}


@pytest.mark.django_db
def test_a_tick_tries_a_game_it_could_not_time_out_once(monkeypatch):
    games = _due_games(2)
    tried = []
    monkeypatch.setattr(services, "game_time_out", lambda **kwargs: tried.append(kwargs["game_id"]) or False)
    assert tasks.games_tick_clocks(budget_seconds=5) == 0
    assert sorted(tried) == sorted(g.pk for g in games)  # then the next tick, not a loop on the same games


@pytest.mark.django_db
def test_the_ticker_times_out_every_overdue_game(players, django_user_model):
    due = _running_game(players)
    others = [django_user_model.objects.create_user(username=f"q{i}", password="x") for i in range(2)]
    not_due = _running_game(others)
    _expire(due)
    assert tasks.games_tick_clocks() == 1
    assert Game.objects.get(pk=due.pk).status == "interrupted"
    assert Game.objects.get(pk=not_due.pk).status == "running"
    assert tasks.games_tick_clocks() == 0


@pytest.mark.django_db
def test_a_tick_reads_the_due_games_again_until_none_is_left(players, django_user_model, monkeypatch):
    monkeypatch.setattr(tasks, "TICK_BATCH", 2)
    games = [_running_game(players)]
    for n in range(4):
        pair = [django_user_model.objects.create_user(username=f"t{n}{i}", password="x") for i in range(2)]
        games.append(_running_game(pair))
    for game in games:
        _expire(game)
    assert tasks.games_tick_clocks(budget_seconds=60) == 5  # three reads: a budget no loaded machine spends
    assert set(Game.objects.filter(pk__in=[g.pk for g in games]).values_list("status", flat=True)) == {"interrupted"}


@pytest.mark.django_db
def test_the_ticker_reads_only_games_with_a_running_clock(players, django_user_model):
    running = _running_game(players)
    others = [django_user_model.objects.create_user(username=f"r{i}", password="x") for i in range(2)]
    untimed = _running_game(others, move_time=0)
    _expire(running)
    assert untimed.deadline is None
    assert tasks.clocks_due(now=timezone.now()) == [(running.pk, running.version)]


@pytest.mark.django_db
def test_a_move_queues_no_task(players, monkeypatch):
    """No message per turn: the ticker finds deadlines in the table."""
    from celery.app.task import Task

    def refuse(*args, **kwargs):
        raise AssertionError("a move published a Celery message")

    monkeypatch.setattr(Task, "apply_async", refuse)
    game = _running_game(players)
    state = eventstore.state_load(game)
    tile, end = legal_moves(state)[0]
    services.game_play_tile(game_id=game.pk, player=players[game.turn], tile=tile_str(tile), end=end)
    assert Game.objects.get(pk=game.pk).deadline is not None


def _race_a_move_and_the_clock(game, mover, tile, end, version) -> dict[str, object]:
    """Send the move and the timeout of ``version`` at the same moment, from two threads."""
    outcomes: dict[str, object] = {}
    barrier = threading.Barrier(2)

    def move():
        barrier.wait()
        try:
            services.game_play_tile(game_id=game.pk, player=mover, tile=tile_str(tile), end=end,
                                    expected_version=version)
            outcomes["move"] = "ok"
        except (ServiceError, RulesError) as exc:
            outcomes["move"] = exc.code
        finally:
            close_old_connections()
            connection.close()

    def clock():
        barrier.wait()
        try:
            outcomes["clock"] = services.game_time_out(game_id=game.pk, expected_version=version)
        finally:
            connection.close()

    threads = [threading.Thread(target=move), threading.Thread(target=clock)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return outcomes


@pytest.mark.django_db(transaction=True)
def test_move_and_clock_at_the_same_deadline_one_wins(players):
    """A move arriving at the deadline races the ticker: both append naming the same version, so
    exactly one lands (no lock: the append's version check decides)."""
    for _ in range(4):
        game = _running_game(players)
        _expire(game)
        version = game.version
        state = eventstore.state_load(game)
        tile, end = legal_moves(state)[0]
        outcomes = _race_a_move_and_the_clock(game, players[game.turn], tile, end, version)
        timed_out = GameEvent.objects.filter(game=game, type="timed_out").count()
        played = GameEvent.objects.filter(game=game, type="tile_played", seq=version + 1).count()
        assert timed_out + played == 1, outcomes
        assert (outcomes["move"] == "ok") == (played == 1)
        assert (outcomes["clock"] is True) == (timed_out == 1)
        seqs = list(GameEvent.objects.filter(game=game).order_by("seq").values_list("seq", flat=True))
        assert seqs == list(range(1, len(seqs) + 1))
        players = players[::-1]  # fresh pair of seats next time (a player sits once per game)
