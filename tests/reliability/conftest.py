"""Reliability tests (issue 9). Most run everywhere; those marked ``e2e`` need real processes
(gunicorn, a Celery worker) against PostgreSQL and Redis and run only in the second pass of
``.ci/run`` (GOAT_E2E=1). The skip logic is a copy of tests/e2e/conftest.py's, on purpose: tests
are not a package, so nothing is imported from there. The process helpers are in rel_processes.py.
"""

from __future__ import annotations

import os

import pytest
from django.conf import settings


def live_possible() -> str | None:
    if os.environ.get("GOAT_E2E") != "1":
        return "live reliability tests run with GOAT_E2E=1 (the PostgreSQL + Redis pass of .ci/run)"
    if not settings.CELERY_BROKER_URL.startswith("redis://"):
        return "live reliability tests need CELERY_BROKER_URL=redis://..."
    if settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        return "live reliability tests need PostgreSQL"
    return None


def postgres_only() -> str | None:
    if settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        return "needs PostgreSQL (row locks and the append-only trigger)"
    return None


def pytest_collection_modifyitems(config, items):
    live_reason = live_possible()
    pg_reason = postgres_only()
    for item in items:
        if "tests/reliability/" not in str(item.fspath).replace(os.sep, "/"):
            continue
        if item.get_closest_marker("e2e") and live_reason:
            item.add_marker(pytest.mark.skip(reason=live_reason))
        if item.get_closest_marker("postgres") and pg_reason:
            item.add_marker(pytest.mark.skip(reason=pg_reason))


