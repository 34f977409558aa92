"""Shared fixtures: API clients with and without credentials; the ``slow`` marker's switch."""

from __future__ import annotations

import os

import pytest
from django.core.cache import cache
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

PASSWORD = "correct horse battery staple"
SLOW_REASON = "slow (minutes): runs with GOAT_FULL=1, as both passes of .ci/run set (docs/development.md)"


def pytest_collection_modifyitems(config, items):
    """Tests marked ``slow`` run only with GOAT_FULL=1, so that a plain ``pytest`` stays short."""
    if os.environ.get("GOAT_FULL") == "1":
        return
    for item in items:
        if item.get_closest_marker("slow") is not None:
            item.add_marker(pytest.mark.skip(reason=SLOW_REASON))


@pytest.fixture(scope="session", autouse=True)
def _rates_path(tmp_path_factory):
    """The rate store's file of this test process (parallel test processes would share the default)."""
    from django.test import override_settings

    with override_settings(GOAT_RATES_PATH=str(tmp_path_factory.mktemp("rates") / "rates.sqlite3")):
        yield


@pytest.fixture(autouse=True)
def _clear_cache():
    """Throttle counters live in the rate store (goat.web.rates), idempotency locks in the cache:
    start every test with none."""
    from goat.web.rates import rates_clear

    cache.clear()
    rates_clear()
    yield
    cache.clear()
    rates_clear()


@pytest.fixture(autouse=True)
def _no_seats_remembered():
    """The feed's per-process seat cache is keyed by game id: a flushed database hands the same ids to
    other games, so a test starts with none remembered (else it depends on which tests ran before)."""
    from goat.games import notify

    notify._SEATS.clear()


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def api_client() -> APIClient:
    return APIClient()


@pytest.fixture
def user(django_user_model):
    return django_user_model.objects.create_user(username="alice", password=PASSWORD)


@pytest.fixture
def auth_client(user) -> APIClient:
    client = APIClient()
    token, _ = Token.objects.get_or_create(user=user)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


@pytest.fixture
def staff_client(django_user_model) -> APIClient:
    staff = django_user_model.objects.create_user(username="staff", password=PASSWORD, is_staff=True)
    client = APIClient()
    client.force_login(staff)
    return client


@pytest.fixture(autouse=True)
def _eager_celery():
    """Unit and API tests run Celery tasks inline; the end-to-end tests (tests/e2e) use a real worker."""
    from goat.celery import app

    app.conf.task_always_eager = True
    app.conf.task_eager_propagates = True
    yield
    app.conf.task_always_eager = False


@pytest.fixture
def local_live(settings, tmp_path, monkeypatch):
    """The local fan-out substitute in a folder of this test's own, one stream slot per account or token."""
    import uuid

    from goat.web import live

    settings.GOAT_DATA_DIR = tmp_path
    settings.GOAT_LIVE_URL = "local"
    settings.GOAT_LIVE_PREFIX = f"goat:test-{uuid.uuid4().hex[:8]}:live:"
    settings.GOAT_STREAMS_PER_TOKEN = 1
    monkeypatch.setattr(live, "_closing", False)
