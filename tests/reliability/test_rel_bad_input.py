"""Bad input on every POST endpoint and on query parameters: a clear 4xx problem, never a 500.

Malformed JSON, bodies that are not objects, bodies over DATA_UPLOAD_MAX_MEMORY_SIZE (413
``payload_too_large``), wrong JSON types, unknown fields, 10k-character strings and odd unicode
(NUL, lone surrogates, RTL marks, emoji) in every string field, in path segments, query
parameters and the Idempotency-Key/Authorization headers. Odd but valid text (RTL marks, emoji)
may be accepted; NUL and lone surrogates never are (PostgreSQL cannot store NUL in text, and
neither backend can store a lone surrogate), and no answer is a 5xx or anything but problem+json.
"""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from apitest import token_client
from goat.games import services
from goat.web.api.problems import PROBLEM_CONTENT_TYPE
from tournaments import services as tournament_services

pytestmark = pytest.mark.django_db

LONG = "x" * 10_000
NUL = "ab\u0000cd"
SURROGATE = "ab\ud800cd"  # a lone surrogate: valid JSON ("\ud800"), not valid UTF-8
RTL = "\u202eevil\u200f"
EMOJI = "\U0001f410\U0001f3b2"
#: values that must be refused wherever a string goes
REFUSED = {"nul": NUL, "surrogate": SURROGATE, "long": LONG}
#: odd but valid text: accepted or refused, never a 5xx
ODD = {"rtl": RTL, "emoji": EMOJI}
WRONG_TYPES = {"int": 35, "float": 1.5, "bool": True, "null": None, "list": ["a"], "object": {"a": 1}}


def raw_json(value) -> bytes:
    """JSON as a client would send it (lone surrogates escaped, as json.dumps does)."""
    return json.dumps(value).encode()


FAILURES: list = []


@pytest.fixture(autouse=True)
def _collect_failures():
    """Check every case of a test before failing it, so that one run lists every bad answer."""
    FAILURES.clear()
    yield
    failures = list(FAILURES)
    FAILURES.clear()
    assert not failures, "\n".join(repr(f) for f in failures[:40]) + f"\n({len(failures)} in all)"


def assert_problem(response, *, allowed=range(400, 500), what=""):
    if response.status_code not in allowed:
        FAILURES.append((what, response.status_code, response.content[:200]))
    elif response.status_code >= 400:
        if not response["Content-Type"].startswith(PROBLEM_CONTENT_TYPE):
            FAILURES.append((what, response["Content-Type"], response.content[:200]))
        else:
            body = response.json()
            if not (body["status"] == response.status_code and body["code"] and body["detail"]):
                FAILURES.append((what, body))
    return response


def assert_not_5xx(response, what=""):
    """Accepted or refused, but never a server error, and an error is always a problem."""
    return assert_problem(response, allowed=range(200, 500), what=what)


@pytest.fixture
def world(django_user_model):
    users = [django_user_model.objects.create_user(username=f"p{i}", password="pw-" * 4) for i in range(4)]
    staff = django_user_model.objects.create_user(username="boss", password="pw-" * 4, is_staff=True)
    waiting = services.game_create(player=users[0], ruleset="goat-classic", seats=3).game
    running = services.game_create(player=users[0], ruleset="goat-classic", seats=2).game
    services.game_join(game_id=running.pk, player=users[1])
    tournament = tournament_services.tournament_create(
        created_by=staff, name="Cup", ruleset="goat-classic", format="swiss", table_size=2,
        starts_at=timezone.now() + timedelta(days=1), max_players=8, rounds=2)
    return {"users": users, "staff": staff, "waiting": waiting.pk, "running": running.pk, "tournament": tournament.pk}


def post_endpoints(world):
    """(name, path, client, a valid body, the string fields of that body)."""
    u0, u2 = token_client(world["users"][0]), token_client(world["users"][2])
    staff = APIClient()
    staff.force_login(world["staff"])
    starts = (timezone.now() + timedelta(days=2)).isoformat()
    return [
        ("signup", "/api/players/", APIClient(), {"username": "newbie", "password": "pw-" * 4},
         ["username", "password"]),
        ("token", "/api/auth/token/", APIClient(), {"username": "p0", "password": "pw-" * 4}, ["username", "password"]),
        ("create", "/api/games/", u0, {"ruleset": "goat-classic", "seats": 2, "client_seed": "s"},
         ["ruleset", "client_seed"]),
        ("join", f"/api/games/{world['waiting']}/join/", u2, {"client_seed": "s"}, ["client_seed"]),
        ("move", f"/api/games/{world['running']}/moves/", u0, {"tile": "1-1", "end": "left"}, ["tile", "end"]),
        ("resign", f"/api/games/{world['running']}/resign/", u2, {}, []),
        ("tournament", "/api/tournaments/", staff,
         {"name": "Cup 2", "ruleset": "goat-classic", "format": "swiss", "rounds": 2, "table_size": 2,
          "starts_at": starts, "max_players": 8}, ["name", "ruleset", "format", "starts_at"]),
        ("register", f"/api/tournaments/{world['tournament']}/registration/", u2, {}, []),
    ]


def test_every_post_endpoint_refuses_malformed_and_non_object_bodies(world):
    for name, path, client, _body, _fields in post_endpoints(world):
        for raw in (b"{", b'{"a": }', b"\xff\xfe", b"[1, 2]", b'"text"', b"null", b"12", b"NaN", b'{"a": NaN}',
                    b"[" * 30_000 + b"]" * 30_000, b'{"a":' * 20_000 + b"1" + b"}" * 20_000):
            response = client.post(path, raw, content_type="application/json")
            # endpoints without a body may ignore a body they do not read; none may 5xx
            allowed = range(200, 500) if name in ("resign", "register") else range(400, 500)
            assert_problem(response, allowed=allowed, what=(name, raw))


def test_every_post_endpoint_answers_413_for_a_body_over_the_limit(world, settings):
    big = {"pad": "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 10)}
    for name, path, client, body, _fields in post_endpoints(world):
        response = client.post(path, raw_json({**body, **big}), content_type="application/json")
        if name in ("resign", "register"):  # bodies they never read are not parsed, so not measured
            assert_not_5xx(response, what=name)
            continue
        assert_problem(response, allowed=[413], what=name)
        if response.status_code == 413 and response.json()["code"] != "payload_too_large":
            FAILURES.append((name, response.json()))


def test_every_string_field_refuses_wrong_types_nul_surrogates_and_10k_strings(world):
    for name, path, client, body, fields in post_endpoints(world):
        for field in fields:
            for label, value in {**WRONG_TYPES, **REFUSED}.items():
                if (field, label) == ("end", "null"):
                    continue  # "end": null means "whichever fits"
                response = client.post(path, raw_json({**body, field: value}), content_type="application/json")
                assert_problem(response, what=(name, field, label))


def test_every_string_field_takes_odd_unicode_without_a_server_error(world):
    for name, path, client, body, fields in post_endpoints(world):
        for field in fields:
            for label, value in ODD.items():
                response = client.post(path, raw_json({**body, field: value}), content_type="application/json")
                assert_not_5xx(response, what=(name, field, label))


def test_unknown_fields_and_odd_keys_are_refused(world):
    for name, path, client, body, _fields in post_endpoints(world):
        for key in ("edn", LONG, NUL, SURROGATE, EMOJI):
            response = client.post(path, raw_json({**body, key: 1}), content_type="application/json")
            if name in ("signup", "token", "resign", "register"):
                assert_not_5xx(response, what=(name, key[:10]))  # bodies they do not check field by field
            else:
                assert_problem(response, what=(name, key[:10]))


def test_options_refuse_odd_keys_and_values(world):
    u0 = token_client(world["users"][0])
    for options in ({"limit": NUL}, {"limit": SURROGATE}, {NUL: 1}, {SURROGATE: 1}, {"limit": LONG},
                    {"limit": 10**30}, {"limit": -1}, {"limit": 1.5}, {"limit": True}, {"limit": [1]},
                    {"move_time": {"a": NUL}}, {EMOJI: RTL}, []):
        response = u0.post("/api/games/", raw_json({"ruleset": "goat-classic", "seats": 2, "options": options}),
                           content_type="application/json")
        assert_problem(response, what=options if len(str(options)) < 50 else "long")


@pytest.mark.parametrize("query", [
    "?page=abc", "?page=0", "?page=-1", "?page=99999999999999999999", "?page_size=100000", "?page_size=abc",
    "?page_size=-5", "?status=bogus", "?ruleset=bogus", "?player=%00", "?player=" + "x" * 10_000,
    "?player=%ED%A0%80", "?tournament=abc", "?tournament=99999999999999999999999", "?tournament=%00",
    "?status=%00", "?period=bogus", "?ruleset=%00", "?period=%00", "?page=%00",
])
def test_query_parameters_of_every_list_are_refused_or_ignored_never_a_5xx(world, query):
    u0 = token_client(world["users"][0])
    lists = ["/api/games/", "/api/tournaments/", f"/api/tournaments/{world['tournament']}/standings/",
             "/api/leaderboards/ratings/", "/api/leaderboards/skill/", "/api/players/p1/ratings/"]
    for path in lists:
        assert_not_5xx(u0.get(path + query), what=(path, query))


@pytest.mark.parametrize("query", ["?after=-1", "?after=abc", "?after=99999999999999999999", "?after=%00",
                                   "?after=1.5", "?after="])
def test_events_after_must_be_a_seq(world, query):
    response = token_client(world["users"][0]).get(f"/api/games/{world['running']}/events/{query}")
    assert_problem(response, allowed=[400] if query != "?after=" else range(200, 500), what=query)


@pytest.mark.parametrize("query", ["?at=x", "?at=-1", "?at=0", "?at=%00", "?at=99999999999999999999"])
def test_replay_at_must_be_a_seq(world, query):
    staff = APIClient()
    staff.force_login(world["staff"])
    response = staff.get(f"/api/games/{world['running']}/replay/{query}")
    assert_problem(response, allowed=[400], what=query)


@pytest.mark.parametrize("segment", ["%00", "a%00b", "%ED%A0%80", "x" * 10_000, "%E2%80%AEevil", "%F0%9F%90%90",
                                     "..%2F..%2Fetc", "%20"])
def test_odd_path_segments_are_404_or_400_never_a_5xx(world, segment):
    u0 = token_client(world["users"][0])
    for path in (f"/api/players/{segment}/", f"/api/players/{segment}/ratings/", f"/api/games/{segment}/",
                 f"/api/tournaments/{segment}/", f"/api/tournaments/{segment}/standings/"):
        assert_problem(u0.get(path), what=(path[:60]))


@pytest.mark.parametrize("key", ["a\u0000b", "k" * 256, "k" * 10_000, "\u202ekey", "\U0001f410", "é"])
def test_odd_idempotency_keys_are_refused_or_used_never_a_5xx(world, key):
    u0 = token_client(world["users"][0])
    # header values travel as latin-1 in WSGI; the test client passes them through as given
    try:
        key.encode("latin-1")
    except UnicodeEncodeError:
        key = key.encode().decode("latin-1")  # what a server receives for UTF-8 bytes in a header
    response = u0.post("/api/games/", {"ruleset": "goat-classic", "seats": 2}, format="json", HTTP_IDEMPOTENCY_KEY=key)
    assert_not_5xx(response, what=repr(key[:20]))


@pytest.mark.parametrize("header", ["Token a\u0000b", "Token " + "k" * 10_000, "Token", "Token a b",
                                    "Bearer x", "Token \u00e9\u00e9", "Basic %%%"])
def test_odd_authorization_headers_are_401_never_a_5xx(world, header):
    response = APIClient().get("/api/players/me/", HTTP_AUTHORIZATION=header)
    assert_problem(response, allowed=[400, 401, 403], what=header[:20])
