"""Starting a turn's countdown without making the move wait for the broker.

Publishing a Celery message costs ~0.35 ms of CPU and a broker round trip, so the countdown of a
turn that just began is handed to one background thread per process, which publishes whatever has
queued up meanwhile as one batch. If the process dies before it does, the countdown is lost and the
periodic sweep (``games_sweep_clocks``) times the game out instead — the sweep exists for exactly
that. When tasks run eagerly (tests) the countdown is published inline.
"""

from __future__ import annotations

import atexit
import logging
import queue
import threading
from contextlib import nullcontext

logger = logging.getLogger(__name__)

_queue: queue.SimpleQueue[tuple[int, int, object] | None] = queue.SimpleQueue()
_thread: threading.Thread | None = None
_lock = threading.Lock()


#: the countdown task (goat.games.tasks.game_time_out), looked up by name in the Celery app's
#: registry: the tasks module imports this one, not the other way round
TIME_OUT_TASK = "goat.tasks.game_time_out"


def _time_out_task():
    from goat.celery import app

    return app.tasks[TIME_OUT_TASK]


def _publish(game_id: int, version: int, deadline) -> None:
    _time_out_task().apply_async((game_id, version), eta=deadline)


def publish_with(producer, items: list[tuple[int, int, object]]) -> None:
    """Publish the countdowns ``items`` through ``producer``, as one Redis pipeline where kombu can.

    ``Producer.batch`` (kombu >= 5.7) sends the batch's LPUSHes in one round trip; publishing one by one,
    kombu's Redis channel builds a new client object for every message. Measured per countdown:
    ~340 µs of CPU one by one, ~240 µs in batches of 4 and ~210 µs in batches of 16. Without
    ``batch`` (older kombu, transports that cannot), the messages go one by one.
    """
    game_time_out = _time_out_task()
    batch = getattr(producer, "batch", None)
    with batch() if batch is not None else nullcontext():
        for game_id, version, deadline in items:
            game_time_out.apply_async((game_id, version), eta=deadline, producer=producer)


def _drain(first: tuple[int, int, object]) -> tuple[list[tuple[int, int, object]], bool]:
    """``first`` and whatever else is queued now (up to 64); and whether the stop sentinel came."""
    items = [first]
    while len(items) < 64:
        try:
            item = _queue.get_nowait()
        except queue.Empty:
            break
        if item is None:
            return items, True
        items.append(item)
    return items, False


def _run() -> None:
    from goat.celery import app

    stop = False
    while not stop and (first := _queue.get()) is not None:
        items, stop = _drain(first)
        try:
            with app.producer_or_acquire() as producer:
                publish_with(producer, items)
        except Exception:  # a lost countdown is caught by the sweep
            logger.warning("countdowns of games %s not published; the sweep will time them out",
                           sorted({item[0] for item in items}), exc_info=True)


def _ensure_thread() -> None:
    global _thread
    with _lock:
        if _thread is None or not _thread.is_alive():  # also after a fork (gunicorn, celery)
            _thread = threading.Thread(target=_run, name="goat-clock-publisher", daemon=True)
            _thread.start()


def flush(timeout: float = 5.0) -> None:
    """Publish what is queued before the process exits."""
    if _thread is not None and _thread.is_alive():
        _queue.put(None)
        _thread.join(timeout)


atexit.register(flush)


def start_countdown(*, game_id: int, version: int, deadline) -> None:
    from goat.celery import app

    if app.conf.task_always_eager:
        _publish(game_id, version, deadline)
        return
    _ensure_thread()
    _queue.put((game_id, version, deadline))
