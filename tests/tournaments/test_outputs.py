"""The tournament outputs (docs/tournaments.md): the crosstable, results.csv and a player's
tournaments, read by anyone; and the crosstable on the public tournament page."""

from __future__ import annotations

import csv
import io

import pytest
from rest_framework.test import APIClient

from goat.games.computer import stand_ins_play
from tournaments import selectors, services
from tournaments.models import Bye, Registration, Seating, Standing, Table

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def finished_swiss(bots, make_tournament):
    """5 players at tables of 2 for 2 rounds (a bye each round), entry fee 10, played to the end."""
    players = bots(5)
    tournament = make_tournament(rounds=2, table_size=2, entry_fee=10)
    for player in players:
        services.tournament_register(tournament_id=tournament.pk, player=player)
    services.tournaments_start_due()
    stand_ins_play(prefix="bot", until_done=True, seed=3)
    tournament.refresh_from_db()
    assert tournament.status == "finished"
    return tournament


def test_the_crosstable_lists_every_game_in_play_order_in_standings_order(finished_swiss):
    anonymous = APIClient()
    response = anonymous.get(f"/api/tournaments/{finished_swiss.pk}/crosstable/?page_size=2")
    assert response.status_code == 200, response.content
    page = response.json()
    assert page["count"] == 5 and len(page["results"]) == 2 and page["next"]
    paged = page["results"]
    while page["next"]:
        page = anonymous.get(page["next"]).json()
        paged += page["results"]
    rows = anonymous.get(f"/api/tournaments/{finished_swiss.pk}/crosstable/").json()["results"]
    assert paged == rows
    standings = list(Standing.objects.filter(tournament=finished_swiss).order_by("rank"))
    assert [r["player"] for r in rows] == [s.username for s in standings]
    assert [r["rank"] for r in rows] == [1, 2, 3, 4, 5]
    byes = {b.player.username for b in Bye.objects.filter(tournament=finished_swiss)}
    assert len(byes) == 2  # two rounds, five players at tables of two: one bye a round, to two players
    for row, line in zip(rows, standings, strict=True):
        assert len(row["games"]) == line.games == 2 - (row["player"] in byes)  # a bye is no game
        assert [g["round"] for g in row["games"]] == sorted(g["round"] for g in row["games"])
        assert sum(g["rating_points"] for g in row["games"]) + 5 * (row["player"] in byes) == line.points
        assert sum(g["points"] for g in row["games"]) == line.game_points
        assert sum(g["goat"] for g in row["games"]) == line.goats
        for g in row["games"]:
            table = Table.objects.get(game_id=g["game"])
            seat = next(s for s in table.game.seat_set.all() if s.player.username == row["player"])
            assert g["table"] == table.number and g["round"] == table.round.number and g["status"] == "finished"
            assert g["rating_points"] == table.game.result["rating_points"][seat.seat]
            assert g["goat"] == (seat.seat in table.game.result["goats"])
            assert g["opponents"] == [s.player.username for s in table.game.seat_set.order_by("seat")
                                      if s.seat != seat.seat]


def test_a_running_game_is_in_the_crosstable_without_an_outcome(bots, make_tournament):
    players = bots(2)
    tournament = make_tournament(rounds=1, table_size=2)
    for player in players:
        services.tournament_register(tournament_id=tournament.pk, player=player)
    services.tournaments_start_due()
    rows = APIClient().get(f"/api/tournaments/{tournament.pk}/crosstable/").json()["results"]
    assert [len(r["games"]) for r in rows] == [1, 1]
    game = rows[0]["games"][0]
    assert game["status"] == "running" and game["points"] is None and game["rating_points"] is None
    assert game["goat"] is None and game["opponents"] == [rows[1]["player"]]


def test_results_csv_has_a_header_and_one_row_per_player_with_every_tiebreak(finished_swiss):
    response = APIClient().get(f"/api/tournaments/{finished_swiss.pk}/results.csv", HTTP_ACCEPT="text/csv")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert "attachment" in response["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8"))))
    assert tuple(rows[0]) == selectors.RESULTS_COLUMNS
    assert "opponents_points" in rows[0] and "goats" in rows[0] and "game_points" in rows[0]
    body = [dict(zip(rows[0], r, strict=True)) for r in rows[1:]]
    standings = list(Standing.objects.filter(tournament=finished_swiss).order_by("rank"))
    assert [r["player"] for r in body] == [s.username for s in standings]
    for r, s in zip(body, standings, strict=True):
        assert (int(r["rank"]), int(r["points"]), int(r["goats"]), r["opponents_points"], int(r["game_points"])) \
            == (s.rank, s.points, s.goats, f"{s.opponents_points:.2f}", s.game_points)
        assert r["withdrawn"] == "false"
    assert sum(int(r["prize"]) for r in body) == 50  # the whole pool, to the top three
    assert APIClient().get("/api/tournaments/999999/results.csv").status_code == 404


def test_results_csv_is_utf8_and_defuses_formula_looking_names(django_user_model, make_tournament):
    tournament = make_tournament()
    for name in ("Козёл", "+plus", "-minus", "@at"):
        services.tournament_register(tournament_id=tournament.pk,
                                     player=django_user_model.objects.create_user(username=name, password="x"))
    response = APIClient().get(f"/api/tournaments/{tournament.pk}/results.csv")
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8"))))
    assert [r[1] for r in rows[1:]] == ["Козёл", "'+plus", "'-minus", "'@at"]


def test_a_players_tournaments(finished_swiss, bots, make_tournament, django_user_model):
    later = make_tournament(name="Next week")
    player = django_user_model.objects.get(username="bot01")
    services.tournament_register(tournament_id=later.pk, player=player)
    response = APIClient().get("/api/players/BOT01/tournaments/")  # the name compared in its normal form
    assert response.status_code == 200, response.content
    data = response.json()
    assert data["count"] == 2
    line = Standing.objects.get(tournament=finished_swiss, player=player)
    by_id = {r["tournament"]: r for r in data["results"]}
    assert by_id[finished_swiss.pk] | {"starts_at": None} == {
        "tournament": finished_swiss.pk, "name": "Friday swiss", "status": "finished", "format": "swiss",
        "starts_at": None, "rank": line.rank, "points": line.points, "games": line.games, "withdrawn": False}
    assert by_id[later.pk]["rank"] is None and by_id[later.pk]["status"] == "scheduled"
    assert APIClient().get("/api/players/nobody/tournaments/").json()["code"] == "not_found"


def test_the_public_page_shows_the_crosstable_and_the_withdrawn_mark(finished_swiss):
    gone = Registration.objects.filter(tournament=finished_swiss).order_by("id").last()
    Standing.objects.filter(tournament=finished_swiss, player=gone.player).update(withdrawn=True)
    html = APIClient().get(f"/tournaments/{finished_swiss.pk}/").content.decode()
    assert 'id="crosstable"' in html
    some_game = Seating.objects.filter(tournament=finished_swiss).first().table.game_id
    assert f'class="xgame" data-game="{some_game}"' in html
    assert html.count('class="badge withdrawn"') == 2  # in the standings and in the crosstable
