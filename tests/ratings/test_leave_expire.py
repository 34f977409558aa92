"""Leaving a waiting game and the expiry of games that never filled (docs/api.md): the stake
returns to the player's balance in the transaction of ``seat_left`` / ``game_cancelled``, exactly once."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient
from test_chips import NO_CLOCK, assert_chips_conserved, balances

from goat.engine import verify_log
from goat.games import eventstore, services, tasks, verification
from goat.games.models import Game, GameEvent, GameStatus, Seat
from goat.web.errors import ServiceError
from ratings import chips
from ratings.models import ChipLedgerEntry

pytestmark = pytest.mark.django_db


def _types(game) -> list[str]:
    return list(GameEvent.objects.filter(game=game).order_by("seq").values_list("type", flat=True))


def _aged(game, hours: int = 25) -> None:
    Game.objects.filter(pk=game.pk).update(created_at=game.created_at - timedelta(hours=hours))


def _client(player) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=player)[0].key}")
    return client


def test_leaving_returns_the_stake_once_and_frees_the_seat(make_players):
    masha, alex, olya = make_players("masha", "alex", "olya")
    game = services.game_create(player=masha, ruleset="goat-gamesburg", seats=3, options=NO_CLOCK).game
    services.game_join(game_id=game.pk, player=alex)
    loaded, stored = services.game_leave(game_id=game.pk, player=masha)
    assert [e.type for e in stored] == ["seat_left"] and loaded.seat is None
    assert balances([masha, alex]) == [1000, 990]
    assert ChipLedgerEntry.objects.filter(game=game, player=masha, kind="refund").get().amount == 10
    assert list(Seat.objects.filter(game=game).values_list("seat", "player__username")) == [(1, "alex")]
    with pytest.raises(ServiceError) as again:  # a repeat: no seat, nothing refunded twice
        services.game_leave(game_id=game.pk, player=masha)
    assert again.value.code == "not_seated" and again.value.status == 403
    assert balances([masha]) == [1000]
    with pytest.raises(ServiceError) as back:  # the one stake per game: who took it back does not return
        services.game_join(game_id=game.pk, player=masha)
    assert back.value.code == "left_game" and back.value.status == 409
    services.game_join(game_id=game.pk, player=olya)  # the freed seat 0 is taken by a new player
    assert Seat.objects.get(game=game, player=olya).seat == 0
    assert_chips_conserved()


def test_the_last_player_out_cancels_the_game(make_players):
    (masha,) = make_players("masha")
    game = services.game_create(player=masha, ruleset="goat-gamesburg", seats=2, options=NO_CLOCK).game
    loaded, _ = services.game_leave(game_id=game.pk, player=masha)
    game.refresh_from_db()
    assert game.status == GameStatus.CANCELLED and game.ended and game.result is None and game.ended_at
    assert _types(game) == ["game_created", "seat_taken", "seat_left", "game_cancelled", "seed_revealed"]
    assert balances([masha]) == [1000]
    log = [eventstore.event_dict(e) for e in eventstore.events_load(game_id=game.pk)]
    assert verify_log(log) == {"valid": True, "result": None, "rounds": []}  # the seed opens the commitment
    assert verification.game_verify(game=game).ok
    assert eventstore.state_rebuild(game).status == "cancelled"
    assert_chips_conserved()


def test_expiry_cancels_old_waiting_games_and_returns_every_stake(make_players, settings):
    masha, alex, olya = make_players("masha", "alex", "olya")
    old = services.game_create(player=masha, ruleset="goat-gamesburg", seats=3, options=NO_CLOCK).game
    services.game_join(game_id=old.pk, player=alex)
    fresh = services.game_create(player=olya, ruleset="goat-gamesburg", seats=2, options=NO_CLOCK).game
    _aged(old)
    assert balances([masha, alex, olya]) == [990, 990, 990]
    assert tasks.games_expire_waiting() == 1  # the periodic task: only the game older than 24 h
    old.refresh_from_db()
    assert old.status == GameStatus.CANCELLED and old.result is None
    assert _types(old)[-2:] == ["game_cancelled", "seed_revealed"]
    assert GameEvent.objects.get(game=old, type="game_cancelled").data == {"reason": "expired"}
    assert balances([masha, alex, olya]) == [1000, 1000, 990]
    assert services.games_expire_waiting() == 0  # a repeat does nothing twice
    assert ChipLedgerEntry.objects.filter(game=old, kind="refund").count() == 2
    assert Game.objects.get(pk=fresh.pk).status == GameStatus.WAITING
    settings.GOAT_WAITING_GAME_HOURS = 1  # the setting decides what is old
    _aged(fresh, hours=2)
    assert services.games_expire_waiting() == 1
    assert balances([olya]) == [1000]
    assert_chips_conserved()


def test_a_running_game_is_neither_left_nor_expired(make_players):
    masha, alex = make_players("masha", "alex")
    game = services.game_create(player=masha, ruleset="goat-gamesburg", seats=2, options=NO_CLOCK).game
    services.game_join(game_id=game.pk, player=alex)
    _aged(game)
    with pytest.raises(ServiceError) as refused:
        services.game_leave(game_id=game.pk, player=masha)
    assert refused.value.code == "game_not_waiting" and refused.value.status == 409
    assert services.games_expire_waiting() == 0
    assert balances([masha, alex]) == [990, 990]
    assert_chips_conserved()


@pytest.mark.database  # the race needs a database with concurrent writers
@pytest.mark.django_db(transaction=True)  # the join runs on a thread's own connection
def test_expiry_losing_a_race_with_a_join_refunds_nothing(make_players):
    masha, alex = make_players("masha", "alex")
    game = services.game_create(player=masha, ruleset="goat-gamesburg", seats=2, options=NO_CLOCK).game
    _aged(game)
    cutoff = game.created_at
    real_commit = services._commit

    def join_first(loaded, state, events, actor):  # alex's seat lands between the expiry's read and append
        if events and events[0]["type"] == "game_cancelled":
            t = threading.Thread(target=lambda: services.game_join(game_id=game.pk, player=alex))
            t.start()
            t.join()
        return real_commit(loaded, state, events, actor)

    services._commit = join_first
    try:
        assert services.game_expire(game_id=game.pk, created_before=cutoff + timedelta(hours=1)) is False
    finally:
        services._commit = real_commit
    assert Game.objects.get(pk=game.pk).status == GameStatus.RUNNING
    assert not ChipLedgerEntry.objects.filter(game=game, kind="refund").exists()
    assert_chips_conserved()


def test_leave_through_the_api(make_players):
    masha, alex, olya = make_players("masha", "alex", "olya")
    game = services.game_create(player=masha, ruleset="goat-gamesburg", seats=3, options=NO_CLOCK).game
    services.game_join(game_id=game.pk, player=alex)
    response = _client(olya).post(f"/api/games/{game.pk}/leave/")
    assert response.status_code == 403 and response.json()["code"] == "not_seated"
    response = _client(alex).post(f"/api/games/{game.pk}/leave/")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "waiting" and body["your_seat"] is None
    assert [s["player"] for s in body["seats"]] == ["masha", None, None]
    response = _client(masha).post(f"/api/games/{game.pk}/leave/")
    assert response.status_code == 200 and response.json()["status"] == "cancelled"
    assert response.json()["server_seed"] and response.json()["result"] is None
    assert _client(masha).get("/api/games/?status=cancelled").json()["count"] == 1
    events = _client(olya).get(f"/api/games/{game.pk}/events/").json()
    assert [e["type"] for e in events["events"]][-3:] == ["seat_left", "game_cancelled", "seed_revealed"]
    assert _client(masha).post("/api/games/999999/leave/").status_code == 404
    assert balances([masha, alex]) == [1000, 1000]
    assert chips.chips_balance(player=olya) == 1000
