"""Challenges over the API (docs/api.md "Challenges"): create, list, read, accept, decline, cancel;
expiry; the caps; every refusal a problem with its code and nothing created."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from factories import committed, finished_game, make_players

from apitest import assert_problem, token_client
from challenges import services
from challenges.models import Challenge, ChallengeEntry
from goat.games.models import Game, Seat
from goat.live import fanout

pytestmark = pytest.mark.django_db

FAST = {"limit": 25, "move_time": 0}


@pytest.fixture
def people():
    return make_players("masha", "petya", "vasya", "olga")


@pytest.fixture
def published(monkeypatch):
    """What is published on the live channels, as (channel, message) pairs."""
    sent: list[tuple[str, dict]] = []
    monkeypatch.setattr(fanout, "publish_all", lambda messages: sent.extend(messages))
    monkeypatch.setattr(fanout, "publish", lambda channel, message: sent.append((channel, message)))
    return sent


def challenge(client, **body):
    with committed():
        return client.post("/api/challenges/", {"ruleset": "goat-classic", "options": FAST, **body}, format="json")


def nothing_created():
    assert Challenge.objects.count() == 0 and ChallengeEntry.objects.count() == 0 and Game.objects.count() == 0


def test_a_named_challenge_accepted_starts_the_game_with_exactly_those_players(people, published):
    masha, petya, *_ = people
    created = challenge(token_client(masha), opponents=["petya"])
    assert created.status_code == 201, created.content
    body = created.json()
    assert body["status"] == "open" and body["challenger"] == "masha" and body["game"] is None
    assert body["opponents"] == [{"player": "petya", "answer": "pending", "named": True, "reason": None, "bot": False}]
    assert body["seats"] == 2 and body["rated"] is True and body["link"] is None and body["code"] is None
    assert body["options"]["limit"] == 25  # resolved: every option named
    assert set(body["options"]) >= {"hand_size", "ante", "move_time"}
    channels = {channel for channel, message in published if message.get("kind") == "challenge"}
    assert channels == {f"player:{masha.pk}", f"player:{petya.pk}"}

    incoming = token_client(petya).get("/api/challenges/?direction=in").json()
    assert [c["id"] for c in incoming["results"]] == [body["id"]]
    assert token_client(petya).get("/api/challenges/?direction=out").json()["count"] == 0
    assert token_client(masha).get("/api/challenges/?direction=out").json()["count"] == 1

    with committed():
        accepted = token_client(petya).post(f"/api/challenges/{body['id']}/accept/", {}, format="json")
    assert accepted.status_code == 200, accepted.content
    game_id = accepted.json()["game"]
    assert accepted.json()["status"] == "accepted" and game_id
    game = Game.objects.get(pk=game_id)
    assert game.status == "running" and game.rated and not game.private
    assert sorted(Seat.objects.filter(game=game).values_list("player__username", flat=True)) == ["masha", "petya"]
    events = [m["data"]["event"] for c, m in published if m.get("kind") == "challenge"]
    assert events[-1] == "started"
    assert any(m.get("kind") == "game_started" for _c, m in published)
    # the game is theirs to play: each sees their hand
    assert len(token_client(petya).get(f"/api/games/{game_id}/").json()["hand"]) == 7


def test_fixed_seating_puts_the_players_in_the_order_named(people):
    masha, petya, vasya, olga = people
    body = challenge(token_client(masha), opponents=["olga", "petya", "vasya"], seating="fixed").json()
    for player in (vasya, olga, petya):
        with committed():
            answer = token_client(player).post(f"/api/challenges/{body['id']}/accept/", {}, format="json")
        assert answer.status_code == 200
    game = Game.objects.get(pk=answer.json()["game"])
    assert list(Seat.objects.filter(game=game).order_by("seat").values_list("player__username", flat=True)) == \
        ["masha", "olga", "petya", "vasya"]


def test_a_game_starts_only_when_every_named_opponent_accepted(people):
    masha, petya, vasya, _ = people
    body = challenge(token_client(masha), opponents=["petya", "vasya"]).json()
    assert body["seats"] == 3
    once = token_client(petya).post(f"/api/challenges/{body['id']}/accept/", {}, format="json")
    again = token_client(petya).post(f"/api/challenges/{body['id']}/accept/", {}, format="json")
    assert once.json()["status"] == again.json()["status"] == "open" and Game.objects.count() == 0
    assert [o["answer"] for o in again.json()["opponents"]] == ["accepted", "pending"]
    done = token_client(vasya).post(f"/api/challenges/{body['id']}/accept/", {}, format="json").json()
    assert done["status"] == "accepted" and Game.objects.get().seats == 3


def test_an_unrated_challenge_makes_an_unrated_game_without_ante(people):
    masha, petya, *_ = people
    body = challenge(token_client(masha), opponents=["petya"], rated=False).json()
    assert body["rated"] is False and body["options"]["ante"] == 0
    game_id = token_client(petya).post(f"/api/challenges/{body['id']}/accept/", {}, format="json").json()["game"]
    game = Game.objects.get(pk=game_id)
    assert game.casual and not game.rated
    assert token_client(masha).get(f"/api/games/{game_id}/").json()["rated"] is False
    refused = challenge(token_client(masha), opponents=["petya"], rated=False, options={"ante": 5})
    assert_problem(refused, 400, "invalid_options")


@pytest.mark.parametrize(("body", "status", "code"), [
    ({"opponents": ["masha"]}, 422, "cannot_challenge_self"),
    ({"opponents": ["nobody"]}, 422, "unknown_player"),
    ({"opponents": ["petya", "vasya"], "seats": 2}, 422, "too_many_opponents"),
    ({"opponents": ["petya", "PETYA"]}, 400, "invalid"),
    ({"opponents": ["petya", "vasya", "olga", "masha"]}, 400, "invalid"),
    ({"opponents": ["petya"], "ruleset": "chess"}, 400, "unknown_ruleset"),
    ({"opponents": ["petya"], "options": {"limit": -3}}, 400, "invalid_options"),
    ({"opponents": ["petya"], "rated": "yes"}, 400, "invalid"),
    ({"opponents": ["petya"], "seating": "by age"}, 400, "invalid"),
    ({"opponents": ["petya"], "colour": "white"}, 400, "invalid"),
    ({"opponents": "petya"}, 400, "invalid"),
])
def test_bad_challenges_are_problems_and_create_nothing(people, body, status, code):
    answer = token_client(people[0]).post("/api/challenges/", {"ruleset": "goat-classic", **body}, format="json")
    assert_problem(answer, status, code)
    nothing_created()


def test_a_closed_account_or_a_computer_cannot_be_challenged(people):
    masha, petya, *_ = people
    petya.is_active = False
    petya.save()
    assert_problem(challenge(token_client(masha), opponents=["petya"]), 422, "account_closed")
    from goat.players.services import computer_accounts

    computer = computer_accounts(count=1)[0]
    assert_problem(challenge(token_client(masha), opponents=[computer.username]), 422, "computer_player")
    nothing_created()


def test_only_those_named_see_a_challenge(people, django_user_model):
    masha, petya, vasya, _ = people
    body = challenge(token_client(masha), opponents=["petya"]).json()
    assert token_client(petya).get(f"/api/challenges/{body['id']}/").status_code == 200
    assert_problem(token_client(vasya).get(f"/api/challenges/{body['id']}/"), 404, "not_found")
    assert_problem(token_client(vasya).post(f"/api/challenges/{body['id']}/accept/", {}, format="json"),
                   404, "not_found")
    staff = django_user_model.objects.create_user(username="staff", password="x" * 12, is_staff=True)
    assert token_client(staff).get(f"/api/challenges/{body['id']}/").status_code == 200
    from rest_framework.test import APIClient

    assert APIClient().get(f"/api/challenges/{body['id']}/").status_code == 401


def test_decline_with_a_reason_closes_it_and_says_nothing_else(people, published):
    masha, petya, vasya, _ = people
    body = challenge(token_client(masha), opponents=["petya", "vasya"]).json()
    assert_problem(token_client(masha).post(f"/api/challenges/{body['id']}/decline/", {}, format="json"),
                   403, "permission_denied")
    with committed():
        declined = token_client(petya).post(f"/api/challenges/{body['id']}/decline/", {"reason": "later"},
                                            format="json")
    assert declined.status_code == 200
    assert declined.json()["status"] == "declined"
    assert declined.json()["opponents"][0] == {"player": "petya", "answer": "declined", "named": True,
                                               "reason": "later", "bot": False}
    assert set(declined.json()) == set(body)  # the challenge, nothing of the challenger's other games
    told = [(c, m["data"]["event"], m["data"]["by"]) for c, m in published if m.get("kind") == "challenge"]
    assert (f"player:{masha.pk}", "declined", "petya") in told
    assert_problem(token_client(vasya).post(f"/api/challenges/{body['id']}/accept/", {}, format="json"),
                   409, "challenge_not_open")
    assert_problem(token_client(petya).post(f"/api/challenges/{body['id']}/decline/", {"reason": "sleepy"},
                                            format="json"), 400, "invalid")


def test_cancel_by_the_challenger_only(people):
    masha, petya, *_ = people
    body = challenge(token_client(masha), opponents=["petya"]).json()
    assert_problem(token_client(petya).post(f"/api/challenges/{body['id']}/cancel/"), 403, "permission_denied")
    assert token_client(masha).post(f"/api/challenges/{body['id']}/cancel/").json()["status"] == "cancelled"
    assert_problem(token_client(masha).post(f"/api/challenges/{body['id']}/cancel/"), 409, "challenge_not_open")
    assert_problem(token_client(petya).post(f"/api/challenges/{body['id']}/accept/", {}, format="json"),
                   409, "challenge_not_open")
    assert Game.objects.count() == 0


def test_an_accepted_challenge_cannot_be_accepted_again_or_cancelled(people):
    masha, petya, *_ = people
    body = challenge(token_client(masha), opponents=["petya"]).json()
    token_client(petya).post(f"/api/challenges/{body['id']}/accept/", {}, format="json")
    assert_problem(token_client(masha).post(f"/api/challenges/{body['id']}/cancel/"), 409, "challenge_not_open")
    assert_problem(token_client(petya).post(f"/api/challenges/{body['id']}/decline/", {}, format="json"),
                   409, "challenge_not_open")
    assert_problem(token_client(petya).post(f"/api/challenges/{body['id']}/accept/", {}, format="json"),
                   409, "challenge_not_open")
    assert Game.objects.count() == 1


def test_expiry_reads_at_once_and_the_beat_writes_it(people, published, settings):
    masha, petya, *_ = people
    body = challenge(token_client(masha), opponents=["petya"]).json()
    expires = timezone.now() + timedelta(minutes=settings.GOAT_CHALLENGE_MINUTES)
    assert abs((Challenge.objects.get().expires_at - expires).total_seconds()) < 5
    Challenge.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    assert token_client(petya).get(f"/api/challenges/{body['id']}/").json()["status"] == "expired"
    assert token_client(petya).get("/api/challenges/?status=expired").json()["count"] == 1
    assert token_client(petya).get("/api/challenges/?status=open").json()["count"] == 0
    assert_problem(token_client(petya).post(f"/api/challenges/{body['id']}/accept/", {}, format="json"),
                   409, "challenge_expired")
    assert_problem(token_client(masha).post(f"/api/challenges/{body['id']}/cancel/"), 409, "challenge_expired")
    assert Game.objects.count() == 0
    with committed():
        assert services.challenges_expire() == 1
    assert services.challenges_expire() == 0
    assert Challenge.objects.get().status == "expired"
    assert [m["data"]["event"] for _c, m in published if m.get("kind") == "challenge"][-1] == "expired"


def test_the_caps_of_open_challenges(people, settings, django_user_model):
    masha, petya, vasya, olga = people
    settings.GOAT_CHALLENGES_OPEN_OUT = 2
    settings.GOAT_CHALLENGES_OPEN_IN = 2
    assert challenge(token_client(masha), opponents=["petya"]).status_code == 201
    assert challenge(token_client(masha), opponents=["vasya"]).status_code == 201
    assert_problem(challenge(token_client(masha), opponents=["olga"]), 409, "too_many_challenges")
    assert challenge(token_client(vasya), opponents=["petya"]).status_code == 201
    refused = assert_problem(challenge(token_client(olga), opponents=["petya"]), 409, "too_many_challenges")
    assert "petya" in refused["detail"]
    assert Challenge.objects.count() == 3
    # an answered (or expired) challenge no longer counts
    first = Challenge.objects.filter(challenger=masha).order_by("id").first()
    token_client(masha).post(f"/api/challenges/{first.pk}/cancel/")
    assert challenge(token_client(masha), opponents=["olga"]).status_code == 201


def test_play_again_with_the_same_people(people):
    masha, petya, vasya, _ = people
    old = finished_game([masha, petya], options=FAST)
    with committed():
        answer = token_client(petya).post("/api/challenges/", {"again_of": old.pk}, format="json")
    assert answer.status_code == 201, answer.content
    body = answer.json()
    assert body["again_of"] == old.pk and body["ruleset"] == old.ruleset and body["options"] == old.options
    assert [o["player"] for o in body["opponents"]] == ["masha"]
    assert_problem(token_client(vasya).post("/api/challenges/", {"again_of": old.pk}, format="json"),
                   403, "not_seated")
    game = token_client(masha).post(f"/api/challenges/{body['id']}/accept/", {}, format="json").json()["game"]
    assert sorted(Seat.objects.filter(game_id=game).values_list("player__username", flat=True)) == ["masha", "petya"]
    # the old rematch endpoint keeps working beside it
    assert token_client(masha).post(f"/api/games/{old.pk}/rematch/").status_code == 201


def test_a_missed_challenge_is_caught_up_by_the_feed(people):
    from goat.games import notify

    masha, petya, *_ = people
    since = timezone.now() - timedelta(seconds=1)
    body = challenge(token_client(masha), opponents=["petya"]).json()
    owed = [m for m in notify.feed_catch_up(user=petya, since=since) if m["kind"] == "challenge"]
    assert [(m["data"]["event"], m["data"]["by"]) for m in owed] == [("created", None)]
    assert owed[0]["data"]["challenge"]["id"] == body["id"] and owed[0]["data"]["challenge"]["code"] is None


def test_again_by_any_player_of_the_old_table_is_one_challenge_and_starts_the_game(people):
    masha, petya, vasya, _ = people
    old = finished_game([masha, petya, vasya], options=FAST)
    with committed():
        first = token_client(vasya).post("/api/challenges/", {"again_of": old.pk}, format="json")
    assert first.status_code == 201 and sorted(o["player"] for o in first.json()["opponents"]) == ["masha", "petya"]
    repeat = token_client(vasya).post("/api/challenges/", {"again_of": old.pk}, format="json")
    assert repeat.status_code == 200 and repeat.json()["id"] == first.json()["id"]
    second = token_client(masha).post("/api/challenges/", {"again_of": old.pk}, format="json")
    assert second.status_code == 200 and second.json()["id"] == first.json()["id"]
    assert second.json()["status"] == "open"
    third = token_client(petya).post("/api/challenges/", {"again_of": old.pk}, format="json")
    assert third.status_code == 200 and third.json()["status"] == "accepted"
    game = Game.objects.get(pk=third.json()["game"])
    assert game.options == old.options and game.seats == 3 and Challenge.objects.count() == 1
    # once started, another "again" makes a new challenge
    assert token_client(masha).post("/api/challenges/", {"again_of": old.pk}, format="json").status_code == 201


def test_a_private_challenge_by_name_and_again_of_a_private_game_stay_private(people):
    masha, petya, *_ = people
    body = challenge(token_client(masha), opponents=["petya"], private=True).json()
    assert body["private"] is True and body["link"] is None and body["code"] is None
    with committed():
        game_id = token_client(petya).post(f"/api/challenges/{body['id']}/accept/", {}, format="json").json()["game"]
    assert Game.objects.get(pk=game_id).private
