"""Tournaments API per endpoint and error (docs/tournaments.md), and the games list's ?tournament=."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient
from tournament_helpers import FAST, chips_granted, chips_total

from apitest import token_client
from ratings.models import ChipAccount
from tournaments import services
from tournaments.models import Registration, Table, Tournament

pytestmark = pytest.mark.django_db(transaction=True)

PROBLEM = "application/problem+json"


def body(**changes):
    data = {"name": "Friday swiss", "ruleset": "goat-classic", "options": dict(FAST), "format": "swiss",
            "rounds": 2, "table_size": 2, "starts_at": (timezone.now() + timedelta(hours=1)).isoformat(),
            "max_players": 4, "entry_fee": 50}
    data.update(changes)
    return data


def test_staff_create_a_tournament(director):
    response = director.post("/api/tournaments/", body(), format="json")
    assert response.status_code == 201, response.content
    data = response.json()
    assert data["status"] == "scheduled" and data["format"] == "swiss" and data["rounds"] == 2
    assert data["options"]["limit"] == 25 and data["options"]["ante"] == 0 and data["options"]["hand_size"] == 7
    assert data["created_by"] == "director" and data["players"] == 0 and data["prize_pool"] == 0


def test_create_is_idempotent_with_a_key(director):
    data = body()
    first = director.post("/api/tournaments/", data, format="json", HTTP_IDEMPOTENCY_KEY="k1")
    again = director.post("/api/tournaments/", data, format="json", HTTP_IDEMPOTENCY_KEY="k1")
    assert first.status_code == again.status_code == 201
    assert first.content == again.content
    assert Tournament.objects.count() == 1
    other = director.post("/api/tournaments/", data | {"name": "Other"}, format="json", HTTP_IDEMPOTENCY_KEY="k1")
    assert other.status_code == 422 and other.json()["code"] == "idempotency_key_reused"


def test_only_staff_create(bots, api_client):
    [player] = bots(1)
    response = token_client(player).post("/api/tournaments/", body(), format="json")
    assert response.status_code == 403 and response["Content-Type"] == PROBLEM
    assert response.json()["code"] == "permission_denied"
    assert api_client.post("/api/tournaments/", body(), format="json").status_code == 401
    assert not Tournament.objects.exists()


@pytest.mark.parametrize("changes, code, field", [
    ({"options": {"limit": -3}}, "invalid_options", None),
    ({"options": {"ante": 10}}, "invalid_options", None),
    ({"options": {"hand_size": 8}, "table_size": 4}, "invalid_options", None),
    ({"table_size": 5}, "invalid", "table_size"),
    ({"format": "knockout"}, "invalid", "format"),
    ({"rounds": None}, "invalid", "rounds"),
    ({"format": "arena", "duration_minutes": 0}, "invalid", "duration_minutes"),
    ({"starts_at": "tomorrow"}, "invalid", "starts_at"),
    ({"colour": "red"}, "invalid", "colour"),
])
def test_create_refuses_bad_bodies(director, changes, code, field):
    response = director.post("/api/tournaments/", body(**changes), format="json")
    assert response.status_code == 400, response.content
    assert response.json()["code"] == code
    if field:
        assert field in response.json()["errors"]


def test_the_gamesburg_ante_is_dropped(director):
    response = director.post("/api/tournaments/", body(ruleset="goat-gamesburg", options={}), format="json")
    assert response.status_code == 201 and response.json()["options"]["ante"] == 0


def test_list_by_status_paginated(make_tournament, auth_client):
    for i in range(3):
        make_tournament(name=f"T{i}", starts_at=timezone.now() + timedelta(days=i + 1))
    finished = make_tournament(name="old")
    Tournament.objects.filter(pk=finished.pk).update(status="finished")
    page = auth_client.get("/api/tournaments/?page_size=2").json()
    assert page["count"] == 4 and len(page["results"]) == 2 and page["next"]
    assert [t["name"] for t in auth_client.get("/api/tournaments/?status=finished").json()["results"]] == ["old"]
    assert auth_client.get("/api/tournaments/?status=scheduled").json()["count"] == 3
    bad = auth_client.get("/api/tournaments/?status=paused")
    assert bad.status_code == 400 and bad.json()["code"] == "invalid"
    assert APIClient().get("/api/tournaments/").status_code == 200  # public (docs/api.md "Anonymous reads")


def test_register_withdraw_and_every_refusal(bots, make_tournament, settings):
    settings.GOAT_INITIAL_CHIPS = 100
    a, b, c, poor = bots(4)
    tournament = make_tournament(starts_at=timezone.now() + timedelta(hours=1), max_players=2, entry_fee=60,
                                 table_size=2)
    url = f"/api/tournaments/{tournament.pk}/registration/"
    response = token_client(a).post(url)
    assert response.status_code == 201 and response.json()["fee_paid"] == 60
    assert ChipAccount.objects.get(player=a).balance == 40
    again = token_client(a).post(url)
    assert again.status_code == 409 and again.json()["code"] == "already_registered"

    ChipAccount.objects.create(player=poor, balance=0)
    from ratings.models import ChipLedgerEntry
    ChipLedgerEntry.objects.create(player=poor, amount=0, kind="initial", at=timezone.now())
    broke = token_client(poor).post(url)
    assert broke.status_code == 422 and broke.json()["code"] == "insufficient_chips"

    assert token_client(b).post(url).status_code == 201
    full = token_client(c).post(url)
    assert full.status_code == 422 and full.json()["code"] == "tournament_full"
    tournament.refresh_from_db()
    assert tournament.prize_pool == 120
    assert chips_total() == chips_granted()

    # withdraw before the start: refunded, and the place is free again
    assert token_client(b).delete(url).status_code == 204
    assert ChipAccount.objects.get(player=b).balance == 100
    missing = token_client(b).delete(url)
    assert missing.status_code == 404 and missing.json()["code"] == "not_registered"
    assert token_client(c).post(url).status_code == 201
    tournament.refresh_from_db()
    assert tournament.prize_pool == 120
    assert chips_total() == chips_granted()

    # after the start (swiss): closed both ways
    Tournament.objects.filter(pk=tournament.pk).update(starts_at=timezone.now() - timedelta(seconds=1))
    services.tournaments_start_due()
    late = token_client(b).post(url)
    assert late.status_code == 422 and late.json()["code"] == "registration_closed"
    leave = token_client(a).delete(url)
    assert leave.status_code == 422 and leave.json()["code"] == "registration_closed"
    assert Registration.objects.filter(tournament=tournament).count() == 2

    assert token_client(a).post("/api/tournaments/999999/registration/").status_code == 404
    assert APIClient().post(url).status_code == 401


def test_detail_standings_and_the_games_filter(bots, make_tournament, auth_client):
    players = bots(5)
    tournament = make_tournament(table_size=2, rounds=1)
    other = make_tournament(name="other", table_size=2, rounds=1)
    for player in players:
        services.tournament_register(tournament_id=tournament.pk, player=player)

    before = auth_client.get(f"/api/tournaments/{tournament.pk}/standings/").json()
    assert [r["player"] for r in before["results"]] == [p.username for p in players]

    services.tournaments_start_due()
    detail = auth_client.get(f"/api/tournaments/{tournament.pk}/")
    assert detail.status_code == 200
    data = detail.json()
    assert data["status"] == "running" and data["players"] == 5
    assert [r["number"] for r in data["played_rounds"]] == [1]
    assert data["played_rounds"][0]["bye"] == players[-1].username  # 5 players at tables of 2: one bye
    assert len(data["tables"]) == 2
    table = data["tables"][0]
    assert table["round"] == 1 and table["status"] == "running" and len(table["players"]) == 2
    assert table["turn"] in (0, 1) and table["points"] == [0, 0]

    games = auth_client.get(f"/api/games/?tournament={tournament.pk}").json()
    assert sorted(g["id"] for g in games["results"]) == sorted(t["game"] for t in data["tables"])
    assert auth_client.get(f"/api/games/?tournament={other.pk}").json()["count"] == 0
    assert Table.objects.filter(tournament=tournament).count() == 2

    standings = auth_client.get(f"/api/tournaments/{tournament.pk}/standings/?page_size=2").json()
    assert standings["count"] == 5 and len(standings["results"]) == 2 and standings["next"]
    top = standings["results"][0]
    assert top == {"rank": 1, "player": players[-1].username, "points": services.BYE_POINTS, "games": 0,
                   "withdrawn": False, "tiebreaks": {"goats": 0, "opponents_points": 0.0, "game_points": 0,
                                                     "byes": 1, "registration_order": 5}}

    for path in ("", "standings/"):
        missing = auth_client.get(f"/api/tournaments/424242/{path}")
        assert missing.status_code == 404 and missing["Content-Type"] == PROBLEM
        assert missing.json()["code"] == "not_found"
    anonymous = APIClient()
    assert anonymous.get(f"/api/tournaments/{tournament.pk}/").json() == auth_client.get(
        f"/api/tournaments/{tournament.pk}/").json()
    assert anonymous.get(f"/api/tournaments/{tournament.pk}/standings/").status_code == 200
