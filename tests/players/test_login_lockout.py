"""Failed-login lockout (django-axes, goat/players/lockout.py, issue 19 item 2): per account and per
client address, on POST /api/auth/token/ and the admin login, with a cool-off that ends."""

from __future__ import annotations

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.test import Client
from rest_framework.test import APIClient

from apitest import assert_problem

PASSWORD = "correct horse battery staple"
LIMIT = settings.AXES_FAILURE_LIMIT
COOL_OFF = settings.AXES_COOLOFF_TIME.total_seconds()

pytestmark = pytest.mark.django_db


def token(client, username="alice", password=PASSWORD, **extra):
    return client.post("/api/auth/token/", {"username": username, "password": password}, format="json", **extra)


def cool_off_passes():
    """Move every counted failure back past the cool-off (as if that much time had gone by)."""
    for attempt in AccessAttempt.objects.all():
        AccessAttempt.objects.filter(pk=attempt.pk).update(
            attempt_time=attempt.attempt_time - settings.AXES_COOLOFF_TIME - timedelta(seconds=1))


def test_the_limit_of_wrong_passwords_locks_the_account_out_of_the_api(user):
    client = APIClient()
    statuses = [token(client, password="wrong password").status_code for _ in range(LIMIT)]

    locked = token(client)  # the right password, now

    assert statuses == [400] * (LIMIT - 1) + [429]
    body = assert_problem(locked, 429, "login_locked_out")
    assert "try again later" in body["detail"]
    assert COOL_OFF - 5 <= int(locked["Retry-After"]) <= COOL_OFF


def test_the_lockout_ends_after_the_cool_off(user):
    client = APIClient()
    for _ in range(LIMIT):
        token(client, password="wrong password")
    assert token(client).status_code == 429

    cool_off_passes()

    assert token(client).status_code == 200


def test_attempts_while_locked_out_do_not_extend_the_lockout(user):
    client = APIClient()
    for _ in range(LIMIT):
        token(client, password="wrong password")
    last = AccessAttempt.objects.latest("attempt_time").attempt_time

    for _ in range(3):
        assert token(client, password="wrong password").status_code == 429

    assert AccessAttempt.objects.latest("attempt_time").attempt_time == last


def test_an_account_is_locked_whatever_address_the_guesses_come_from(user, settings):
    settings.GOAT_LOGIN_ACCOUNT_FAILURE_LIMIT = LIMIT  # its own limit is larger (issue 56): see below
    for i in range(LIMIT):
        token(APIClient(REMOTE_ADDR=f"192.0.2.{i + 1}"), password="wrong password")

    locked = token(APIClient(REMOTE_ADDR="198.51.100.7"))

    assert_problem(locked, 429, "login_locked_out")


def test_the_account_is_one_account_in_every_case_and_width(user, settings):
    settings.GOAT_LOGIN_ACCOUNT_FAILURE_LIMIT = LIMIT
    names = ["alice", "ALICE", "Ａｌｉｃｅ"]
    for i in range(LIMIT):
        token(APIClient(REMOTE_ADDR=f"192.0.2.{i + 1}"), username=names[i % 3], password="wrong password")

    assert token(APIClient(REMOTE_ADDR="198.51.100.7")).status_code == 429


def test_an_address_is_locked_whatever_accounts_it_guesses(user, django_user_model, settings):
    settings.GOAT_LOGIN_ADDRESS_FAILURE_LIMIT = LIMIT
    client = APIClient()
    for i in range(LIMIT):
        token(client, username=f"someone{i}", password="wrong password")

    assert_problem(token(client), 429, "login_locked_out")  # alice, never guessed, from that address
    assert token(APIClient(REMOTE_ADDR="198.51.100.7")).status_code == 200  # from elsewhere she logs in


def test_a_spoofed_forwarded_for_does_not_escape_the_address_lockout(user, settings):
    settings.GOAT_LOGIN_ADDRESS_FAILURE_LIMIT = LIMIT
    client = APIClient()
    for i in range(LIMIT):
        token(client, username=f"someone{i}", password="wrong password", HTTP_X_FORWARDED_FOR=f"7.7.{i}.1")

    assert token(client, HTTP_X_FORWARDED_FOR="7.7.99.1").status_code == 429


def test_a_successful_login_does_not_clear_the_failures_of_its_address(user, django_user_model, settings):
    settings.GOAT_LOGIN_ADDRESS_FAILURE_LIMIT = LIMIT
    django_user_model.objects.create_user(username="mallory", password=PASSWORD)
    client = APIClient()
    for i in range(LIMIT - 1):
        token(client, username=f"victim{i}", password="wrong password")
        assert token(client, username="mallory").status_code == 200

    assert token(client, username="victim", password="wrong password").status_code == 429


def admin_login(client: Client, password: str):
    return client.post("/admin/login/?next=/admin/", {"username": "admin", "password": password})


def test_the_admin_login_locks_out_after_the_limit_and_the_cool_off_ends_it(django_user_model):
    django_user_model.objects.create_superuser(username="admin", password=PASSWORD)
    client = Client()
    wrong = [admin_login(client, "wrong password").status_code for _ in range(LIMIT)]

    locked = admin_login(client, PASSWORD)

    assert wrong == [200] * (LIMIT - 1) + [429]  # the login form again, then the lockout page
    assert locked.status_code == 429 and "_auth_user_id" not in client.session
    assert "Login locked" in locked.content.decode() and int(locked["Retry-After"]) > 0

    cool_off_passes()

    assert admin_login(client, PASSWORD).status_code == 302
    assert "_auth_user_id" in client.session


# --- issue 56: lockouts that cannot be turned on others ----------------------------------------


def test_guesses_from_nine_addresses_do_not_lock_the_owner_out(user):
    for i in range(9):
        assert token(APIClient(REMOTE_ADDR=f"192.0.2.{i + 1}"), password="wrong password").status_code == 400
    assert token(APIClient(REMOTE_ADDR="198.51.100.7")).status_code == 200


def test_the_limit_from_one_address_locks_the_account_at_that_address_only(user):
    client = APIClient(REMOTE_ADDR="192.0.2.1")
    statuses = [token(client, password="wrong password").status_code for _ in range(LIMIT)]
    assert statuses == [400] * (LIMIT - 1) + [429]
    assert_problem(token(client), 429, "login_locked_out")  # the guesser's address, even with the password
    assert token(APIClient(REMOTE_ADDR="198.51.100.7")).status_code == 200  # the owner, elsewhere


def test_past_its_own_larger_limit_an_account_is_locked_from_every_address(user, settings):
    settings.GOAT_LOGIN_ACCOUNT_FAILURE_LIMIT = 3 * LIMIT
    for i in range(3 * LIMIT - 1):
        token(APIClient(REMOTE_ADDR=f"192.0.2.{i + 1}"), password="wrong password")
    assert token(APIClient(REMOTE_ADDR="198.51.100.7")).status_code == 200
    token(APIClient(REMOTE_ADDR="192.0.2.250"), password="wrong password")
    assert_problem(token(APIClient(REMOTE_ADDR="198.51.100.7")), 429, "login_locked_out")


def test_an_address_guessing_many_accounts_is_locked_at_its_own_limit(user, settings):
    settings.GOAT_LOGIN_ADDRESS_FAILURE_LIMIT = limit = 2 * LIMIT  # under the sign-in rate per address
    client = APIClient(REMOTE_ADDR="192.0.2.1")
    statuses = [token(client, username=f"someone{i}", password="wrong password").status_code for i in range(limit)]
    assert statuses == [400] * (limit - 1) + [429]
    assert_problem(token(client), 429, "login_locked_out")
    assert token(APIClient(REMOTE_ADDR="198.51.100.7")).status_code == 200
