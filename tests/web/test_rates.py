"""The shared rate store (goat/web/api/rates.py, issue 35 item 4): a rate holds across processes and under
concurrent requests, on the embedded default (a SQLite file) and on Redis; with the store away the
throttles count in the process (the documented degraded mode)."""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
import textwrap
import threading
import uuid
from pathlib import Path

import pytest
from django.conf import settings as django_settings

from goat.web.api import rates

REPO = Path(__file__).resolve().parents[2]
BACKENDS = ["sqlite"] + (["redis"] if django_settings.CELERY_BROKER_URL.startswith("redis://") else [])


@pytest.fixture(params=BACKENDS)
def store(request, settings):
    if request.param == "redis":
        settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                                       "LOCATION": django_settings.CELERY_BROKER_URL,
                                       "KEY_PREFIX": f"goat-test-{uuid.uuid4().hex[:8]}"}}
    return request.param


def test_a_hit_is_admitted_until_the_limit_then_told_how_long_to_wait(store):
    hits = [rates.rate_hit("k", limit=3, window=60) for _ in range(5)]
    assert [h.admitted for h in hits] == [True, True, True, False, False]
    assert {h.store for h in hits} == {store}
    assert 59 < hits[3].wait <= 60


def test_a_refunded_hit_frees_its_place(store):
    first = rates.rate_hit("k", limit=1, window=60)
    assert not rates.rate_hit("k", limit=1, window=60).admitted
    rates.rate_refund(first)
    assert rates.rate_hit("k", limit=1, window=60).admitted


def test_a_hit_older_than_the_window_no_longer_counts(store, monkeypatch):
    now = [1_000_000.0]
    monkeypatch.setattr(rates.time, "time", lambda: now[0])
    assert rates.rate_hit("k", limit=1, window=10).admitted
    now[0] += 9
    assert not rates.rate_hit("k", limit=1, window=10).admitted
    now[0] += 2
    assert rates.rate_hit("k", limit=1, window=10).admitted


def test_concurrent_hits_admit_exactly_the_limit(store):
    """Each thread has its own connection to the store, as each web process has."""
    admitted = []
    barrier = threading.Barrier(8)

    def work():
        barrier.wait()
        admitted.extend(rates.rate_hit("race", limit=25, window=60).admitted for _ in range(10))

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert sum(admitted) == 25 and len(admitted) == 80


def _first_hit(start, answers):
    start.wait(20)
    try:
        hit = rates.rate_hit("k", limit=1000, window=60)
        answers.put(hit.store)
    except BaseException as error:  # noqa: BLE001 - the parent reports what the child met
        answers.put(repr(error))


def test_processes_starting_together_on_a_new_file_all_count_in_it(tmp_path, settings):
    """Web workers start at once on a fresh rates file: each sets it up and counts in it, none falls
    back to its own count (turning a new file to WAL does not wait on SQLite's busy timeout)."""
    context = multiprocessing.get_context("fork")
    stores = []
    for round_ in range(12):
        settings.GOAT_RATES_PATH = str(tmp_path / f"round-{round_}" / "rates.sqlite3")
        start, answers = context.Event(), context.Queue()
        workers = [context.Process(target=_first_hit, args=(start, answers))
                   for _ in range(6)]
        for worker in workers:
            worker.start()
        start.set()
        stores += [answers.get(timeout=30) for _ in workers]
        for worker in workers:
            worker.join(timeout=30)
    assert stores == ["sqlite"] * 72


def test_a_store_that_fails_leaves_the_count_in_the_process_and_is_tried_again(settings, monkeypatch):
    fallback = rates.ProcessRates()
    monkeypatch.setattr(rates, "fallback", fallback)
    settings.GOAT_RATES_PATH = "/proc/no-such-place/rates.sqlite3"  # cannot be created

    hits = [rates.rate_hit("k", limit=2, window=60) for _ in range(3)]

    assert [(h.admitted, h.store) for h in hits] == [(True, "process"), (True, "process"), (False, "process")]
    assert fallback.retry_at > 0


_WORKER = textwrap.dedent("""
    import json, sys, types
    import django
    django.setup()
    from django.contrib.auth.models import AnonymousUser
    from rest_framework.throttling import SimpleRateThrottle
    from goat.web.api.throttling import AnonRateThrottle
    SimpleRateThrottle.THROTTLE_RATES["anon"] = "30/min"
    request = types.SimpleNamespace(user=AnonymousUser(), META={"REMOTE_ADDR": "192.0.2.1"})
    sys.stdin.readline()  # start together
    print(json.dumps([AnonRateThrottle().allow_request(request, None) for _ in range(25)]))
""")


@pytest.mark.realprocess
def test_two_web_processes_share_one_count_on_the_embedded_default(tmp_path):
    """Two processes, as two gunicorn workers of `manage.py run`, on the embedded defaults (no Redis):
    an address gets the documented rate (30 a minute) in all, not 30 in each."""
    env = {k: v for k, v in os.environ.items() if k not in {"CACHE_URL", "REDIS_CACHE_URL", "DATABASE_URL"}}
    env.update(DJANGO_SETTINGS_MODULE="goat.settings", GOAT_DATA_DIR=str(tmp_path / "data"),
               GOAT_RATES_PATH=str(tmp_path / "data" / "rates.sqlite3"))
    workers = [subprocess.Popen([sys.executable, "-c", _WORKER], cwd=REPO, env=env, text=True,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
               for _ in range(2)]
    for worker in workers:
        worker.stdin.write("go\n")
        worker.stdin.flush()
    answers, errors = [], []
    for worker in workers:
        out, err = worker.communicate(timeout=120)
        assert worker.returncode == 0, err
        answers.append(json.loads(out.strip().splitlines()[-1]))
        errors.append(err)
    assert sum(map(sum, answers)) == 30, errors


def test_several_keys_in_one_step_are_each_counted_or_refused_on_their_own(store):
    asks = [("one", 1, 60), ("three", 3, 60)]
    first, second = rates.rate_hits(asks), rates.rate_hits(asks)

    assert [h.admitted for h in first] == [True, True] and [h.admitted for h in second] == [False, True]
    assert {h.store for h in first + second} == {store} and 59 < second[0].wait <= 60
    assert [h.admitted for h in (rates.rate_hit("three", limit=3, window=60) for _ in range(2))] == [True, False]
    rates.rate_refund(first[0])
    assert rates.rate_hit("one", limit=1, window=60).admitted
