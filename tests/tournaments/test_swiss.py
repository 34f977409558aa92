"""A whole swiss tournament played by bots through the services, with eager Celery."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from tournament_helpers import chips_granted, chips_total

from goat.games.computer import stand_ins_play
from goat.games.models import Game
from tournaments import services
from tournaments.models import Bye, Prize, Seating, Standing, Table, TournamentRound

pytestmark = pytest.mark.django_db(transaction=True)


def standings_rows(tournament):
    return list(Standing.objects.filter(tournament=tournament).order_by("rank")
                .values_list("player_id", "points", "games", "goats", "opponents_points", "game_points", "byes",
                             "rank"))


def test_full_swiss_of_ten_players_runs_to_the_end(bots, make_tournament):
    players = bots(10)
    tournament = make_tournament(rounds=3, table_size=4, entry_fee=100)
    for player in players:
        services.tournament_register(tournament_id=tournament.pk, player=player)
    tournament.refresh_from_db()
    assert tournament.prize_pool == 1000
    assert chips_total() == chips_granted()

    assert services.tournaments_start_due() == [tournament.pk]
    assert services.tournaments_start_due() == []  # beat twice: nothing new
    first = list(Table.objects.filter(round__number=1).order_by("number"))
    assert [t.game.seats for t in first] == [4, 3, 3]
    assert all(t.game.status == "running" for t in first)

    moves = stand_ins_play(prefix="bot", until_done=True, seed=1)
    assert moves > 0
    tournament.refresh_from_db()
    assert tournament.status == "finished"
    assert TournamentRound.objects.filter(tournament=tournament).count() == 3
    assert Table.objects.filter(tournament=tournament).count() == 9
    assert not Seating.objects.filter(tournament=tournament, active=True).exists()
    assert not Bye.objects.exists()

    rows = standings_rows(tournament)
    assert [r[-1] for r in rows] == list(range(1, 11))
    assert all(r[2] == 3 for r in rows)  # every player played every round
    for table in Table.objects.filter(tournament=tournament).select_related("game"):
        assert table.game.ended and table.recorded_at is not None
    total = sum(sum(t.game.result["rating_points"]) for t in Table.objects.filter(tournament=tournament))
    assert sum(r[1] for r in rows) == total
    keys = [(-p, g, -op, gp) for _, p, _, g, op, gp, _, _ in rows]
    assert keys == sorted(keys)

    prizes = list(Prize.objects.filter(tournament=tournament).order_by("place").values_list("place", "amount",
                                                                                           "player_id"))
    assert [(p, a) for p, a, _ in prizes] == [(1, 500), (2, 300), (3, 200)]
    assert [pid for *_, pid in prizes] == [r[0] for r in rows[:3]]
    assert chips_total() == chips_granted()

    # advance after the end, twice: nothing changes
    before = standings_rows(tournament)
    assert services.tournament_advance(tournament_id=tournament.pk) is True
    assert services.tournament_advance(tournament_id=tournament.pk) is True
    assert standings_rows(tournament) == before
    assert Prize.objects.count() == 3

    # the projection rebuilt from scratch equals the incremental one
    services.standings_rebuild(tournament_id=tournament.pk)
    assert standings_rows(tournament) == before
    Standing.objects.all().delete()
    call_command("rebuild_standings", tournament.pk)
    assert standings_rows(tournament) == before
    assert Game.objects.filter(tournament_table__tournament=tournament).count() == 9
