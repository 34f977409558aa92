"""A goat-pairs challenge names the partner and the other pair (docs/api.md "Pairs"): the partner sits
opposite the challenger (seat 2), the opponents at seats 1 and 3; a partner outside goat-pairs, or
without both opponents, is refused and nothing is stored."""

from __future__ import annotations

import pytest
from factories import committed, make_players

from apitest import assert_problem, token_client
from challenges.models import Challenge
from goat.games.models import Game

pytestmark = pytest.mark.django_db


@pytest.fixture
def people():
    return make_players("masha", "alex", "olya", "kolyan")


def test_the_partner_sits_opposite_and_the_opponents_at_the_other_seats(people):
    masha, alex, olya, kolyan = people
    response = token_client(masha).post("/api/challenges/", {
        "ruleset": "goat-pairs", "seats": 4, "partner": "olya", "opponents": ["alex", "kolyan"],
        "options": {"move_time": 0}}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["seating"] == "fixed"
    assert [o["player"] for o in body["opponents"]] == ["alex", "olya", "kolyan"]
    with committed():
        for player in (alex, olya, kolyan):
            accepted = token_client(player).post(f"/api/challenges/{body['id']}/accept/", {}, format="json")
            assert accepted.status_code == 200, accepted.content
    game = Game.objects.get(pk=Challenge.objects.get(pk=body["id"]).game_id)
    view = token_client(masha).get(f"/api/games/{game.pk}/").json()
    assert [(s["player"], s["team"]) for s in view["seats"]] == [
        ("masha", 0), ("alex", 1), ("olya", 0), ("kolyan", 1)]


@pytest.mark.parametrize(("body", "field"), [
    ({"ruleset": "goat-classic", "seats": 4, "partner": "olya", "opponents": ["alex", "kolyan"]}, "partner"),
    ({"ruleset": "goat-pairs", "seats": 4, "partner": "olya", "opponents": ["alex"]}, "opponents"),
    ({"ruleset": "goat-pairs", "seats": 4, "partner": "olya", "opponents": ["alex", "olya"]}, "opponents"),
])
def test_a_partner_the_challenge_cannot_seat_is_refused(people, body, field):
    before = Challenge.objects.count()
    response = token_client(people[0]).post("/api/challenges/", body, format="json")
    assert_problem(response, 400, "invalid")
    assert field in response.json().get("errors", {})
    assert Challenge.objects.count() == before
