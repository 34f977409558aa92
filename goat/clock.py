"""Starting a turn's countdown without making the move wait for the broker.

Publishing a Celery message costs about a millisecond (more than the rest of the service's own work
on a move), so the countdown of a turn that just began is handed to one background thread per
process, which publishes it. If the process dies before it does, the countdown is lost and the
periodic sweep (``games_sweep_clocks``) times the game out instead — the sweep exists for exactly
that. When tasks run eagerly (tests) the countdown is published inline.
"""

from __future__ import annotations

import atexit
import logging
import queue
import threading

logger = logging.getLogger(__name__)

_queue: "queue.SimpleQueue[tuple[int, int, object] | None]" = queue.SimpleQueue()
_thread: threading.Thread | None = None
_lock = threading.Lock()


def _publish(game_id: int, version: int, deadline) -> None:
    from .tasks import game_time_out

    game_time_out.apply_async((game_id, version), eta=deadline)


def _run() -> None:
    while (item := _queue.get()) is not None:
        try:
            _publish(*item)
        except Exception:  # noqa: BLE001 - a lost countdown is caught by the sweep
            logger.warning("countdown of game %s not published; the sweep will time it out", item[0],
                           exc_info=True)


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
    from .celery import app

    if app.conf.task_always_eager:
        _publish(game_id, version, deadline)
        return
    _ensure_thread()
    _queue.put((game_id, version, deadline))
