"""Shared fixtures: API clients with and without credentials; what each test tier needs to run.

The tiers are pytest markers (docs/development.md "Tests"): unmarked tests are the fast tier, and
``database``, ``realprocess`` and ``browser`` are chosen with ``-m``. A plain ``pytest`` runs the fast
tier (pyproject's addopts); ``.ci/run`` runs the others against PostgreSQL and Redis.
"""

from __future__ import annotations

import os

import pytest
from django.conf import settings
from django.core.cache import cache
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from testkit import GroupProcess

PASSWORD = "correct horse battery staple"
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


def _on_postgres() -> bool:
    return settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"


def _unmet(item) -> str | None:
    """Why ``item``'s tier cannot run here, or None. A tier's test is chosen by its marker; this only
    says what is missing, so that ``pytest -m database`` on SQLite explains itself instead of failing."""
    database = item.get_closest_marker("database") is not None
    processes = item.get_closest_marker("realprocess") or item.get_closest_marker("browser")
    if database and not _on_postgres():
        return "needs PostgreSQL: DATABASE_URL=postgres://... (docs/development.md, Tests)"
    if database and processes and not settings.CELERY_BROKER_URL.startswith("redis://"):
        # its processes (a Celery worker, gunicorn) share the test run's database and broker
        return "needs Redis as the broker: CELERY_BROKER_URL=redis://... (docs/development.md, Tests)"
    if item.get_closest_marker("browser") and not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        return "needs Debian's chromium and chromium-driver (.ci/run installs them)"
    return None


def pytest_runtest_setup(item):
    reason = _unmet(item)
    if reason:
        pytest.skip(reason)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Forget the server processes that earlier tests left gone: a report names only this test's."""
    GroupProcess.running[:] = [process for process in GroupProcess.running
                               if process.proc.poll() is None or process.group_alive()]
    return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """A failing test's report ends with the log tail of each server process it ran or still runs (the
    servers are gone, and their temporary directories with them, by the time anyone reads the report)."""
    report = yield
    if report.failed:
        for process in GroupProcess.running:
            try:
                report.sections.append((f"log of {process.name} (last 6000 characters)", process.output()))
            except OSError as error:
                report.sections.append((f"log of {process.name}", f"unreadable: {error}"))
    return report


@pytest.fixture(scope="session", autouse=True)
def _rates_path(tmp_path_factory):
    """The rate store's file of this test process (parallel test processes would share the default)."""
    from django.test import override_settings

    with override_settings(GOAT_RATES_PATH=str(tmp_path_factory.mktemp("rates") / "rates.sqlite3")):
        yield


@pytest.fixture(autouse=True)
def _clear_cache():
    """Throttle counters live in the rate store (goat.web.api.rates), idempotency locks in the cache:
    start every test with none."""
    from goat.web.api.rates import rates_clear

    cache.clear()
    rates_clear()
    yield
    cache.clear()
    rates_clear()


@pytest.fixture(scope="session", autouse=True)
def _fast_password_hashing():
    """A fast hasher for the whole session, so that rows a module makes once (before any test's own
    fixtures) hold passwords the tests can log in with."""
    from django.test import override_settings

    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        yield


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


@pytest.fixture(autouse=True)
def _one_tick_share(settings):
    """A tick times out every due game itself, whatever the database (one share of the ticker: on
    PostgreSQL the beat's tick would send the other shares to the queue); tests/games/test_clock.py
    and tests/web/test_two_beats.py set more shares, and the real-process tests run the default."""
    settings.GOAT_TICK_SHARES = 1


@pytest.fixture
def local_live(settings, tmp_path, monkeypatch):
    """The local fan-out substitute in a folder of this test's own, one stream slot per account or token."""
    import uuid

    from goat.live import fanout

    settings.GOAT_DATA_DIR = tmp_path
    settings.GOAT_LIVE_URL = "local"
    settings.GOAT_LIVE_PREFIX = f"goat:test-{uuid.uuid4().hex[:8]}:live:"
    settings.GOAT_STREAMS_PER_TOKEN = 1
    monkeypatch.setattr(fanout, "_closing", False)
