"""Private tables by link (docs/api.md "Private tables"): an open challenge's link seats whoever
holds it until the table is full; its game is never listed in the lobby or on the home page, and
while it runs only its players and staff see it; once ended, everyone."""

from __future__ import annotations

import pytest
from django.test import Client
from factories import committed, make_players, play
from rest_framework.test import APIClient

from apitest import assert_problem, token_client
from challenges import services
from challenges.models import Challenge
from goat.games.models import Game, Seat

pytestmark = pytest.mark.django_db

FAST = {"limit": 25, "move_time": 0}


@pytest.fixture
def people():
    return make_players("masha", "petya", "vasya", "olga")


def open_challenge(challenger, seats=3):
    with committed():
        answer = token_client(challenger).post("/api/challenges/", {"ruleset": "goat-classic", "seats": seats,
                                                                    "options": FAST}, format="json")
    assert answer.status_code == 201, answer.content
    return answer.json()


def test_the_link_is_the_challengers_and_seats_holders_until_full(people):
    masha, petya, vasya, olga = people
    body = open_challenge(masha)
    assert body["private"] is True and len(body["code"]) >= 32
    assert body["link"] == f"http://testserver/play/c/{body['code']}/"
    # nobody else sees the code, not even who joined
    with committed():
        joined = token_client(petya).post(f"/api/challenges/{body['id']}/accept/", {"code": body["code"]},
                                          format="json")
    assert joined.status_code == 200 and joined.json()["code"] is None and joined.json()["link"] is None
    assert joined.json()["opponents"] == [{"player": "petya", "answer": "accepted", "named": False, "reason": None,
                                           "bot": False}]
    assert joined.json()["game"] is None
    assert token_client(petya).get(f"/api/challenges/{body['id']}/").status_code == 200  # a joiner sees it
    assert_problem(token_client(petya).post(f"/api/challenges/{body['id']}/decline/", {}, format="json"),
                   403, "permission_denied")
    with committed():
        full = token_client(vasya).post(f"/api/challenges/{body['id']}/accept/", {"code": body["code"]},
                                        format="json").json()
    assert full["status"] == "accepted" and full["game"]
    game = Game.objects.get(pk=full["game"])
    assert game.private and game.status == "running"
    assert sorted(Seat.objects.filter(game=game).values_list("player__username", flat=True)) == \
        ["masha", "petya", "vasya"]
    assert_problem(token_client(olga).post(f"/api/challenges/{body['id']}/accept/", {"code": body["code"]},
                                           format="json"), 409, "challenge_not_open")


def test_a_wrong_code_is_refused_and_guessing_is_throttled(people, settings):
    masha, petya, *_ = people
    body = open_challenge(masha)
    assert_problem(token_client(petya).post(f"/api/challenges/{body['id']}/accept/", {"code": "x" * 32},
                                            format="json"), 403, "challenge_code_wrong")
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "challenge_code_player": "3/hour"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    from rest_framework import throttling

    throttling.SimpleRateThrottle.THROTTLE_RATES = rates
    try:
        client = token_client(petya)
        codes = [client.post(f"/api/challenges/{body['id']}/accept/", {"code": f"guess{i}"}, format="json")
                 for i in range(4)]
        assert [c.status_code for c in codes] == [403, 403, 429, 429]  # the first wrong one counted already
        assert codes[-1]["Retry-After"]
        # the right code is throttled too once over the rate: guessing cannot be told from knowing
        assert client.post(f"/api/challenges/{body['id']}/accept/", {"code": body["code"]},
                           format="json").status_code == 429
    finally:
        throttling.SimpleRateThrottle.THROTTLE_RATES = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    assert Challenge.objects.get().entries.count() == 0


def test_without_the_code_a_stranger_learns_nothing(people):
    masha, petya, *_ = people
    body = open_challenge(masha)
    assert_problem(token_client(petya).post(f"/api/challenges/{body['id']}/accept/", {}, format="json"),
                   404, "not_found")
    assert_problem(token_client(petya).get(f"/api/challenges/{body['id']}/"), 404, "not_found")


def test_a_private_game_is_hidden_while_it_runs_and_public_once_ended(people, django_user_model):
    masha, petya, vasya, olga = people
    body = open_challenge(masha, seats=2)
    with committed():
        game_id = token_client(petya).post(f"/api/challenges/{body['id']}/accept/", {"code": body["code"]},
                                           format="json").json()["game"]
    staff = django_user_model.objects.create_user(username="staff", password="x" * 12, is_staff=True)
    for who, seen in ((masha, 200), (petya, 200), (staff, 200), (vasya, 404)):
        assert token_client(who).get(f"/api/games/{game_id}/").status_code == seen, who
        assert token_client(who).get(f"/api/games/{game_id}/events/").status_code == seen, who
    assert APIClient().get(f"/api/games/{game_id}/").status_code == 404
    assert Client().get(f"/games/{game_id}/").status_code == 404
    vasya_page = Client()
    vasya_page.force_login(vasya)
    assert vasya_page.get(f"/play/{game_id}/").status_code == 404
    masha_page = Client()
    masha_page.force_login(masha)
    assert masha_page.get(f"/play/{game_id}/").status_code == 200
    assert masha_page.get(f"/games/{game_id}/").status_code == 200
    # never listed: not in the public game list, the lobby, the home page or another's player page
    assert game_id not in [g["id"] for g in APIClient().get("/api/games/?status=running").json()["results"]]
    assert game_id not in [g["id"] for g in token_client(vasya).get("/api/games/").json()["results"]]
    assert f'/games/{game_id}/"' not in Client().get("/players/masha/").content.decode()
    assert game_id in [g["id"] for g in token_client(masha).get("/api/players/me/games/").json()["results"]]
    # its stream and its record too (404, not the record's 409: a stranger learns nothing of it)
    assert APIClient().get(f"/api/games/{game_id}/stream/").status_code == 404
    assert token_client(vasya).get(f"/api/games/{game_id}/record/").status_code == 404
    assert token_client(masha).get(f"/api/games/{game_id}/record/").status_code == 409

    game = play(Game.objects.get(pk=game_id), _seated(game_id))
    assert game.ended
    assert APIClient().get(f"/api/games/{game_id}/").status_code == 200
    assert Client().get(f"/games/{game_id}/").status_code == 200
    assert APIClient().get(f"/api/games/{game_id}/record/").status_code == 200
    assert f'/games/{game_id}/' in Client().get("/players/masha/").content.decode()
    assert f'/games/{game_id}/' not in Client().get("/").content.decode()  # the home page: never


def _seated(game_id):
    return [seat.player for seat in Seat.objects.filter(game_id=game_id).select_related("player").order_by("seat")]


def test_the_link_page_seats_a_signed_in_visitor_and_goes_to_the_table(people):
    masha, petya, vasya, _ = people
    body = open_challenge(masha, seats=3)
    link = f"/play/c/{body['code']}/"
    anonymous = Client().get(link)
    assert anonymous.status_code == 200 and 'name="next" value="' + link + '"' in anonymous.content.decode()
    page = Client()
    page.force_login(petya)
    shown = page.get(link)
    assert shown.status_code == 200 and 'id="challenge-accept"' in shown.content.decode()
    assert "masha" in shown.content.decode()
    with committed():
        taken = page.post(link)
    assert taken.status_code == 200 and 'id="challenge-waiting"' in taken.content.decode()
    assert page.get(link).status_code == 200
    other = Client()
    other.force_login(vasya)
    with committed():
        started = other.post(link)
    game_id = Challenge.objects.get().game_id
    assert started.status_code == 302 and started["Location"] == f"/play/{game_id}/"
    assert page.get(link)["Location"] == f"/play/{game_id}/"  # the first one goes to the table too
    assert Client().get("/play/c/not-a-code/").status_code == 200  # anonymous: the sign-in form
    assert other.get("/play/c/not-a-code/").status_code == 404


def test_the_link_page_speaks_russian(people):
    masha, petya, *_ = people
    body = open_challenge(masha)
    page = Client(HTTP_ACCEPT_LANGUAGE="ru")
    page.force_login(petya)
    text = page.get(f"/play/c/{body['code']}/").content.decode()
    assert "Занять место" in text and "Свободно 2 места." in text


def test_services_refuse_a_second_link_seat_while_named_players_have_yet_to_answer(people):
    masha, petya, vasya, olga = people
    challenge = services.challenge_create(challenger=masha, opponents=["petya"], ruleset="goat-classic", seats=3,
                                          options=FAST)
    assert challenge.code
    services.challenge_accept(challenge_id=challenge.pk, player=vasya, code=challenge.code)
    with pytest.raises(Exception) as refused:
        services.challenge_accept(challenge_id=challenge.pk, player=olga, code=challenge.code)
    assert refused.value.code == "challenge_full"
    done = services.challenge_accept(challenge_id=challenge.pk, player=petya)
    assert done.status == "accepted" and Game.objects.get(pk=done.game_id).private
