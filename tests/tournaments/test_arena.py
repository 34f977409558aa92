"""A whole arena of 8 bots (tables of 4) played through the services with eager Celery."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from tournament_helpers import chips_granted, chips_total

from goat.games.computer import stand_ins_play
from tournaments import services
from tournaments.models import Prize, Seating, Standing, Table, Tournament, TournamentRound

pytestmark = pytest.mark.django_db(transaction=True)


def test_arena_of_eight_seats_waiting_players_until_the_end_time(bots, make_tournament, django_user_model):
    players = bots(8)
    tournament = make_tournament(name="Arena", format="arena", rounds=0, table_size=4, duration_minutes=30,
                                 entry_fee=10)
    for player in players:
        services.tournament_register(tournament_id=tournament.pk, player=player)
    assert services.tournaments_start_due() == [tournament.pk]
    assert Table.objects.filter(tournament=tournament).count() == 2  # 8 waiting players, 2 tables at once
    assert not TournamentRound.objects.exists()

    # A late entry while it runs (arena only) gets a standings line and waits for three more players.
    late = django_user_model.objects.create_user(username="botlate", password="x")
    services.tournament_register(tournament_id=tournament.pk, player=late)
    assert Standing.objects.filter(tournament=tournament).count() == 9
    assert not Seating.objects.filter(player=late).exists()

    # Play a while: every ended game frees its players, who are seated again with whoever waits.
    stand_ins_play(prefix="bot", max_moves=600, seed=3)
    assert Table.objects.filter(tournament=tournament).count() > 2
    assert Seating.objects.filter(player=late).exists()

    # Time passes beyond the end: no new table starts; the last games are played out; then it finishes.
    Tournament.objects.filter(pk=tournament.pk).update(started_at=timezone.now() - timedelta(minutes=31))
    tournament.refresh_from_db()
    tables_at_end = Table.objects.filter(tournament=tournament).count()
    stand_ins_play(prefix="bot", until_done=True, seed=4)
    assert Table.objects.filter(tournament=tournament).count() == tables_at_end
    tournament.refresh_from_db()
    assert tournament.status == "finished"
    assert not Seating.objects.filter(tournament=tournament, active=True).exists()
    assert all(t.game.seats == 4 and t.round_id is None for t in Table.objects.filter(tournament=tournament))
    numbers = sorted(Table.objects.filter(tournament=tournament).values_list("number", flat=True))
    assert numbers == list(range(1, len(numbers) + 1))

    standings = list(Standing.objects.filter(tournament=tournament).order_by("rank"))
    total = sum(sum(t.game.result["rating_points"]) for t in Table.objects.filter(tournament=tournament))
    assert sum(s.points for s in standings) == total
    assert sum(s.games for s in standings) == 4 * tables_at_end
    assert [p.amount for p in Prize.objects.filter(tournament=tournament).order_by("place")] == [45, 27, 18]
    assert chips_total() == chips_granted()

    before = list(Standing.objects.filter(tournament=tournament).order_by("rank").values_list(
        "player_id", "points", "games", "goats", "game_points", "rank"))
    services.standings_rebuild(tournament_id=tournament.pk)
    after = list(Standing.objects.filter(tournament=tournament).order_by("rank").values_list(
        "player_id", "points", "games", "goats", "game_points", "rank"))
    assert after == before

    # no late entries after the end
    other = django_user_model.objects.create_user(username="botlater", password="x")
    with pytest.raises(Exception) as refused:
        services.tournament_register(tournament_id=tournament.pk, player=other)
    assert getattr(refused.value, "code", None) == "registration_closed"
