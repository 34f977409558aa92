"""The load generator of bench/soak.py keeps its own books: what it remembers per move stays bounded,
and its own collector's pauses are counted, not taken for the server's."""

from __future__ import annotations

import gc
import time

import pytest

from bench import soak


def test_a_version_shown_before_and_after_its_answer_counts_once_each_stream():
    stats = soak.Stats(measuring=True)
    stats.shown((1, 5))  # a stream showed it before the mover had its 201
    stats.answered((1, 5))
    stats.shown((1, 5))  # another stream, later
    assert len(stats.delivery_ms) == 2
    assert stats.delivery_ms[0] == 0.0
    assert stats.early == {}


def test_versions_are_forgotten_once_older_than_the_keep_window(monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(soak.time, "perf_counter", lambda: now[0])
    stats = soak.Stats(measuring=True)
    for version in range(100):
        stats.answered((7, version))
        stats.shown((8, version))  # versions no mover is answered for (the ticker's timeouts)
        now[0] += 1.0
    assert len(stats.committed) == len(stats.early) == soak.Stats.KEEP_SECONDS + 1
    assert min(v for _, v in stats.committed) == 100 - soak.Stats.KEEP_SECONDS - 1
    stats.shown((7, 99))  # still remembered: its delay is measured
    assert stats.delivery_ms[-1] == pytest.approx(1000.0)


def test_the_clients_collector_pauses_are_counted_from_the_settle_on():
    pauses = soak.ClientPauses()
    try:
        gc.collect()
        assert pauses.pauses_ms  # counted before a settle, then forgotten by it
        pauses.settle()
        assert pauses.pauses_ms == []
        garbage = [[object()] for _ in range(1000)]
        for item in garbage:
            item.append(item)  # cycles: only the collector frees them
        del garbage
        before = len(pauses.pauses_ms)  # the young generation may have been collected meanwhile
        started = time.perf_counter()
        gc.collect()
        spent = (time.perf_counter() - started) * 1000
        assert len(pauses.pauses_ms) == before + 1
        assert 0 < pauses.pauses_ms[-1] <= spent
        figures = pauses.figures()
        assert figures["client_gc_max_ms"] == round(max(pauses.pauses_ms), 1)
        assert figures["client_gc_total_ms"] == round(sum(pauses.pauses_ms), 1)
    finally:
        gc.callbacks.remove(pauses._callback)
        gc.unfreeze()


def test_a_backend_that_ended_during_a_step_counts_only_its_cpu_in_the_step():
    """The postmaster's reading holds the whole CPU of the backends it reaped: a backend that had spent
    40 s before the step and 2 s in it, then ended (its web worker recycled), adds 2 s, not 42."""
    postmaster, backend, newcomer = 1, 2, 3
    before = {postmaster: 5.0, backend: 40.0}
    after = {postmaster: 5.1 + 42.0, newcomer: 0.7}  # the reaped backend's 42 s, in its parent's figure
    assert soak._postgres_cpu_spent(before, after) == pytest.approx(0.1 + 2.0 + 0.7)
