"""One full run through the API alone (issue #28's note): a swiss of five with a withdrawal, from its
creation to its prizes, then its crosstable and results.csv. ``pytest -s`` prints them."""

from __future__ import annotations

import csv
import io
import json
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient
from tournament_helpers import FAST, chips_granted, chips_total

from apitest import token_client

pytestmark = [pytest.mark.database, pytest.mark.django_db(transaction=True)]


def ok(response, status: int = 200):
    assert response.status_code == status, response.content
    return response.json()


def play_round(clients: dict, detail: dict, number: int) -> None:
    """Every player of round ``number`` plays their first legal move whenever it is their turn."""
    games = [t["game"] for t in detail["tables"] if t["round"] == number]
    for game_id in games:
        players = next(t["players"] for t in detail["tables"] if t["game"] == game_id)
        while True:
            views = [ok(clients[p].get(f"/api/games/{game_id}/")) for p in players]
            if views[0]["status"] != "running":
                break
            mover = next(v for v in views if v["legal_moves"])
            move = mover["legal_moves"][0]
            ok(clients[mover["seats"][mover["your_seat"]]["player"]].post(
                f"/api/games/{game_id}/moves/", move, format="json"), 201)


def test_a_swiss_with_a_withdrawal_run_through_the_api(django_user_model, staff, settings, capsys):
    settings.GOAT_INITIAL_CHIPS = 1000
    names = ["anna", "boris", "vera", "gleb", "daria"]
    clients = {n: token_client(django_user_model.objects.create_user(username=n, password="x")) for n in names}
    director = token_client(staff)
    t = ok(director.post("/api/tournaments/", {
        "name": "Full run", "ruleset": "goat-classic", "options": dict(FAST), "format": "swiss", "rounds": 3,
        "table_size": 2, "starts_at": (timezone.now() + timedelta(hours=1)).isoformat(), "max_players": 8,
        "entry_fee": 100, "entry": {"min_games": 0}}, format="json"), 201)
    for n in names:
        ok(clients[n].post(f"/api/tournaments/{t['id']}/registration/"), 201)
    detail = ok(director.post(f"/api/tournaments/{t['id']}/start/"))
    assert detail["status"] == "running" and detail["prize_pool"] == 500

    play_round(clients, detail, 1)
    detail = ok(director.get(f"/api/tournaments/{t['id']}/"))
    assert [r["number"] for r in detail["played_rounds"]] == [1, 2]
    # in round 2, the second player at the first table withdraws mid-game: the game is resigned
    table = next(x for x in detail["tables"] if x["round"] == 2 and x["number"] == 1)
    quitter = table["players"][1]
    gone = ok(clients[quitter].post(f"/api/tournaments/{t['id']}/withdraw/"))
    assert gone["player"] == quitter
    game = ok(clients[quitter].get(f"/api/games/{table['game']}/"))
    assert game["status"] == "interrupted" and game["result"]["reason"] == "resigned"
    assert game["result"]["goats"] == [1] and game["result"]["rating_points"][1] == 0
    detail = ok(director.get(f"/api/tournaments/{t['id']}/"))
    for number in (2, 3):
        play_round(clients, detail, number)
        detail = ok(director.get(f"/api/tournaments/{t['id']}/"))
    assert detail["status"] == "finished"
    assert not [x for x in detail["tables"] if x["round"] == 3 and quitter in x["players"]]
    assert sum(p["amount"] for p in detail["prizes"]) == 500
    assert chips_total() == chips_granted()

    standings = ok(director.get(f"/api/tournaments/{t['id']}/standings/"))["results"]
    crosstable = ok(APIClient().get(f"/api/tournaments/{t['id']}/crosstable/"))["results"]
    results = APIClient().get(f"/api/tournaments/{t['id']}/results.csv")
    assert results.status_code == 200
    rows = list(csv.reader(io.StringIO(results.content.decode())))
    assert [r[1] for r in rows[1:]] == [s["player"] for s in standings] == [c["player"] for c in crosstable]
    assert [s["withdrawn"] for s in standings if s["player"] == quitter] == [True]
    assert rows[0][:7] == ["rank", "player", "points", "games", "goats", "opponents_points", "game_points"]

    with capsys.disabled():
        print("\n--- standings ---")
        for s in standings:
            print(json.dumps(s, ensure_ascii=False))
        print("--- crosstable ---")
        for c in crosstable:
            print(c["rank"], c["player"], "(withdrawn)" if c["withdrawn"] else "")
            for g in c["games"]:
                print("   ", json.dumps(g, ensure_ascii=False))
        print("--- results.csv ---")
        print(results.content.decode().strip())
        print("--- prizes ---", json.dumps(detail["prizes"]))
