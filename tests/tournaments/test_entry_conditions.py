"""Entry conditions (docs/tournaments.md): min_games, min_rating, max_rating on the ruleset's
all-time board, and the invite code (kept as a keyed digest, never shown back)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from apitest import token_client
from ratings.leaderboards import board_key
from ratings.models import LeaderboardRow
from tournaments import services
from tournaments.models import Registration, Tournament

pytestmark = pytest.mark.django_db(transaction=True)


def create(director_client, **entry):
    body = {"name": "Beginners", "ruleset": "goat-classic", "format": "swiss", "rounds": 2, "table_size": 2,
            "starts_at": (timezone.now() + timedelta(hours=1)).isoformat(), "max_players": 8, "entry": entry}
    response = director_client.post("/api/tournaments/", body, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def board(player, ruleset: str, rating: int, games: int) -> None:
    LeaderboardRow.objects.create(board=board_key("all", ruleset), player=player, username=player.username,
                                  rating=rating, games=games, goats=0)


def register(user, tournament_id: int, **body):
    return token_client(user).post(f"/api/tournaments/{tournament_id}/registration/", body or None, format="json")


def test_rating_and_games_conditions_on_the_rulesets_board(bots, staff):
    newbie, veteran, strong, elsewhere = bots(4)
    board(veteran, "goat-classic", rating=150, games=20)
    board(strong, "goat-classic", rating=900, games=200)
    board(elsewhere, "goat-gamesburg", rating=150, games=50)  # another ruleset's board does not count
    data = create(token_client(staff), min_games=10, min_rating=100, max_rating=500)
    assert data["entry"] == {"min_games": 10, "min_rating": 100, "max_rating": 500, "invite_only": False}
    for user, condition in ((newbie, "min_games"), (elsewhere, "min_games"), (strong, "max_rating")):
        response = register(user, data["id"])
        assert response.status_code == 422 and response.json()["code"] == "entry_condition_not_met"
        assert response.json()["detail"].startswith(condition)
    assert register(veteran, data["id"]).status_code == 201
    low = create(token_client(staff), min_rating=200)
    response = register(veteran, low["id"])
    assert response.status_code == 422 and response.json()["detail"].startswith("min_rating")


def test_invite_code_is_required_compared_and_never_shown(bots, staff):
    invited, guesser = bots(2)
    data = create(token_client(staff), invite_code="river-7731")
    assert data["entry"]["invite_only"] is True
    tournament = Tournament.objects.get(pk=data["id"])
    assert "river-7731" not in str(data) and "river-7731" not in tournament.invite_code_digest
    assert tournament.invite_code_digest == services.invite_code_digest("river-7731")
    for shown in (token_client(invited).get(f"/api/tournaments/{data['id']}/"), APIClient().get("/tournaments/"),
                  APIClient().get(f"/tournaments/{data['id']}/")):
        assert b"river-7731" not in shown.content and b"invite_code_digest" not in shown.content
    missing = register(guesser, data["id"])
    assert missing.status_code == 403 and missing.json()["code"] == "invite_code_required"
    wrong = register(guesser, data["id"], invite_code="river-7732")
    assert wrong.status_code == 403 and wrong.json()["code"] == "invite_code_wrong"
    assert register(guesser, data["id"], invite_code="RIVER-7731").json()["code"] == "invite_code_wrong"
    assert register(invited, data["id"], invite_code="river-7731").status_code == 201
    assert list(Registration.objects.values_list("player__username", flat=True)) == [invited.username]


def test_the_code_is_compared_in_constant_time(monkeypatch, bots, make_tournament):
    [player] = bots(1)
    tournament = make_tournament(starts_at=timezone.now() + timedelta(hours=1), entry={"invite_code": "abcd-1234"})
    compared = []
    real = services.entry.constant_time_compare
    monkeypatch.setattr(services.entry, "constant_time_compare", lambda a, b: compared.append((a, b)) or real(a, b))
    services.tournament_register(tournament_id=tournament.pk, player=player, invite_code="abcd-1234")
    assert compared == [(services.invite_code_digest("abcd-1234"), tournament.invite_code_digest)]


@pytest.mark.parametrize("entry, field", [
    ({"min_rating": 500, "max_rating": 100}, "entry"),
    ({"invite_code": "abc"}, "entry"),
    ({"invite_code": "abcd"}, "entry"),  # issue 35: at least 8 characters
    ({"invite_code": "abcd-12"}, "entry"),
    ({"min_games": -1}, "entry"),
    ({"colour": "red"}, "entry"),
    ({"invite_code": 1234}, "entry"),
])
def test_bad_entry_conditions_are_400_naming_the_field(staff, entry, field):
    body = {"name": "x", "ruleset": "goat-classic", "format": "swiss", "rounds": 1, "table_size": 2,
            "starts_at": (timezone.now() + timedelta(hours=1)).isoformat(), "max_players": 8, "entry": entry}
    response = token_client(staff).post("/api/tournaments/", body, format="json")
    assert response.status_code == 400 and response.json()["code"] == "invalid"
    assert field in response.json()["errors"]
    assert not Tournament.objects.exists()


@pytest.fixture
def invite_rates(monkeypatch):
    from rest_framework.throttling import SimpleRateThrottle

    monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, "invite_player", "3/hour")
    monkeypatch.setitem(SimpleRateThrottle.THROTTLE_RATES, "invite_tournament", "5/hour")


def test_wrong_invite_codes_are_throttled_per_player(bots, staff, invite_rates):
    """Issue 35: a player guessing codes is stopped after a few wrong ones, in every tournament, even
    with the right code next; another player is not."""
    guesser, other = bots(2)
    first = create(token_client(staff), invite_code="river-7731")
    second = create(token_client(staff), invite_code="delta-0042")
    codes = [register(guesser, first["id"], invite_code=f"guess-{i:04}").json()["code"] for i in range(3)]
    assert codes == ["invite_code_wrong"] * 3
    over = register(guesser, second["id"], invite_code="guess-9999")
    assert over.status_code == 429 and over.json()["code"] == "throttled" and int(over["Retry-After"]) > 3000
    assert register(guesser, first["id"], invite_code="river-7731").status_code == 429
    assert register(other, first["id"], invite_code="river-7731").status_code == 201


def test_wrong_invite_codes_are_throttled_per_tournament_and_a_right_code_costs_nothing(bots, staff, invite_rates):
    """Many accounts guessing one tournament's code are stopped together; right codes do not count, and
    (issue 56) past the tournament's rate a player who has not guessed still gets in with the right code:
    the guessers cannot lock the rightful entrants out."""
    players = bots(12)
    data = create(token_client(staff), invite_code="river-7731")
    other = create(token_client(staff), invite_code="delta-0042")
    for player in players[:4]:  # right codes: no failed attempt
        assert register(player, data["id"], invite_code="river-7731").status_code == 201
    statuses = [register(player, data["id"], invite_code="guess-0000").status_code for player in players[4:9]]
    assert statuses == [403] * 5  # the tournament's rate is full now
    assert register(players[4], data["id"], invite_code="river-7731").status_code == 429  # a guesser
    assert register(players[9], data["id"], invite_code="river-7731").status_code == 201  # never guessed
    assert register(players[10], data["id"], invite_code="guess-0001").status_code == 403  # one attempt ...
    assert register(players[10], data["id"], invite_code="river-7731").status_code == 429  # ... and no more
    assert register(players[11], other["id"], invite_code="delta-0042").status_code == 201  # another tournament
