"""Web workers of one machine take turns to recycle (goat.serve.server.recycle_turn): at most one
beginning per ``GOAT_RECYCLE_GAP_SECONDS``, so two workers that come due together never move all
the streams at once."""

from __future__ import annotations

import asyncio
import multiprocessing
from pathlib import Path
from types import SimpleNamespace

import pytest

from goat.serve import server


def test_a_second_worker_waits_its_turn_until_the_gap_has_passed(tmp_path):
    path = tmp_path / "web-recycle"
    assert server.recycle_turn(path, 60, now=1000.0)
    assert not server.recycle_turn(path, 60, now=1000.5)  # the other worker, due at the same moment
    assert not server.recycle_turn(path, 60, now=1059.9)
    assert server.recycle_turn(path, 60, now=1060.1)
    assert not server.recycle_turn(path, 60, now=1070.0)  # the gap counts from the latest beginning


def test_no_gap_means_every_worker_recycles_when_due(tmp_path):
    path = tmp_path / "web-recycle"
    assert server.recycle_turn(path, 0, now=1000.0)
    assert server.recycle_turn(path, 0, now=1000.0)
    assert not path.exists()


def test_a_time_far_in_the_future_or_unreadable_does_not_hold_recycling_back(tmp_path):
    path = tmp_path / "web-recycle"
    path.write_text(repr(1_000_000.0))  # written before the clock was set back by days
    assert server.recycle_turn(path, 60, now=1000.0)
    assert not server.recycle_turn(path, 60, now=1001.0)
    path.write_text("not a time")
    assert server.recycle_turn(path, 60, now=1002.0)


def test_a_file_that_cannot_be_used_gives_the_turn(tmp_path):
    blocker = tmp_path / "a file"
    blocker.write_text("")
    assert server.recycle_turn(blocker / "web-recycle", 60, now=1000.0)  # its directory is a file


def _ask(path: Path, now: float, start, answers) -> None:
    start.wait()
    answers.put(server.recycle_turn(path, 60, now=now))


def test_of_workers_asking_at_once_exactly_one_gets_the_turn(tmp_path):
    """Eight processes come due at the same moment: the lock lets one begin, the others wait."""
    context = multiprocessing.get_context("fork")
    start, answers = context.Event(), context.Queue()
    path = tmp_path / "web-recycle"
    workers = [context.Process(target=_ask, args=(path, 1000.0 + i / 100, start, answers)) for i in range(8)]
    for worker in workers:
        worker.start()
    start.set()
    got = [answers.get(timeout=20) for _ in workers]
    for worker in workers:
        worker.join(timeout=20)
    assert sorted(got) == [False] * 7 + [True]


class _Due(server._Server):
    """A ``_Server`` whose request count says its recycle is due, without serving anything."""

    def __init__(self, total: int, limit: int) -> None:
        super().__init__(config=SimpleNamespace(date_header=False, encoded_headers=[], callback_notify=None,
                                                limit_max_requests=limit, limit_max_requests_jitter=0))
        self.server_state.total_requests = total


@pytest.fixture
def state():
    saved = (server._State.max_requests, server._State.requests)
    yield server._State
    server._State.max_requests, server._State.requests = saved


def test_a_due_worker_without_its_turn_serves_on_and_asks_again_later(tmp_path, settings, state):
    settings.GOAT_DATA_DIR = tmp_path
    settings.GOAT_RECYCLE_GAP_SECONDS = 60
    assert server.recycle_turn(server.recycle_path(), 60)  # another worker began its recycle just now
    state.max_requests, state.requests = 500, 500
    due = _Due(total=500, limit=500)
    assert asyncio.run(due.on_tick(1)) is False
    assert due.limit_max_requests == 500 + server.RECYCLE_RETRY_REQUESTS
    assert state.max_requests == 500 + server.RECYCLE_RETRY_REQUESTS  # its answers keep their connections
    assert asyncio.run(due.on_tick(2)) is False  # not due yet: the file is not even read


def test_a_due_worker_with_its_turn_recycles(tmp_path, settings, state):
    settings.GOAT_DATA_DIR = tmp_path
    settings.GOAT_RECYCLE_GAP_SECONDS = 60
    state.max_requests, state.requests = 500, 500
    due = _Due(total=500, limit=500)
    assert asyncio.run(due.on_tick(1)) is True
    assert not server.recycle_turn(server.recycle_path(), 60)  # its beginning is noted for the others
