"""Races on PostgreSQL: many clients at once on the one thing only one of them can get.

Already covered elsewhere (referenced, not repeated): 16 concurrent moves on one version
(tests/games/test_races.py) and a move against the clock at the same deadline
(tests/games/test_clock.py::test_move_and_clock_at_the_same_deadline_one_wins).

Here: 16 clients join for the last seat of a game, and 16 register for the last place of a
tournament with an entry fee. Each thread has its own connection and closes it at the end.
Afterwards: exactly one winner, the rest refused with a 4xx problem, no gap, no duplicate.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from apitest import token_client
from goat.games import eventstore, services
from goat.games.models import Game, GameEvent, Seat
from ratings.models import ChipAccount, ChipLedgerEntry
from testkit import run_together
from tournaments import services as tournament_services
from tournaments.models import Registration, Tournament

pytestmark = [pytest.mark.database, pytest.mark.django_db(transaction=True)]

THREADS = 16


@pytest.fixture
def crowd(django_user_model):
    return [django_user_model.objects.create_user(username=f"c{i:02}", password="pw-" * 4) for i in range(THREADS + 4)]


def test_sixteen_clients_join_for_the_last_seat_exactly_one_gets_it(crowd):
    game = services.game_create(player=crowd[0], ruleset="goat-classic", seats=4).game
    services.game_join(game_id=game.pk, player=crowd[1])
    services.game_join(game_id=game.pk, player=crowd[2])
    joiners = crowd[4:4 + THREADS]
    clients = [token_client(user) for user in joiners]

    def join(i):
        response = clients[i].post(f"/api/games/{game.pk}/join/", {"client_seed": f"s{i}"}, format="json")
        return response.status_code, response.json().get("code")

    results = run_together(THREADS, join)

    assert not [r for r in results if isinstance(r, BaseException)], results
    assert sorted(s for s, _ in results) == [200] + [409] * (THREADS - 1), results
    assert {c for s, c in results if s == 409} <= {"game_full", "game_not_waiting"}, results
    game = Game.objects.get(pk=game.pk)
    assert game.status == "running"
    assert Seat.objects.filter(game=game).count() == 4
    assert sorted(Seat.objects.filter(game=game).values_list("seat", flat=True)) == [0, 1, 2, 3]
    events = list(GameEvent.objects.filter(game=game).order_by("seq"))
    assert [e.seq for e in events] == list(range(1, game.version + 1))
    assert eventstore.hash_chain_check(events)[0]
    assert sum(e.type == "seat_taken" for e in events) == 4
    dealt = [e for e in events if e.type == "round_dealt" and e.data["round"] == 1 and not e.data["void"]]
    assert len(dealt) == 1
    assert eventstore.state_rebuild(game).version == game.version


def test_sixteen_clients_choose_the_same_seat_of_a_pairs_table_exactly_one_gets_it(crowd):
    """A goat-pairs table: sixteen clients ask for seat 2 (one partner's place) at once; one sits there,
    the rest are refused with 409 seat_taken (or a full game's codes), and nobody is seated elsewhere."""
    game = services.game_create(player=crowd[0], ruleset="goat-pairs", seats=4).game
    clients = [token_client(user) for user in crowd[4:4 + THREADS]]

    def choose(i):
        response = clients[i].post(f"/api/games/{game.pk}/join/", {"seat": 2}, format="json")
        return response.status_code, response.json().get("code")

    results = run_together(THREADS, choose)

    assert not [r for r in results if isinstance(r, BaseException)], results
    assert sorted(s for s, _ in results) == [200] + [409] * (THREADS - 1), results
    assert {c for s, c in results if s == 409} <= {"seat_taken", "game_full"}, results
    assert sorted(Seat.objects.filter(game=game).values_list("seat", flat=True)) == [0, 2]
    events = list(GameEvent.objects.filter(game=game).order_by("seq"))
    assert [e.seq for e in events] == list(range(1, Game.objects.get(pk=game.pk).version + 1))
    assert sum(e.type == "seat_taken" for e in events) == 2


def test_sixteen_players_register_for_the_last_place_exactly_one_pays_and_gets_it(crowd, django_user_model):
    staff = django_user_model.objects.create_user(username="director", password="pw-" * 4, is_staff=True)
    tournament = tournament_services.tournament_create(
        created_by=staff, name="Last place", ruleset="goat-classic", format="swiss", table_size=2, rounds=1,
        starts_at=timezone.now() + timedelta(hours=1), max_players=4, entry_fee=25)
    for user in crowd[:3]:
        tournament_services.tournament_register(tournament_id=tournament.pk, player=user)
    hopefuls = crowd[4:4 + THREADS]
    clients = [token_client(user) for user in hopefuls]

    def register(i):
        response = clients[i].post(f"/api/tournaments/{tournament.pk}/registration/")
        return response.status_code, response.json().get("code")

    results = run_together(THREADS, register)

    assert not [r for r in results if isinstance(r, BaseException)], results
    assert sorted(s for s, _ in results) == [201] + [422] * (THREADS - 1), results
    assert {c for s, c in results if s == 422} == {"tournament_full"}, results
    registered = Registration.objects.filter(tournament=tournament)
    assert registered.count() == 4
    winner = next(hopefuls[i] for i, (s, _) in enumerate(results) if s == 201)
    assert registered.filter(player=winner).exists()
    tournament = Tournament.objects.get(pk=tournament.pk)
    assert tournament.prize_pool == 4 * 25
    # chips: only the four registered paid, once each; every balance equals its ledger
    for user in [*crowd[:3], *hopefuls]:
        paid = user in crowd[:3] or user == winner
        fees = ChipLedgerEntry.objects.filter(player=user, kind="entry_fee")
        assert fees.count() == (1 if paid else 0), user
        account = ChipAccount.objects.filter(player=user).first()
        if account is not None:
            ledger = sum(ChipLedgerEntry.objects.filter(player=user).values_list("amount", flat=True))
            assert account.balance == ledger, user
