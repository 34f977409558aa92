"""One username rule for every door (issue 35 item 2): the API's sign-up, the play page's, the admin's
user forms and ``createsuperuser`` refuse the same names (goat.players.usernames.username_check), and
``manage.py usernames_report`` lists the accounts made before the rule that break it, changing nothing."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from apitest import assert_problem

PASSWORD = "correct horse battery staple"

#: names the API refused and the play page took before one rule covered both; then the formula starts
HOSTILE = ["<img src=x onerror=alert(1)>", "=cmd|' /C calc'!A0", "adm\u00adin", "\u202enimda", "admin\u200b",
           "computer-1\u200b", "new\nline", "a/b", "+plus", "-minus", "@at", "＝cmd"]

pytestmark = pytest.mark.django_db


def play_sign_up(username: str):
    client = Client(enforce_csrf_checks=True)
    client.get("/play/")
    return client.post("/play/signup/", {"csrfmiddlewaretoken": client.cookies["csrftoken"].value,
                                         "signup-username": username, "signup-password": PASSWORD})


@pytest.mark.parametrize("name", HOSTILE)
def test_the_api_refuses_a_name_that_breaks_the_rule(api_client, django_user_model, name):
    body = assert_problem(api_client.post("/api/players/", {"username": name, "password": PASSWORD}, format="json"),
                          400, "invalid")
    assert list(body["errors"]) == ["username"]
    assert not django_user_model.objects.exists()


@pytest.mark.parametrize("name", HOSTILE)
def test_the_play_page_refuses_a_name_that_breaks_the_rule(django_user_model, name):
    response = play_sign_up(name)
    assert response.status_code == 400
    assert not django_user_model.objects.exists()


def test_the_play_page_refuses_a_look_alike_as_the_api_does(django_user_model):
    response = play_sign_up("раul")  # Cyrillic р and а beside Latin u and l
    assert response.status_code == 400 and "look alike" in response.content.decode()
    assert not django_user_model.objects.exists()


@pytest.mark.parametrize("name", ["masha", "Маша", "ann.lee", "bob_2", "x+y", "a-b", "mail@host"])
def test_ordinary_names_pass_every_door(api_client, django_user_model, name):
    assert play_sign_up(name).status_code == 302
    django_user_model.objects.all().delete()
    assert api_client.post("/api/players/", {"username": name, "password": PASSWORD}, format="json").status_code == 201


@pytest.fixture
def admin_client(django_user_model) -> Client:
    client = Client()
    client.force_login(django_user_model.objects.create_superuser(username="root", password=PASSWORD))
    return client


@pytest.mark.parametrize("name", ["=cmd|' /C calc'!A0", "admin\u200b", "-minus", "раul", "a/b"])
def test_the_admins_add_form_refuses_a_name_that_breaks_the_rule(admin_client, django_user_model, name):
    response = admin_client.post("/admin/auth/user/add/", {"username": name, "password1": PASSWORD,
                                                           "password2": PASSWORD, "usable_password": "true"})
    assert response.status_code == 200 and 'class="errorlist' in response.content.decode()
    assert list(django_user_model.objects.values_list("username", flat=True)) == ["root"]


def change(client, user, **fields):
    data = {"username": user.username, "date_joined_0": "2026-01-01", "date_joined_1": "00:00:00",
            "is_active": "on", **fields}
    return client.post(f"/admin/auth/user/{user.pk}/change/", {k: v for k, v in data.items() if v is not None})


def test_the_admins_change_form_refuses_a_rename_that_breaks_the_rule_but_keeps_an_old_name(
        admin_client, django_user_model):
    old = django_user_model.objects.create_user(username="-old", password=PASSWORD)  # made before the rule
    ann = django_user_model.objects.create_user(username="ann", password=PASSWORD)

    assert change(admin_client, ann, username="@ann").status_code == 200
    ann.refresh_from_db()
    assert ann.username == "ann"
    assert change(admin_client, old, is_active=None).status_code == 302  # deactivated without a rename
    old.refresh_from_db()
    assert old.is_active is False and old.username == "-old"


@pytest.mark.parametrize("name", ["=cmd", "admin\u200b", "+root"])
def test_createsuperuser_refuses_a_name_that_breaks_the_rule(monkeypatch, django_user_model, name):
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", PASSWORD)
    with pytest.raises(CommandError):
        call_command("createsuperuser", interactive=False, username=name, email="", stdout=io.StringIO())
    assert not django_user_model.objects.exists()
    call_command("createsuperuser", interactive=False, username="root", email="", stdout=io.StringIO())
    assert django_user_model.objects.filter(username="root", is_superuser=True).exists()


def test_the_report_lists_the_accounts_that_break_the_rule_and_changes_nothing(django_user_model):
    names = ["ann", "=cmd|' /C calc'!A0", "admin\u200b", "раul", "-minus", "Маша"]
    for name in names:
        django_user_model.objects.create_user(username=name, password=PASSWORD)
    out = io.StringIO()

    call_command("usernames_report", stdout=out)

    lines = out.getvalue().splitlines()
    listed = [line.split("\t")[1] for line in lines[:-1]]
    assert listed == [repr("=cmd|' /C calc'!A0"), repr("admin\u200b"), repr("раul"), repr("-minus")]
    assert lines[-1] == "4 account(s) break the username rule."
    assert sorted(django_user_model.objects.values_list("username", flat=True)) == sorted(names)
    with pytest.raises(CommandError):
        call_command("usernames_report", "--exit-code", stdout=io.StringIO())
