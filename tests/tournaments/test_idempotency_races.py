"""The Celery jobs run twice or concurrently create no duplicate round, table or seat."""

from __future__ import annotations

import random
import threading

import pytest
from django.db import close_old_connections, connection
from tournament_helpers import FAST, play_out

from tournaments import services
from tournaments.models import Seating, Table, Tournament, TournamentRound
from tournaments.tasks import tournament_advance, tournaments_arena_tick, tournaments_start_due

pytestmark = [pytest.mark.database, pytest.mark.django_db(transaction=True)]


def in_threads(fn, n: int = 4) -> list:
    barrier = threading.Barrier(n)
    results, errors = [], []

    def run():
        try:
            barrier.wait()
            results.append(fn())
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            close_old_connections()
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    return results


def test_start_due_twice_and_concurrently_seats_round_one_once(bots, make_tournament):
    players = bots(6)
    tournament = make_tournament(table_size=3, rounds=2)
    for player in players:
        services.tournament_register(tournament_id=tournament.pk, player=player)
    results = in_threads(services.tournaments_start_due)
    assert sorted(map(len, results)) == [0, 0, 0, 1]
    tournaments_start_due.delay()  # the beat task, again
    assert TournamentRound.objects.filter(tournament=tournament).count() == 1
    assert Table.objects.filter(tournament=tournament).count() == 2
    assert Seating.objects.filter(tournament=tournament).count() == 6


def test_advance_twice_and_concurrently_starts_the_next_round_once(bots, make_tournament, monkeypatch):
    # The advance queued after the standings projection is off here, so that the test calls advance
    # itself, from several threads.
    monkeypatch.setattr(services.live, "queue_advance", lambda tournament_id: None)
    players = bots(8)
    tournament = make_tournament(table_size=4, rounds=2)
    for player in players:
        services.tournament_register(tournament_id=tournament.pk, player=player)
    services.tournaments_start_due()
    rng = random.Random(5)
    for table in Table.objects.filter(tournament=tournament):
        play_out(table.game_id, rng)
    assert TournamentRound.objects.filter(tournament=tournament).count() == 1

    in_threads(lambda: services.tournament_advance(tournament_id=tournament.pk))
    tournament_advance.delay(tournament.pk)
    tournaments_arena_tick.delay()
    assert TournamentRound.objects.filter(tournament=tournament).count() == 2
    assert Table.objects.filter(tournament=tournament).count() == 4
    assert Seating.objects.filter(tournament=tournament, active=True).count() == 8

    for table in Table.objects.filter(tournament=tournament, recorded_at__isnull=True):
        play_out(table.game_id, rng)
    in_threads(lambda: services.tournament_advance(tournament_id=tournament.pk))
    tournament.refresh_from_db()
    assert tournament.status == "finished"
    assert TournamentRound.objects.filter(tournament=tournament).count() == 2
    assert Table.objects.filter(tournament=tournament).count() == 4


def test_arena_tick_concurrently_opens_each_table_once(bots, make_tournament):
    players = bots(8)
    tournament = make_tournament(format="arena", rounds=0, table_size=2, duration_minutes=10)
    for player in players:
        services.tournament_register(tournament_id=tournament.pk, player=player)
    Tournament.objects.filter(pk=tournament.pk).update(status="running", started_at=tournament.starts_at)
    services.standings_rebuild(tournament_id=tournament.pk)
    in_threads(services.tournaments_tick)
    assert Table.objects.filter(tournament=tournament).count() == 4
    assert Seating.objects.filter(tournament=tournament, active=True).count() == 8


def test_the_tournament_options_are_the_games_options(bots, make_tournament):
    players = bots(2)
    tournament = make_tournament(table_size=2, rounds=1, options=dict(FAST))
    for player in players:
        services.tournament_register(tournament_id=tournament.pk, player=player)
    services.tournaments_start_due()
    game = Table.objects.get(tournament=tournament).game
    assert game.options == tournament.options and game.options["limit"] == 25 and game.options["ante"] == 0
