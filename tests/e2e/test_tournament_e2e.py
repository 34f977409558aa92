"""A small swiss run to the end by a real Celery worker and beat (PostgreSQL + Redis): beat starts the
tournament, the test process plays the bots' moves through the services, and the worker advances the
tournament after every game (tournament_advance queued on commit by the GAME_ENDED_HOOK)."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from goat.games.computer import stand_ins_play
from tournaments import services
from tournaments.models import Prize, Standing, Table, Tournament, TournamentRound

pytestmark = [pytest.mark.realprocess, pytest.mark.database]  # a real Celery worker, on PostgreSQL + Redis


def test_worker_and_beat_run_a_swiss_to_the_end(live_celery, wait_for, django_user_model):
    director = django_user_model.objects.create_user(username="director", password="x" * 12, is_staff=True)
    players = [django_user_model.objects.create_user(username=f"bot{i}", password="x" * 12) for i in range(4)]
    tournament = services.tournament_create(
        created_by=director, name="e2e swiss", ruleset="goat-classic", options={"limit": 25, "move_time": 0},
        format="swiss", rounds=2, table_size=2, starts_at=timezone.now() + timedelta(seconds=2), max_players=4,
        entry_fee=10)
    for player in players:
        services.tournament_register(tournament_id=tournament.pk, player=player)

    worker = live_celery(extra_env={"GOAT_TOURNAMENTS_TICK_SECONDS": "1"})
    wait_for(lambda: Tournament.objects.get(pk=tournament.pk).status == "running", timeout=30,
             what=f"beat to start the tournament\n{worker.output()}")

    deadline = time.monotonic() + 180
    while Tournament.objects.get(pk=tournament.pk).status != "finished":
        assert time.monotonic() < deadline, f"tournament did not finish\n{worker.output()}"
        if not stand_ins_play(prefix="bot", seed=int(time.monotonic())):
            time.sleep(0.2)  # every game ended: the worker is seating the next round

    assert TournamentRound.objects.filter(tournament=tournament).count() == 2
    assert Table.objects.filter(tournament=tournament).count() == 4
    standings = list(Standing.objects.filter(tournament=tournament).order_by("rank"))
    assert [s.rank for s in standings] == [1, 2, 3, 4] and all(s.games == 2 for s in standings)
    assert [p.amount for p in Prize.objects.filter(tournament=tournament).order_by("place")] == [20, 12, 8]
