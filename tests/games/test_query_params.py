"""Query parameters (docs/api.md "Lists"): a value the parameter does not take is 400 ``invalid`` with
``errors`` naming it, never silently read as something else; valid values, empty values and the
page contract (404 past the last page, page_size capped at 200) work as before."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from apitest import assert_problem, token_client
from goat.games import services
from tournaments import services as tournament_services

pytestmark = pytest.mark.django_db

LISTS = ["/api/games/", "/api/players/me/games/", "/api/tournaments/", "/api/leaderboards/ratings/",
         "/api/leaderboards/skill/", "/api/players/ann/ratings/"]


@pytest.fixture
def world(django_user_model):
    ann = django_user_model.objects.create_user(username="ann", password="x" * 12)
    ben = django_user_model.objects.create_user(username="ben", password="x" * 12)
    staff = django_user_model.objects.create_user(username="boss", password="x" * 12, is_staff=True)
    waiting = services.game_create(player=ann, ruleset="goat-classic", seats=2).game
    running = services.game_create(player=ann, ruleset="goat-classic", seats=2).game
    services.game_join(game_id=running.pk, player=ben)
    tournament = tournament_services.tournament_create(
        created_by=staff, name="Cup", ruleset="goat-classic", format="swiss", table_size=2,
        starts_at=timezone.now() + timedelta(days=1), max_players=8, rounds=1)
    return {"ann": token_client(ann), "ben": token_client(ben), "waiting": waiting.pk, "running": running.pk,
            "tournament": tournament.pk}


def ids(client, query: str) -> list[int]:
    response = client.get("/api/games/" + query)
    assert response.status_code == 200, response.content
    return [game["id"] for game in response.json()["results"]]


@pytest.mark.parametrize("path", LISTS)
@pytest.mark.parametrize("value", ["null", "0", "-5", "abc", "1.5", "true", "1e3", "9" * 5000])
def test_a_page_size_that_is_not_a_whole_number_from_1_is_400(world, path, value):
    body = assert_problem(world["ann"].get(f"{path}?page_size={value}"), 400, "invalid")
    assert list(body["errors"]) == ["page_size"]


@pytest.mark.parametrize("path", LISTS)
def test_valid_page_sizes_and_pages_read_as_before(world, path):
    client = world["ann"]
    for query in ("", "?page_size=", "?page=", "?page_size=1", "?page_size=200", "?page_size=100000",
                  "?page_size=594649555012432152032163112419328",  # digits past any int64: still the maximum
                  "?page=1&page_size=3", "?page=last"):
        response = client.get(path + query)
        assert response.status_code == 200, (path, query, response.content)
    for query in ("?page=0", "?page=abc", "?page=99"):  # the page contract: 404, not 400
        assert_problem(client.get(path + query), 404, "not_found")


def test_page_size_over_the_maximum_is_read_as_the_maximum(world):
    assert world["ann"].get("/api/games/?page_size=100000").json()["count"] == 2
    assert len(ids(world["ann"], "?page_size=1")) == 1


@pytest.mark.parametrize("query", ["?tournament=abc", "?tournament=0", "?tournament=-1", "?tournament=1.5",
                                   "?tournament=1e3", "?tournament=null", "?tournament=9223372036854775808",
                                   "?open=null", "?open=yes", "?open=1", "?open=abc",
                                   "?status=paused", "?status=null", "?ruleset=chess", "?player=" + "x" * 151])
def test_game_list_refuses_values_its_filters_do_not_take(world, query):
    body = assert_problem(world["ann"].get("/api/games/" + query), 400, "invalid")
    assert list(body["errors"]) == [query[1:].split("=")[0]]


def test_game_list_filters_still_filter(world):
    ben = world["ben"]
    both = [world["running"], world["waiting"]]
    assert ids(ben, "") == both
    assert ids(ben, "?open=true") == [world["waiting"]]
    assert ids(ben, "?open=True") == [world["waiting"]]
    assert ids(ben, "?open=false") == both
    assert ids(ben, "?open=") == both
    assert ids(ben, "?status=running") == [world["running"]]
    assert ids(ben, "?status=") == both
    assert ids(ben, "?player=ben") == [world["running"]]
    assert ids(ben, "?ruleset=goat-classic") == both
    assert ids(ben, f"?tournament={world['tournament']}") == []
    assert ids(ben, "?tournament=9223372036854775807") == []
    assert ids(ben, "?tournament=") == both


@pytest.mark.parametrize(("path", "query", "name"), [
    ("/api/players/me/games/", "?status=paused", "status"),
    ("/api/tournaments/", "?status=null", "status"),
    ("/api/leaderboards/ratings/", "?period=year", "period"),
    ("/api/leaderboards/ratings/", "?ruleset=chess", "ruleset"),
    ("/api/leaderboards/skill/", "?ruleset=null", "ruleset"),
])
def test_other_lists_refuse_unknown_values(world, path, query, name):
    body = assert_problem(world["ann"].get(path + query), 400, "invalid")
    assert list(body["errors"]) == [name]


@pytest.mark.parametrize("query", ["?after=null", "?after=-1", "?after=abc", "?after=1.5"])
def test_events_after_must_be_a_seq(world, query):
    response = world["ann"].get(f"/api/games/{world['running']}/events/{query}")
    assert list(assert_problem(response, 400, "invalid")["errors"]) == ["after"]


def test_create_and_join_answer_the_game_version_as_etag(world):
    created = world["ann"].post("/api/games/", {"ruleset": "goat-classic", "seats": 2}, format="json")
    assert created.status_code == 201 and created["ETag"] == f'"{created.json()["version"]}"'
    joined = world["ben"].post(f"/api/games/{created.json()['id']}/join/", {}, format="json")
    assert joined.status_code == 200 and joined["ETag"] == f'"{joined.json()["version"]}"'


@pytest.mark.parametrize("query", ["/api/leaderboards/ratings/?period=&ruleset=", "/api/leaderboards/skill/?ruleset=",
                                   "/api/tournaments/?status=", "/api/players/me/games/?status=&page="])
def test_an_empty_value_is_the_parameter_left_out(world, query):
    assert world["ann"].get(query).status_code == 200


def test_an_empty_after_is_after_nothing(world):
    path = f"/api/games/{world['running']}/events/"
    assert world["ann"].get(path + "?after=").json() == world["ann"].get(path).json()


#: whole numbers written with other digits than ASCII 0-9, or with more than digits (issue 35 item 6)
NOT_ASCII_DIGITS = ["１", "٣", "۳", "1.0", " 1", "1 ", "+1", "1_0"]


@pytest.mark.parametrize("value", NOT_ASCII_DIGITS)
@pytest.mark.parametrize(("path", "name"), [("events/?after=", "after"), ("replay/?at=", "at")])
def test_numbers_in_a_query_take_ascii_digits_only(world, path, name, value):
    response = world["ann"].get(f"/api/games/{world['running']}/{path}{value}")
    body = assert_problem(response, 400, "invalid")
    assert list(body["errors"]) == [name]


@pytest.mark.parametrize("value", NOT_ASCII_DIGITS)
def test_list_numbers_take_ascii_digits_only(world, value):
    client = world["ann"]
    assert list(assert_problem(client.get(f"/api/games/?page_size={value}"), 400, "invalid")["errors"]) == ["page_size"]
    assert list(assert_problem(client.get(f"/api/games/?tournament={value}"), 400, "invalid")["errors"]) == [
        "tournament"]
    assert_problem(client.get(f"/api/games/?page={value}"), 404, "not_found")  # as ?page=abc


def test_ascii_digits_still_read(world):
    client = world["ann"]
    assert client.get(f"/api/games/{world['running']}/events/?after=3").status_code == 200
    assert client.get("/api/games/?page_size=1&page=1").status_code == 200
