"""The second edition of the rules (issue 20) through the service: new games get the new presets and
the API validates the new option; the view's ``points`` follow ``remembered_counts`` while the
scoresheet still shows remembered points (D-8); domino-3rounds round winners on the API scoresheet,
the admin scoresheet, its CSV export and the admin replay (docs/rules.md §8)."""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.test import Client
from golden_games import golden_log, record_logged_game
from rest_framework.test import APIClient

from goat.engine.rulesets import PRESETS
from goat.games import eventstore

pytestmark = pytest.mark.django_db


def _api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def admin_client(django_user_model) -> Client:
    client = Client()
    client.force_login(django_user_model.objects.create_superuser(username="root", password="x" * 12))
    return client


# --- new games, option validation ----------------------------------------------------------------


@pytest.mark.parametrize("ruleset", ["goat-classic", "goat-gamesburg", "domino-3rounds"])
def test_a_new_game_gets_the_second_edition_preset(auth_client, ruleset):
    response = auth_client.post("/api/games/", {"ruleset": ruleset, "seats": 2}, format="json")
    assert response.status_code == 201, response.json()
    options = response.json()["options"]
    assert options == PRESETS[ruleset]
    assert options["remembered_counts"] is {"goat-classic": True, "goat-gamesburg": False}.get(ruleset)
    assert options["opener"] == ("smallest_double" if ruleset == "domino-3rounds" else "doubles_from_one_by_sum")


def test_the_api_takes_remembered_counts_and_the_first_edition_opener_as_options(auth_client):
    response = auth_client.post("/api/games/", {"ruleset": "goat-gamesburg", "seats": 3, "options": {
        "remembered_counts": True, "opener": "doubles_from_one"}}, format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["options"]["remembered_counts"] is True
    assert response.json()["options"]["opener"] == "doubles_from_one"


@pytest.mark.parametrize(("options", "detail"), [
    ({"remembered_counts": "yes"}, "option 'remembered_counts' must be true or false."),
    ({"remembered_counts": None}, "goat scoring needs option 'remembered_counts'."),
    ({"opener": "by_sum"}, "option 'opener' must be one of: doubles_from_one, doubles_from_one_by_sum, "
                           "smallest_double."),
])
def test_the_api_refuses_a_bad_remembered_counts_or_opener(auth_client, options, detail):
    response = auth_client.post("/api/games/", {"ruleset": "goat-gamesburg", "seats": 2, "options": options},
                                format="json")
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_options" and response.json()["detail"] == detail


# --- D-8: the view's points, the scoresheet's remembered points ----------------------------------


def test_gamesburg_view_points_are_the_score_alone_and_the_scoresheet_shows_remembered(django_user_model):
    game = record_logged_game(golden_log("2e-gamesburg-3-remembered"), django_user_model)
    client = _api(django_user_model.objects.get(username="bot0"))
    seats = client.get(f"/api/games/{game.pk}/").json()["seats"]
    assert [(s["open"], s["score"], s["remembered"], s["points"]) for s in seats] == [
        (False, 0, 10, 0), (False, 0, 0, 0), (True, 134, 0, 134)]
    sheet = client.get(f"/api/games/{game.pk}/scoresheet/").json()
    assert [(t["remembered"], t["points"]) for t in sheet["totals"]] == [(10, 0), (0, 0), (0, 134)]
    assert sheet["rounds"][-1]["players"][0] == {"open": False, "score": 0, "remembered": 10, "points": 0}
    assert all("winners" not in r for r in sheet["rounds"])  # goat rounds name no round winner
    assert game.result["winners"] == [0, 1] and game.result["rating_points"] == [10, 10, 0]


def test_first_edition_gamesburg_view_points_count_remembered(django_user_model):
    game = record_logged_game(golden_log("gamesburg-3-remembered"), django_user_model)
    client = _api(django_user_model.objects.get(username="bot0"))
    seats = client.get(f"/api/games/{game.pk}/").json()["seats"]
    assert (seats[0]["remembered"], seats[0]["points"]) == (10, 10)
    assert game.result["winners"] == [1] and game.result["rating_points"] == [9, 10, 0]


def test_admin_scoresheet_says_remembered_points_are_not_counted(admin_client, django_user_model):
    game = record_logged_game(golden_log("2e-gamesburg-3-remembered"), django_user_model)
    html = admin_client.get(f"/admin/goat/game/{game.pk}/change/").content.decode()
    # the one scoresheet: the remembered 10 in brackets, a total of 0, and the legend says why
    assert '<span class="remembered">(10)</span>' in html and "count once the player has opened" in html
    rows = list(csv.reader(io.StringIO(
        admin_client.get(f"/admin/goat/game/{game.pk}/export/scoresheet.csv").content.decode())))
    last = rows[-3]
    assert (last[4], last[5], last[6], last[8]) == ("10", "0", "0", "")  # remembered 10, points 0, no round winner


# --- §8: round winners ----------------------------------------------------------------------------


@pytest.fixture
def rounds_game(django_user_model):
    return record_logged_game(golden_log("2e-3rounds-3-rounds"), django_user_model)


def test_api_scoresheet_names_each_rounds_winners(rounds_game, django_user_model):
    state = eventstore.state_load(rounds_game)
    sheet = _api(django_user_model.objects.get(username="bot0")).get(f"/api/games/{rounds_game.pk}/scoresheet/")
    rounds = sheet.json()["rounds"]
    assert len(rounds) == 3
    for row, record in zip(rounds, state.rounds, strict=True):
        assert row["winners"] == list(record.winners) == [s for s, h in enumerate(row["hands"])
                                                          if h == min(row["hands"])]


def test_admin_scoresheet_and_csv_show_the_round_winners(admin_client, rounds_game):
    state = eventstore.state_load(rounds_game)
    html = admin_client.get(f"/admin/goat/game/{rounds_game.pk}/change/").content.decode()
    sheet = html[html.index('id="scoresheet"'):html.index("</table>", html.index('id="scoresheet"'))]
    rows = sheet.split('<tr class="round-result')[1:]
    assert len(rows) == 3
    for record, row in zip(state.rounds, rows, strict=True):  # each winner's cell marked, no other
        marked = [int(seat) for seat in re.findall(r'<td class="cell[^"]* round-winner" data-seat="(\d)"', row)]
        assert marked == sorted(record.winners) and row.count("★") == len(record.winners)
    rows = list(csv.reader(io.StringIO(
        admin_client.get(f"/admin/goat/game/{rounds_game.pk}/export/scoresheet.csv").content.decode())))
    assert rows[0][-1] == "round_winner"
    body = rows[1:]
    assert len(body) == 3 * state.seats
    for i, row in enumerate(body):
        record, seat = state.rounds[i // state.seats], i % state.seats
        assert row[-1] == ("yes" if seat in record.winners else "no")


def test_admin_replay_shows_the_winners_of_the_round_just_ended(admin_client, rounds_game):
    log = golden_log("2e-3rounds-3-rounds")
    state = eventstore.state_load(rounds_game)
    # the event that ends round 1: the last event before round 2 is dealt
    deal_2 = next(e["seq"] for e in log if e["type"] == "round_dealt" and e["data"]["round"] == 2)
    html = admin_client.get(f"/admin/goat/game/{rounds_game.pk}/replay/?step={deal_2 - 1}").content.decode()
    html = re.sub(r"<[^>]+>", "", html)  # each name is a link to its player's page
    winners = state.rounds[0].winners
    label = "round winner:" if len(winners) == 1 else "round winners:"
    assert f"{label} {', '.join(state.players[s] for s in winners)}" in html
    html = admin_client.get(f"/admin/goat/game/{rounds_game.pk}/replay/?step={deal_2 + 1}").content.decode()
    assert "round winner" not in html


# --- docs ------------------------------------------------------------------------------------------


def test_decisions_md_mirrors_the_second_editions_numbered_decisions_with_their_seed_sentences():
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "decisions.md").read_text(encoding="utf-8")
    for number in (5, 8, 15, 16, 17, 18, 19, 20, 21, 22, 23):
        assert f"**D-{number}," in text, number
    for sentence in ("descending the bone values", "приписывается игроку в том случае, если он наберет более 12",
                     "запомненные\n  очки, итоговый счет", "Антэ (Ante) - начальная ставка",
                     "in addition to his account", "«рыба на одного»", "все шесть костяшек с одинаковым значением"):
        assert sentence in text, sentence
