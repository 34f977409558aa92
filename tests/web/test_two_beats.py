"""One beat per node (docs/operations.md "Beat"): every periodic task of the beat schedule, sent by two
beats at the same moment and run by two workers at once, leaves each of its effects exactly once.

The deployment under test has work for every task: clocks past their deadline, ended games whose
projections were lost, games waiting past their time, a swiss tournament due to start. Every entry of
``CELERY_BEAT_SCHEDULE`` then runs twice concurrently (threads, each on its own database connection:
PostgreSQL in the second pass of .ci/run, SQLite in the first), for two rounds of ticks. Where a
repeat would waste work the task takes a short lock (goat.web.db.locks); the tests below also show that
the copy that finds it taken does nothing.
"""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.conf import settings
from django.db import connections
from django.utils import timezone
from factories import make_players, start_game

from goat.celery import app
from goat.games import projections, services, tasks
from goat.games.models import Game, GameEvent, GameStatus, ProjectionRecord
from goat.web.db import locks
from ratings.models import ChipAccount, ChipLedgerEntry, RatingEntry
from testkit import run_together
from tournaments import services as tournament_services
from tournaments.models import Standing, Table, TournamentRound

pytestmark = [pytest.mark.database]  # two beats and two workers at once: PostgreSQL's row locks


@pytest.fixture
def players(db):
    return make_players(*(f"beat{i}" for i in range(8)))


def _running(a, b, move_time=30):
    return start_game([a, b], options={"move_time": move_time})


def _in_thread(work):
    out: list = []

    def target():
        try:
            out.append(work())
        finally:
            connections.close_all()

    thread = threading.Thread(target=target)
    thread.start()
    thread.join(30)
    return out[0]


@pytest.mark.django_db(transaction=True)
def test_two_beats_of_every_periodic_task_at_once_leave_each_effect_once(players, monkeypatch):
    # post-game tasks are lost: the projections are the catch-up's (and the leaderboard refresh's) work
    monkeypatch.setattr(projections, "projections_queue", lambda **_: None)
    now = timezone.now()
    overdue = [_running(players[i], players[i + 1]) for i in (0, 2, 4)]
    Game.objects.filter(pk__in=[g.pk for g in overdue]).update(deadline=now - timedelta(seconds=2))
    ended = [_running(players[6], players[7]) for _ in range(2)]
    for game in ended:
        services.game_resign(game_id=game.pk, player=players[6])
    Game.objects.filter(pk__in=[g.pk for g in ended]).update(ended_at=now - timedelta(minutes=2))
    waiting = [services.game_create(player=players[i], ruleset="goat-classic", seats=2).game for i in (0, 1)]
    Game.objects.filter(pk__in=[g.pk for g in waiting]).update(
        created_at=now - timedelta(hours=settings.GOAT_WAITING_GAME_HOURS + 1))
    tournament = tournament_services.tournament_create(
        created_by=players[0], name="beats", ruleset="goat-classic", format="swiss", table_size=2,
        starts_at=now + timedelta(minutes=1), max_players=8, rounds=2)
    for player in players[:4]:
        tournament_services.tournament_register(tournament_id=tournament.pk, player=player)
    type(tournament).objects.filter(pk=tournament.pk).update(starts_at=now - timedelta(seconds=1))
    assert ProjectionRecord.objects.filter(game__in=ended).count() == 0

    schedule = settings.CELERY_BEAT_SCHEDULE
    for _round in range(2):
        for name, entry in schedule.items():
            task = app.tasks[entry["task"]]
            # (an eager subtask in one thread flips celery's process-wide "within a task" flag that
            # EagerResult.get checks by default; these threads are the beats, not tasks)
            results = run_together(2, lambda _i, task=task: task.apply().get(disable_sync_subtasks=False))
            assert not [r for r in results if isinstance(r, BaseException)], (name, results)

    # the ticker: each overdue game timed out once
    for game in overdue:
        assert GameEvent.objects.filter(game=game, type="timed_out").count() == 1
        assert Game.objects.get(pk=game.pk).status != GameStatus.RUNNING
    # the waiting games: cancelled once each
    for game in waiting:
        assert GameEvent.objects.filter(game=game, type="game_cancelled").count() == 1
    # the projections of the games whose post-game task was lost: each once (the tracking rows and the
    # rows they stand for; the games timed out just now are within the catch-up's grace period)
    names = [p.name for p in projections.registered()]
    for game in ended:
        assert sorted(ProjectionRecord.objects.filter(game=game).values_list("projection", flat=True)) == sorted(names)
        assert RatingEntry.objects.filter(game=game).count() == 2
    # chips: each account's balance is its ledger's sum, and the ledger has one entry per game and kind
    for account in ChipAccount.objects.all():
        entries = ChipLedgerEntry.objects.filter(player=account.player)
        assert account.balance == sum(e.amount for e in entries), account.player
        keys = list(entries.values_list("game", "kind"))
        assert len(keys) == len(set(keys))
    # the tournament: started once, one first round with its two tables, one standings line each
    assert TournamentRound.objects.filter(tournament=tournament).count() == 1
    assert Table.objects.filter(round__tournament=tournament).count() == 2
    assert Standing.objects.filter(tournament=tournament).count() == 4


@pytest.mark.django_db(transaction=True)
def test_a_periodic_lock_is_held_by_one_copy_at_a_time_and_released_after():
    inside, release = threading.Event(), threading.Event()
    got: list[bool] = []

    def first():
        try:
            with locks.held("test-lock") as mine:
                got.append(mine)
                inside.set()
                release.wait(20)
        finally:
            connections.close_all()

    holder = threading.Thread(target=first)
    holder.start()
    assert inside.wait(20)

    def second():
        with locks.held("test-lock") as mine:
            return mine

    try:
        assert _in_thread(second) is False
        assert _in_thread(lambda: _held_other("another-lock")) is True  # other names are not blocked
    finally:
        release.set()
        holder.join(20)
    assert got == [True]
    assert _in_thread(second) is True  # released at the end of the first block


def _held_other(name: str) -> bool:
    with locks.held(name) as mine:
        return mine


@pytest.mark.parametrize("shares", [1, 2])
@pytest.mark.django_db(transaction=True)
def test_a_tick_that_finds_another_running_does_nothing_and_the_next_does_the_work(players, settings, shares):
    settings.GOAT_TICK_SHARES = shares
    game = _running(players[0], players[1])
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=2))
    share = game.pk % shares
    inside, release = threading.Event(), threading.Event()

    def other_tick():
        try:
            with locks.held(tasks.tick_lock(share, shares)):  # another beat's tick of the game's share
                inside.set()
                release.wait(20)
        finally:
            connections.close_all()

    holder = threading.Thread(target=other_tick)
    holder.start()
    assert inside.wait(20)
    try:
        assert _in_thread(tasks.games_tick_clocks) == 0
        assert Game.objects.get(pk=game.pk).status == GameStatus.RUNNING
    finally:
        release.set()
        holder.join(20)
    assert tasks.games_tick_clocks(share=share) == 1
    assert GameEvent.objects.filter(game=game, type="timed_out").count() == 1


def test_lock_keys_are_stable_64_bit_numbers():
    assert locks.key_of("games_tick_clocks") == locks.key_of("games_tick_clocks")
    assert locks.key_of("a") != locks.key_of("b")
    assert -(2**63) <= locks.key_of("games_tick_clocks") < 2**63
