"""Look-alike names in one script (issue 56 item 2): a username's TR39 skeleton is unique across accounts,
checked at every door (the API's sign-up, the play page's, the admin's forms), and kept by a unique
constraint under concurrent sign-ups; the length is counted after NFKC; names of punctuation alone are
refused (goat.players.usernames)."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction
from django.test import Client
from test_username_rule import PASSWORD, play_sign_up

from apitest import assert_problem
from goat.players.models import UsernameKey
from goat.players.usernames import username_reserved, username_skeleton
from testkit import run_together

pytestmark = pytest.mark.django_db

#: (the name taken first, its look-alikes): the issue's list, written wholly in one script each
LOOK_ALIKES = [
    ("alice", "\u0430\u04cf\u0456\u0441\u0435"),  # Cyrillic а, ӏ (palochka), і, с, е
    ("alice", "\u0251lice"),  # Latin alpha
    ("alice", "aIice"),  # capital I for l
    ("carol", "caro\u01c0"),  # dental click for l
    ("admin", "adm\u0131n"),  # dotless i
    ("paca", "\u0440\u0430\u0441\u0430"),  # Cyrillic раса
]


@pytest.mark.parametrize(("taken", "alike"), LOOK_ALIKES)
def test_a_look_alike_of_a_taken_name_has_its_skeleton(taken, alike):
    assert taken != alike and username_skeleton(taken) == username_skeleton(alike)


@pytest.mark.parametrize(("one", "other"), [("masha", "misha"), ("alice", "alica"), ("bob", "bobby"),
                                            ("маша", "миша"), ("kolya", "коля")])
def test_names_that_differ_to_the_eye_have_different_skeletons(one, other):
    assert username_skeleton(one) != username_skeleton(other)


@pytest.mark.parametrize(("taken", "alike"), LOOK_ALIKES)
def test_the_api_refuses_a_look_alike_of_a_taken_name(api_client, django_user_model, taken, alike):
    assert api_client.post("/api/players/", {"username": taken, "password": PASSWORD}, format="json").status_code == 201
    body = assert_problem(api_client.post("/api/players/", {"username": alike, "password": PASSWORD}, format="json"),
                          400, "username_taken")
    assert list(body["errors"]) == ["username"]
    assert list(django_user_model.objects.values_list("username", flat=True)) == [taken]


@pytest.mark.parametrize(("taken", "alike"), LOOK_ALIKES[:3])
def test_the_play_page_refuses_a_look_alike_of_a_taken_name(django_user_model, taken, alike):
    assert play_sign_up(taken).status_code == 302
    assert play_sign_up(alike).status_code == 400
    assert list(django_user_model.objects.values_list("username", flat=True)) == [taken]


def test_the_admins_forms_refuse_a_look_alike_of_a_taken_name(django_user_model):
    client = Client()
    client.force_login(django_user_model.objects.create_superuser(username="root", password=PASSWORD))
    django_user_model.objects.create_user(username="alice", password=PASSWORD)
    response = client.post("/admin/auth/user/add/", {"username": "\u0251lice", "password1": PASSWORD,
                                                     "password2": PASSWORD, "usable_password": "true"})
    assert response.status_code == 200 and 'class="errorlist' in response.content.decode()
    bob = django_user_model.objects.create_user(username="bob", password=PASSWORD)
    response = client.post(f"/admin/auth/user/{bob.pk}/change/", {
        "username": "aIice", "date_joined_0": "2026-01-01", "date_joined_1": "00:00:00", "is_active": "on"})
    assert response.status_code == 200 and 'class="errorlist' in response.content.decode()
    bob.refresh_from_db()
    assert bob.username == "bob"


def test_the_skeleton_is_unique_in_the_database_whoever_saves(django_user_model):
    django_user_model.objects.create_user(username="alice", password=PASSWORD)
    with pytest.raises(IntegrityError), transaction.atomic():
        django_user_model.objects.create_user(username="\u0251lice", password=PASSWORD)
    assert UsernameKey.objects.get(user__username="alice").skeleton == "alice"


def test_a_look_alike_of_a_computer_players_name_is_reserved():
    assert username_reserved("computer-1")
    assert username_reserved("cornputer-l")  # rn for m, l for 1
    assert not username_reserved("computers")


@pytest.mark.parametrize("name", [".", "..", "_", "._.", "+", "@"])
def test_a_name_of_punctuation_alone_is_refused(api_client, django_user_model, name):
    assert_problem(api_client.post("/api/players/", {"username": name, "password": PASSWORD}, format="json"),
                   400, "invalid")
    assert play_sign_up(name).status_code == 400
    assert not django_user_model.objects.exists()


def test_the_length_is_counted_in_the_stored_form(api_client, django_user_model):
    name = "\u3316" * 30  # ㌖ is six letters once normal (NFKC): 180 characters
    body = assert_problem(api_client.post("/api/players/", {"username": name, "password": PASSWORD}, format="json"),
                          400, "invalid")
    assert "150" in body["errors"]["username"][0]
    assert play_sign_up(name).status_code == 400
    assert not django_user_model.objects.exists()
    assert api_client.post("/api/players/", {"username": "\u3316" * 25, "password": PASSWORD},
                           format="json").status_code == 201  # 150 once normal


@pytest.mark.database
@pytest.mark.django_db(transaction=True)
def test_look_alike_sign_ups_at_once_make_exactly_one_account(django_user_model):
    from goat.players.services import player_create
    from goat.web.errors import ServiceError

    names = ["alice", "\u0251lice", "aIice", "\u0430\u04cf\u0456\u0441\u0435"]
    results = run_together(len(names), lambda i: player_create(username=names[i], password=PASSWORD).username)
    made = [r for r in results if isinstance(r, str)]
    refused = [r for r in results if isinstance(r, ServiceError)]
    assert len(made) == 1 and len(refused) == len(names) - 1, results
    assert all(error.code == "username_taken" for error in refused)
    assert list(django_user_model.objects.values_list("username", flat=True)) == made
