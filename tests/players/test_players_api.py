"""Players API: sign-up, token, profiles (docs/api.md "Authentication")."""

from __future__ import annotations

import pytest
from rest_framework.authtoken.models import Token

from apitest import assert_problem
from goat.players import services as players

PASSWORD = "correct horse battery staple"


pytestmark = pytest.mark.django_db


def test_signup_creates_a_player(api_client, django_user_model):
    response = api_client.post("/api/players/", {"username": "bob", "password": PASSWORD}, format="json")

    assert response.status_code == 201
    assert response.json() == {"username": "bob"}
    assert django_user_model.objects.get(username="bob").check_password(PASSWORD)


def test_signup_refuses_a_taken_username_case_insensitively(api_client, user):
    response = api_client.post("/api/players/", {"username": "ALICE", "password": PASSWORD}, format="json")

    body = assert_problem(response, 400, "username_taken")
    assert body["errors"] == {"username": [players.USERNAME_TAKEN]}


def test_signup_refuses_the_reserved_name_me(api_client):
    response = api_client.post("/api/players/", {"username": "me", "password": PASSWORD}, format="json")

    assert_problem(response, 400, "username_taken")


@pytest.mark.parametrize("password", ["short", "password123", "12345678901", "bobbybobby"])
def test_signup_refuses_a_weak_password(api_client, password, django_user_model):
    response = api_client.post("/api/players/", {"username": "bobbybobby", "password": password}, format="json")

    body = assert_problem(response, 400, "invalid")
    assert body["errors"]["password"]
    assert not django_user_model.objects.filter(username="bobbybobby").exists()


def test_signup_refuses_a_missing_field_with_a_field_map(api_client):
    response = api_client.post("/api/players/", {"username": "bob"}, format="json")

    body = assert_problem(response, 400, "invalid")
    assert list(body["errors"]) == ["password"]


def test_signup_refuses_an_invalid_username(api_client):
    response = api_client.post("/api/players/", {"username": "no spaces!", "password": PASSWORD}, format="json")

    body = assert_problem(response, 400, "invalid")
    assert "username" in body["errors"]


def test_signup_is_refused_when_closed(api_client, settings):
    settings.GOAT_SIGNUP_OPEN = False

    response = api_client.post("/api/players/", {"username": "bob", "password": PASSWORD}, format="json")

    assert_problem(response, 403, "signup_closed")


def test_token_for_good_credentials(api_client, user):
    response = api_client.post("/api/auth/token/", {"username": "alice", "password": PASSWORD}, format="json")

    assert response.status_code == 200
    assert response.json() == {"token": Token.objects.get(user=user).key}


def test_token_is_stable_across_requests(api_client, user):
    first = api_client.post("/api/auth/token/", {"username": "alice", "password": PASSWORD}, format="json")
    second = api_client.post("/api/auth/token/", {"username": "alice", "password": PASSWORD}, format="json")

    assert first.json() == second.json()


@pytest.mark.parametrize("username,password", [("alice", "wrong password"), ("nobody", PASSWORD)])
def test_token_refuses_bad_credentials(api_client, user, username, password):
    response = api_client.post("/api/auth/token/", {"username": username, "password": password}, format="json")

    assert_problem(response, 400, "invalid_credentials")


def test_token_works_for_a_new_signup(api_client):
    api_client.post("/api/players/", {"username": "carol", "password": PASSWORD}, format="json")
    answer = api_client.post("/api/auth/token/", {"username": "carol", "password": PASSWORD}, format="json")
    token = answer.json()["token"]

    api_client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert api_client.get("/api/players/me/").json()["username"] == "carol"


def test_me_shows_the_own_profile_with_chips(auth_client, settings):
    response = auth_client.get("/api/players/me/")

    assert response.status_code == 200
    assert response.json() == {
        "username": "alice",
        "bot": False,
        "rating": 0,
        "chips": settings.GOAT_INITIAL_CHIPS,
        "skill": {},
        "games_played": 0,
        "goats": 0,
    }


def test_me_requires_authentication(api_client):
    response = api_client.get("/api/players/me/")

    assert_problem(response, 401, "not_authenticated")
    assert response["WWW-Authenticate"] == "Token"


def test_me_refuses_a_bad_token(api_client):
    api_client.credentials(HTTP_AUTHORIZATION="Token nonsense")

    assert_problem(api_client.get("/api/players/me/"), 401, "authentication_failed")


def test_me_works_with_a_staff_session(staff_client):
    assert staff_client.get("/api/players/me/").json()["username"] == "staff"


def test_public_profile_hides_chips(auth_client, django_user_model):
    django_user_model.objects.create_user(username="bob", password=PASSWORD)

    response = auth_client.get("/api/players/bob/")

    assert response.status_code == 200
    assert response.json() == {"username": "bob", "bot": False, "rating": 0, "skill": {}, "games_played": 0,
                               "goats": 0}


def test_public_profile_of_an_unknown_player_is_404(auth_client):
    assert_problem(auth_client.get("/api/players/nobody/"), 404, "not_found")


def test_public_profile_is_public_and_own_profile_needs_a_login(api_client, user):
    public = api_client.get("/api/players/alice/")
    assert public.status_code == 200 and public.json()["username"] == "alice" and "chips" not in public.json()
    assert_problem(api_client.get("/api/players/me/"), 401, "not_authenticated")
