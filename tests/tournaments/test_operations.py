"""The organiser's actions (docs/tournaments.md): start now, cancel with a reason, withdraw a
player during the tournament; each refusal's status and code; chips conserved on every path."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient
from tournament_helpers import chips_granted, chips_total, play_out

from apitest import token_client
from goat.games.computer import stand_ins_play
from goat.games.models import Game, GameEvent
from ratings.models import ChipAccount, ChipKind, ChipLedgerEntry, RatingEntry
from tournaments import services
from tournaments.models import Prize, Registration, Seating, Standing, Table

pytestmark = pytest.mark.django_db(transaction=True)

PROBLEM = "application/problem+json"


def later(**kwargs):
    return {"starts_at": timezone.now() + timedelta(hours=2), **kwargs}


def registered(make_tournament, players, **kwargs):
    tournament = make_tournament(**kwargs)
    for player in players:
        services.tournament_register(tournament_id=tournament.pk, player=player)
    return tournament


def refused(response, status: int, code: str) -> None:
    assert response.status_code == status, response.content
    assert response["Content-Type"] == PROBLEM and response.json()["code"] == code


# --- start now ---------------------------------------------------------------------------------


def test_staff_start_a_scheduled_tournament_now(bots, make_tournament, director):
    players = bots(4)
    tournament = registered(make_tournament, players, **later(table_size=2, rounds=2))
    response = director.post(f"/api/tournaments/{tournament.pk}/start/")
    assert response.status_code == 200, response.content
    data = response.json()
    assert data["status"] == "running" and data["started_at"] and len(data["tables"]) == 2
    assert [r["number"] for r in data["played_rounds"]] == [1]
    tournament.refresh_from_db()
    assert tournament.starts_at > timezone.now()  # the announced time stays; started_at says when
    refused(director.post(f"/api/tournaments/{tournament.pk}/start/"), 409, "tournament_not_scheduled")
    assert services.tournaments_start_due() == []  # the beat finds nothing to start
    assert Table.objects.filter(tournament=tournament).count() == 2


def test_only_staff_act(bots, make_tournament, api_client):
    player, other = bots(2)
    tournament = registered(make_tournament, [player], **later())
    for action, payload in (("start", {}), ("cancel", {"reason": "no"})):
        refused(token_client(player).post(f"/api/tournaments/{tournament.pk}/{action}/", payload, format="json"),
                403, "permission_denied")
        refused(api_client.post(f"/api/tournaments/{tournament.pk}/{action}/", payload, format="json"),
                401, "not_authenticated")
    refused(token_client(other).post(f"/api/tournaments/{tournament.pk}/withdraw/", {"player": player.username},
                                   format="json"), 403, "permission_denied")
    tournament.refresh_from_db()
    assert tournament.status == "scheduled"
    refused(token_client(player).post("/api/tournaments/999999/start/"), 403, "permission_denied")


def test_start_and_cancel_of_an_unknown_tournament_are_404(director):
    refused(director.post("/api/tournaments/999999/start/"), 404, "not_found")
    refused(director.post("/api/tournaments/999999/cancel/", {"reason": "x"}, format="json"), 404, "not_found")


# --- cancel ------------------------------------------------------------------------------------


def test_cancel_a_scheduled_tournament_refunds_every_fee(bots, make_tournament, director, settings):
    settings.GOAT_INITIAL_CHIPS = 100
    players = bots(3)
    tournament = registered(make_tournament, players, **later(entry_fee=30))
    assert chips_total() == chips_granted()
    refused(director.post(f"/api/tournaments/{tournament.pk}/cancel/", {}, format="json"), 400, "invalid")
    refused(director.post(f"/api/tournaments/{tournament.pk}/cancel/", {"reason": ""}, format="json"), 400, "invalid")
    response = director.post(f"/api/tournaments/{tournament.pk}/cancel/", {"reason": "Not enough players."},
                             format="json")
    assert response.status_code == 200, response.content
    data = response.json()
    assert data["status"] == "cancelled" and data["cancel_reason"] == "Not enough players." and data["cancelled_at"]
    assert data["prize_pool"] == 0
    assert all(ChipAccount.objects.get(player=p).balance == 100 for p in players)
    assert ChipLedgerEntry.objects.filter(kind=ChipKind.ENTRY_REFUND).count() == 3
    assert chips_total() == chips_granted()
    refused(director.post(f"/api/tournaments/{tournament.pk}/cancel/", {"reason": "again"}, format="json"),
            409, "tournament_ended")
    refused(director.post(f"/api/tournaments/{tournament.pk}/start/"), 409, "tournament_not_scheduled")
    assert services.tournaments_start_due(now=timezone.now() + timedelta(days=1)) == []
    assert ChipLedgerEntry.objects.filter(kind=ChipKind.ENTRY_REFUND).count() == 3  # nothing paid twice
    assert services.standings_rebuild(tournament_id=tournament.pk) == 0  # never started: no lines
    page = APIClient().get(f"/tournaments/{tournament.pk}/").content.decode()
    assert "Not enough players." in page
    assert [t["name"] for t in token_client(players[0]).get("/api/tournaments/?status=cancelled").json()["results"]] \
        == [tournament.name]


def test_cancel_a_running_tournament(bots, make_tournament, director, settings):
    settings.GOAT_INITIAL_CHIPS = 100
    players = bots(4)
    tournament = registered(make_tournament, players, table_size=2, rounds=3, entry_fee=20)
    services.tournaments_start_due()
    first, second = Table.objects.filter(tournament=tournament).order_by("number")
    play_out(first.game_id, random.Random(1))  # one game ends and is recorded before the cancel
    first.refresh_from_db()
    assert first.recorded_at is not None
    ledger_before = RatingEntry.objects.count()
    events_before = GameEvent.objects.filter(game_id=second.game_id).count()

    response = director.post(f"/api/tournaments/{tournament.pk}/cancel/", {"reason": "Power cut."}, format="json")
    assert response.status_code == 200, response.content
    second.game.refresh_from_db()
    assert second.game.status == "cancelled" and second.game.result is None
    types = list(GameEvent.objects.filter(game_id=second.game_id).order_by("seq").values_list("type", flat=True))
    assert types[events_before:] == ["game_cancelled", "seed_revealed"]
    assert RatingEntry.objects.count() == ledger_before  # the cancelled game gives no rating points
    assert RatingEntry.objects.filter(game_id=first.game_id).count() == 2  # the ended one keeps them
    tournament.refresh_from_db()
    assert tournament.status == "cancelled" and tournament.prize_pool == 0 and not Prize.objects.exists()
    assert all(ChipAccount.objects.get(player=p).balance == 100 for p in players)
    assert not Seating.objects.filter(tournament=tournament, active=True).exists()
    assert chips_total() == chips_granted()
    # nothing moves on afterwards
    assert services.tournament_advance(tournament_id=tournament.pk) is False
    services.tournaments_tick()
    assert Table.objects.filter(tournament=tournament).count() == 2
    crosstable = APIClient().get(f"/api/tournaments/{tournament.pk}/crosstable/").json()["results"]
    statuses = sorted(g["status"] for row in crosstable for g in row["games"])
    assert statuses == ["cancelled", "cancelled", "finished", "finished"]
    refused(director.post(f"/api/tournaments/{tournament.pk}/withdraw/", {"player": "bot00"}, format="json"),
            409, "tournament_not_running")


def test_cancel_a_finished_tournament_is_refused(bots, make_tournament, director):
    tournament = registered(make_tournament, bots(2), table_size=2, rounds=1, entry_fee=10)
    services.tournaments_start_due()
    stand_ins_play(prefix="bot", until_done=True, seed=2)
    tournament.refresh_from_db()
    assert tournament.status == "finished"
    refused(director.post(f"/api/tournaments/{tournament.pk}/cancel/", {"reason": "late"}, format="json"),
            409, "tournament_ended")
    assert Prize.objects.filter(tournament=tournament).count() == 2
    assert not ChipLedgerEntry.objects.filter(kind=ChipKind.ENTRY_REFUND).exists()
    assert chips_total() == chips_granted()


# --- withdraw ----------------------------------------------------------------------------------


def test_a_player_withdraws_from_a_running_swiss(bots, make_tournament, settings):
    settings.GOAT_INITIAL_CHIPS = 100
    players = bots(4)
    quitter = players[0]
    tournament = registered(make_tournament, players, table_size=2, rounds=3, entry_fee=10)
    services.tournaments_start_due()
    table = Table.objects.get(tournament=tournament, seatings__player=quitter)
    url = f"/api/tournaments/{tournament.pk}/withdraw/"
    response = token_client(quitter).post(url)
    assert response.status_code == 200, response.content
    assert response.json()["player"] == quitter.username and response.json()["withdrawn_by"] == quitter.username
    table.game.refresh_from_db()
    assert table.game.status == "interrupted" and table.game.result["reason"] == "resigned"
    seat = table.seatings.get(player=quitter).seat
    assert table.game.result["goats"] == [seat] and table.game.result["rating_points"][seat] == 0
    refused(token_client(quitter).post(url), 409, "already_withdrawn")
    assert ChipAccount.objects.get(player=quitter).balance == 90  # no refund once started
    line = Standing.objects.get(tournament=tournament, player=quitter)
    assert line.withdrawn and line.games == 1

    stand_ins_play(prefix="bot", until_done=True, seed=4)
    tournament.refresh_from_db()
    assert tournament.status == "finished"
    # seated no more: one game only; the other three share the rounds (one bye a round among them)
    assert Seating.objects.filter(tournament=tournament, player=quitter).count() == 1
    assert Standing.objects.get(tournament=tournament, player=quitter).withdrawn
    standings = token_client(players[1]).get(f"/api/tournaments/{tournament.pk}/standings/").json()["results"]
    assert [s["withdrawn"] for s in standings if s["player"] == quitter.username] == [True]
    assert sum(p.amount for p in Prize.objects.filter(tournament=tournament)) == 40
    assert chips_total() == chips_granted()
    refused(token_client(quitter).post(url), 409, "tournament_not_running")
    mine = APIClient().get(f"/api/players/{quitter.username}/tournaments/").json()["results"]
    assert mine[0]["withdrawn"] is True


def test_staff_withdraw_a_player_from_an_arena(bots, make_tournament, director):
    players = bots(4)
    tournament = registered(make_tournament, players, format="arena", table_size=2, duration_minutes=60)
    services.tournaments_start_due()
    target = players[3]
    response = director.post(f"/api/tournaments/{tournament.pk}/withdraw/", {"player": target.username},
                             format="json")
    assert response.status_code == 200, response.content
    assert response.json()["withdrawn_by"] == "director"
    registration = Registration.objects.get(tournament=tournament, player=target)
    assert registration.withdrawn_at is not None and registration.withdrawn_by.username == "director"
    # the opponent finished their game; the arena seats them again, never with the withdrawn player
    services.tournament_advance(tournament_id=tournament.pk)
    assert not Seating.objects.filter(tournament=tournament, player=target, active=True).exists()
    refused(director.post(f"/api/tournaments/{tournament.pk}/withdraw/", {"player": "nobody"}, format="json"),
            404, "not_registered")
    refused(director.post(f"/api/tournaments/{tournament.pk}/withdraw/", {"player": "director"}, format="json"),
            404, "not_registered")
    refused(director.post(f"/api/tournaments/{tournament.pk}/withdraw/", {"who": "x"}, format="json"),
            400, "invalid")


def test_withdraw_before_the_start_is_the_registration_delete(bots, make_tournament):
    [player] = bots(1)
    tournament = registered(make_tournament, [player], **later())
    refused(token_client(player).post(f"/api/tournaments/{tournament.pk}/withdraw/"), 409, "tournament_not_running")
    assert token_client(player).delete(f"/api/tournaments/{tournament.pk}/registration/").status_code == 204


def test_a_swiss_left_with_one_player_plays_out_its_rounds_as_byes(bots, make_tournament):
    players = bots(2)
    tournament = registered(make_tournament, players, table_size=2, rounds=3)
    services.tournaments_start_due()
    services.tournament_withdraw_running(tournament_id=tournament.pk, player=players[0], by=players[0])
    tournament.refresh_from_db()
    assert tournament.status == "finished"
    assert Table.objects.filter(tournament=tournament).count() == 1
    assert Game.objects.get(tournament_table__tournament=tournament).status == "interrupted"
    stayed = Standing.objects.get(tournament=tournament, player=players[1])
    assert (stayed.rank, stayed.byes, stayed.games) == (1, 2, 1)  # rounds 2 and 3 were byes
    with pytest.raises(Exception) as excinfo:
        services.tournament_withdraw_running(tournament_id=tournament.pk, player=players[1], by=players[1])
    assert excinfo.value.code == "tournament_not_running"
