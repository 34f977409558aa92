"""Chips (docs/rules.md §10, D-14): stakes escrowed on taking a seat, paid out at the end; never
created or destroyed."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db.models import Sum
from ratings_play import play_game, start_game
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from goat.games import services
from goat.games.models import Game, GameStatus, Seat
from goat.web.errors import ServiceError
from ratings import chips
from ratings import services as ratings
from ratings.models import ChipAccount, ChipLedgerEntry

pytestmark = pytest.mark.django_db

NO_CLOCK = {"move_time": 0}


def balances(players) -> list[int]:
    return [chips.chips_balance(player=p) for p in players]


def assert_chips_conserved() -> None:
    """Balances + stakes escrowed in games not yet paid out nor refunded == initial grants."""
    total = ChipAccount.objects.aggregate(s=Sum("balance"))["s"] or 0
    unpaid = (ChipLedgerEntry.objects.filter(kind="stake")
              .exclude(game__in=ChipLedgerEntry.objects.filter(kind="payout").values("game")))
    refunded = ChipLedgerEntry.objects.filter(kind="refund").aggregate(s=Sum("amount"))["s"] or 0
    escrow = -(unpaid.aggregate(s=Sum("amount"))["s"] or 0) - refunded
    grants = ChipLedgerEntry.objects.filter(kind="initial").aggregate(s=Sum("amount"))["s"] or 0
    assert total + escrow == grants
    for account in ChipAccount.objects.all():
        assert account.balance == ChipLedgerEntry.objects.filter(player=account.player).aggregate(
            s=Sum("amount"))["s"]


def test_taking_a_seat_escrows_the_ante(make_players):
    players = make_players("masha", "alex", "olya")
    game = services.game_create(player=players[0], ruleset="goat-gamesburg", seats=3, options=NO_CLOCK).game
    assert balances(players) == [990, 1000, 1000]
    services.game_join(game_id=game.pk, player=players[1])
    assert balances(players) == [990, 990, 1000]
    assert ChipLedgerEntry.objects.filter(game=game, kind="stake").count() == 2
    assert_chips_conserved()


def test_no_ante_no_chips(make_players):
    players = make_players("masha", "alex")
    play_game(players, options=NO_CLOCK, seed=1)
    assert not ChipAccount.objects.exists() and not ChipLedgerEntry.objects.exists()
    assert balances(players) == [1000, 1000]


def test_initial_grant_follows_the_setting(make_players, settings):
    settings.GOAT_INITIAL_CHIPS = 50
    players = make_players("masha", "alex")
    start_game(players, ruleset="goat-gamesburg", options=NO_CLOCK)
    assert balances(players) == [40, 40]


def test_normal_end_pays_the_pot_to_the_winner(make_players):
    players = make_players("masha", "alex", "olya")
    game = play_game(players, ruleset="goat-gamesburg", options=NO_CLOCK, seed=2)
    assert game.result["reason"] == "limit"
    chips = game.result["chips"]
    assert sum(chips) == 0
    assert balances(players) == [1000 + c for c in chips]
    for seat, player in enumerate(players):
        payout = ChipLedgerEntry.objects.get(game=game, player=player, kind="payout")
        assert payout.amount == 10 + chips[seat]
    assert_chips_conserved()


def test_resignation_refunds_the_others_and_splits_the_offenders_stake(make_players):
    # docs/rules.md §10 example: ante 10, three players, seat 1 times out (here: resigns): [+5, -10, +5]
    players = make_players("masha", "alex", "olya")
    game = play_game(players, ruleset="goat-gamesburg", options=NO_CLOCK, seed=3, resign_after=4,
                     resigner=players[1])
    assert game.status == GameStatus.INTERRUPTED
    assert game.result["chips"] == [5, -10, 5]
    assert balances(players) == [1005, 990, 1005]
    assert_chips_conserved()


def test_payout_is_applied_once(make_players):
    players = make_players("masha", "alex")
    game = play_game(players, ruleset="goat-gamesburg", options=NO_CLOCK, seed=4, resign_after=1)
    before = balances(players)
    assert ratings.ratings_apply_game(game_id=game.pk) is False
    assert balances(players) == before
    assert ChipLedgerEntry.objects.filter(game=game, kind="payout").count() == 2


def test_chips_are_never_created_or_destroyed(make_players):
    players = make_players("masha", "alex", "olya", "serg")
    for seed in range(4):
        table = players[seed % 2: seed % 2 + 3]
        play_game(table, ruleset="goat-gamesburg", options=NO_CLOCK, seed=seed,
                  resign_after=6 if seed == 2 else None)
        assert_chips_conserved()
    running = start_game(players[:2], ruleset="goat-gamesburg", options=NO_CLOCK)  # stakes in escrow
    assert running.status == GameStatus.RUNNING
    assert_chips_conserved()
    assert sum(balances(players)) == 4000 - 20
    # a stake given up by leaving, and stakes returned by the expiry of a game that never filled
    left = services.game_create(player=players[2], ruleset="goat-gamesburg", seats=3, options=NO_CLOCK).game
    services.game_join(game_id=left.pk, player=players[3])
    services.game_leave(game_id=left.pk, player=players[2])
    assert_chips_conserved()
    Game.objects.filter(pk=left.pk).update(created_at=left.created_at - timedelta(days=2))
    assert services.games_expire_waiting() == 1
    assert_chips_conserved()
    assert sum(balances(players)) == 4000 - 20


def test_a_seat_needs_the_balance(make_players):
    players = make_players("masha", "alex")
    game = services.game_create(player=players[0], ruleset="goat-gamesburg", seats=2, options=NO_CLOCK).game
    ChipAccount.objects.create(player=players[1], balance=9)
    ChipLedgerEntry.objects.create(player=players[1], amount=9, kind="initial", at=game.created_at)
    with pytest.raises(ServiceError) as refused:
        services.game_join(game_id=game.pk, player=players[1])
    assert refused.value.code == "insufficient_chips" and refused.value.status == 422
    assert "10" in refused.value.detail
    assert not Seat.objects.filter(game=game, player=players[1]).exists()
    assert not ChipLedgerEntry.objects.filter(game=game, player=players[1]).exists()
    assert chips.chips_balance(player=players[1]) == 9
    assert Game.objects.get(pk=game.pk).status == GameStatus.WAITING


def test_creating_a_game_needs_the_balance_too(make_players):
    players = make_players("masha")
    ChipAccount.objects.create(player=players[0], balance=0)
    with pytest.raises(ServiceError) as refused:
        services.game_create(player=players[0], ruleset="goat-gamesburg", seats=2, options=NO_CLOCK)
    assert refused.value.code == "insufficient_chips"
    assert not Game.objects.exists()


def test_insufficient_chips_through_the_api(make_players):
    players = make_players("masha", "alex")
    game = services.game_create(player=players[0], ruleset="goat-gamesburg", seats=2, options=NO_CLOCK).game
    ChipAccount.objects.create(player=players[1], balance=3)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=players[1]).key}")
    response = client.post(f"/api/games/{game.pk}/join/", {}, format="json")
    assert response.status_code == 422
    assert response["Content-Type"].startswith("application/problem+json")
    assert response.json()["code"] == "insufficient_chips"
    me = client.get("/api/players/me/").json()
    assert me["chips"] == 3
