"""One player's concurrent joins, or leaves, of a game with an ante (issue 31): one succeeds, the
other gets a clean 409/403, never a 500; exactly one stake (one refund) is booked and chips stay
conserved. Threads over the API, on whatever database the suite runs (the race is real on
PostgreSQL, where both requests get past the seat check before either commits)."""

from __future__ import annotations

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient
from test_chips import assert_chips_conserved, balances

from goat.games import services
from goat.games.models import Seat
from ratings.models import ChipLedgerEntry
from testkit import run_together

pytestmark = [pytest.mark.database, pytest.mark.django_db(transaction=True)]

ROUNDS = 5  # each round a fresh game: the race has several chances to interleave


def _client(player) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=player)[0].key}")
    return client


def _twice(player, path: str) -> list[tuple[int, str | None]]:
    def send(_i):
        response = _client(player).post(path, {}, format="json")
        return response.status_code, response.json().get("code")

    results = run_together(2, send)
    assert not [r for r in results if isinstance(r, BaseException)], results
    return sorted(results, key=lambda r: r[0])


def test_two_joins_of_one_player_at_once_take_one_seat_and_one_stake(make_players):
    owner, joiner = make_players("masha", "alex")
    for _ in range(ROUNDS):
        game = services.game_create(player=owner, ruleset="goat-gamesburg", seats=3, options={"move_time": 0}).game
        results = _twice(joiner, f"/api/games/{game.pk}/join/")
        assert results[0] == (200, None) and results[1] in ((409, "already_seated"),), results
        assert Seat.objects.filter(game=game, player=joiner).count() == 1
        assert ChipLedgerEntry.objects.filter(game=game, player=joiner, kind="stake").count() == 1
    assert balances([joiner]) == [1000 - 10 * ROUNDS]
    assert_chips_conserved()


def test_two_leaves_of_one_player_at_once_free_one_seat_and_refund_once(make_players):
    owner, leaver = make_players("masha", "alex")
    for _ in range(ROUNDS):
        game = services.game_create(player=owner, ruleset="goat-gamesburg", seats=3, options={"move_time": 0}).game
        services.game_join(game_id=game.pk, player=leaver)
        results = _twice(leaver, f"/api/games/{game.pk}/leave/")
        assert results[0][0] == 200 and results[1] == (403, "not_seated"), results
        assert not Seat.objects.filter(game=game, player=leaver).exists()
        assert ChipLedgerEntry.objects.filter(game=game, player=leaver, kind="refund").count() == 1
    assert balances([leaver]) == [1000]
    assert_chips_conserved()
