"""The countdown publisher (goat.clock): what it puts on the broker, one message per countdown.

Over kombu's in-memory transport everywhere, and over Redis (the production broker, where the
countdowns go out as one pipelined batch) when ``CELERY_BROKER_URL`` is a Redis URL, as in CI's
second pass. The Redis test uses database 15 of that server, which no worker listens to.
"""

from __future__ import annotations

import os
import queue
from datetime import UTC, datetime, timedelta

import pytest
from kombu import Connection, Producer
from kombu.utils.url import as_url, parse_url

from goat.celery import app
from goat.games import clock


@pytest.fixture(autouse=True)
def _publish_for_real(_eager_celery):
    app.conf.task_always_eager = False  # these tests look at the messages themselves


DEADLINE = datetime(2030, 1, 2, 3, 4, 5, 678000, tzinfo=UTC)
ITEMS = [(101, 7, DEADLINE), (102, 3, DEADLINE + timedelta(seconds=30)), (101, 9, DEADLINE + timedelta(seconds=60))]


def _published(url: str, items) -> list[tuple[str, list, str]]:
    with Connection(url) as conn:
        channel = conn.default_channel
        queue_name = app.conf.task_default_queue
        if _declared(channel, queue_name):
            channel.queue_purge(queue_name)
        clock.publish_with(Producer(channel), items)
        got = []
        with conn.SimpleQueue(queue_name) as q:
            while True:
                try:
                    message = q.get(timeout=1)
                except q.Empty:
                    break
                args, _kwargs, _embed = message.decode()
                got.append((message.headers["task"], args, message.headers["eta"]))
                message.ack()
        return got


def _declared(channel, name) -> bool:
    try:
        channel.queue_declare(name, passive=True)
        return True
    except Exception:  # noqa: BLE001 - not declared yet
        return False


def _expected(items):
    return [("goat.tasks.game_time_out", [g, v], d.isoformat()) for g, v, d in items]


def test_each_countdown_is_one_message_with_its_game_version_and_eta():
    assert sorted(_published("memory://", ITEMS)) == sorted(_expected(ITEMS))


@pytest.mark.skipif(not os.environ.get("CELERY_BROKER_URL", "").startswith("redis://"),
                    reason="needs the Redis broker (CI's second pass)")
def test_over_redis_the_batch_delivers_every_countdown():
    parts = parse_url(os.environ["CELERY_BROKER_URL"])
    url = as_url("redis", host=parts["hostname"], port=parts["port"], password=parts["password"], path="15")
    with Connection(url) as conn:
        assert Producer(conn.default_channel).supports_batch_publish  # the pipelined path is the one tested
    items = [(1000 + n, n, DEADLINE + timedelta(seconds=n)) for n in range(40)]
    assert sorted(_published(url, items)) == sorted(_expected(items))


def test_the_publisher_takes_what_is_queued_and_stops_at_the_sentinel():
    try:
        for item in ITEMS[1:]:
            clock._queue.put(item)
        clock._queue.put(None)
        clock._queue.put((999, 1, DEADLINE))
        assert clock._drain(ITEMS[0]) == (ITEMS, True)
        assert clock._drain(ITEMS[0]) == ([ITEMS[0], (999, 1, DEADLINE)], False)
    finally:
        while True:
            try:
                clock._queue.get_nowait()
            except queue.Empty:
                break
