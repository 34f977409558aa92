"""Usernames have one normal form (NFKC, case-folded for uniqueness), enforced by a unique column
on SQLite and PostgreSQL alike; reserved names and cross-script look-alikes are refused on that form;
accounts that collide from before are reported, not merged (goat/players/usernames.py, issue 19 item 3)."""

from __future__ import annotations

import threading

import pytest
from django.contrib.auth import password_validation
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

from apitest import assert_problem
from goat.players import services as players
from goat.players.models import UsernameKey
from goat.players.usernames import username_confusable, username_fold
from goat.web.errors import ServiceError

PASSWORD = "correct horse battery staple"


def signup(client, name):
    return client.post("/api/players/", {"username": name, "password": PASSWORD}, format="json")


@pytest.mark.django_db
@pytest.mark.parametrize("existing,lookalike", [
    ("admin", "Ａｄｍｉｎ"),  # fullwidth: NFKC gives "Admin"
    ("маша", "МАША"),  # Cyrillic case: SQLite's lower() folds ASCII only
    ("Straße", "STRASSE"),  # full case folding: ß is ss
    ("fish", "ﬁsh"),  # the ligature ﬁ is f + i
    ("Ǆemal", "ǆemal"),  # a titlecase digraph
])
def test_a_name_that_folds_to_a_taken_name_is_taken(api_client, django_user_model, existing, lookalike):
    django_user_model.objects.create_user(username=existing, password=PASSWORD)

    body = assert_problem(signup(api_client, lookalike), 400, "username_taken")

    assert body["errors"] == {"username": [players.USERNAME_TAKEN]}
    assert django_user_model.objects.count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["me", "ME", "ｍｅ", "Ｍｅ"])
def test_reserved_names_are_checked_on_the_normal_form(api_client, name):
    assert_problem(signup(api_client, name), 400, "username_taken")


@pytest.mark.django_db
def test_a_name_is_stored_in_its_normal_form(api_client, django_user_model):
    assert signup(api_client, "Ｂｏｂ").json() == {"username": "Bob"}

    user = django_user_model.objects.get()
    assert user.username == "Bob"
    assert UsernameKey.objects.get(user=user).folded == "bob"


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["раul", "аdmin", "машаlre", "pаypal"])
def test_a_name_mixing_scripts_with_look_alike_letters_is_refused(api_client, django_user_model, name):
    body = assert_problem(signup(api_client, name), 400, "username_confusable")

    assert body["errors"] == {"username": [players.USERNAME_CONFUSABLE]}
    assert not django_user_model.objects.exists()


@pytest.mark.parametrize("name", ["paul", "маша", "Маша_2", "jean-luc", "naïve", "Ådam", "x.y@z"])
def test_a_name_in_one_script_is_not_confusable(name):
    assert not username_confusable(name)


@pytest.mark.django_db
def test_logins_and_profiles_compare_the_normal_form(api_client, user):
    token = api_client.post("/api/auth/token/", {"username": "ＡＬＩＣＥ", "password": PASSWORD}, format="json")

    assert token.status_code == 200
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {token.json()['token']}")
    assert api_client.get("/api/players/ALICE/").json()["username"] == "alice"


@pytest.mark.django_db
def test_the_database_refuses_two_accounts_with_one_fold(django_user_model):
    django_user_model.objects.create_user(username="маша", password=PASSWORD)

    with pytest.raises(IntegrityError), transaction.atomic():
        django_user_model.objects.create_user(username="МАША", password=PASSWORD)
    with pytest.raises(IntegrityError), transaction.atomic():
        UsernameKey.objects.create(user=django_user_model.objects.create_user(username="other"), folded="маша")


@pytest.mark.django_db
def test_a_rename_moves_the_key_and_a_last_login_save_costs_no_query(django_user_model, django_assert_num_queries):
    user = django_user_model.objects.create_user(username="alice", password=PASSWORD)
    user.username = "Alicia"
    user.save()
    assert UsernameKey.objects.get(user=user).folded == "alicia"

    with django_assert_num_queries(1):
        user.save(update_fields=["last_login"])


@pytest.mark.django_db(transaction=True)
def test_racing_sign_ups_of_one_name_in_two_cases_make_one_account(django_user_model, monkeypatch):
    """Both requests pass the "is it taken?" check before either creates: the constraint decides."""
    barrier = threading.Barrier(2, timeout=10)
    validate_password = password_validation.validate_password

    def validate_after_both_checked(*args, **kwargs):  # runs after the check, before the insert
        barrier.wait()
        return validate_password(*args, **kwargs)

    monkeypatch.setattr(password_validation, "validate_password", validate_after_both_checked)
    outcomes: list[str] = []

    def sign_up(name):
        try:
            players.player_create(username=name, password=PASSWORD)
            outcomes.append("created")
        except ServiceError as error:
            outcomes.append(error.code)
        finally:
            connection.close()

    threads = [threading.Thread(target=sign_up, args=(name,)) for name in ("маша", "МАША")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)

    assert sorted(outcomes) == ["created", "username_taken"]
    assert django_user_model.objects.count() == 1 and UsernameKey.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_existing_accounts_migrate_and_colliding_ones_are_reported_not_merged():
    executor = MigrationExecutor(connection)
    executor.migrate([("players", None)])
    old = executor.loader.project_state([("auth", "0012_alter_user_first_name_max_length")]).apps
    User = old.get_model("auth", "User")
    first = User.objects.create(username="Маша", password="!")
    second = User.objects.create(username="маша", password="!")
    third = User.objects.create(username="bob", password="!")

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())

    keys = dict(UsernameKey.objects.values_list("user_id", "folded"))
    assert keys == {first.pk: username_fold("Маша"), third.pk: "bob"}  # the newer "маша" has no key...
    assert User.objects.filter(pk=second.pk).exists()  # ...and is still there, unmerged
    from django.core.checks import run_checks

    warnings = [m for m in run_checks(databases=["default"]) if m.id == "players.W001"]
    assert len(warnings) == 1 and "'Маша', 'маша'" in warnings[0].msg
    call_command("check", databases=["default"])  # a warning, not an error: the site still starts


@pytest.mark.django_db
def test_the_admin_refuses_a_look_alike_as_a_form_error(client, django_user_model):
    admin = django_user_model.objects.create_superuser(username="admin", password=PASSWORD)
    client.force_login(admin)

    response = client.post("/admin/auth/user/add/", {"username": "ＡＤＭＩＮ", "password1": PASSWORD,
                                                     "password2": PASSWORD, "usable_password": "true"})

    assert response.status_code == 200 and "already exists" in response.content.decode()
    assert django_user_model.objects.count() == 1
    renamed = client.post(f"/admin/auth/user/{admin.pk}/change/", {"username": "Admin", "date_joined_0": "2026-01-01",
                                                                   "date_joined_1": "00:00:00", "is_active": "on",
                                                                   "is_staff": "on", "is_superuser": "on"})
    assert renamed.status_code == 302  # its own name in another case is no collision
    assert UsernameKey.objects.get(user=admin).folded == "admin"
