"""The Celery app: ``celery -A goat worker`` and ``celery -A goat beat`` (one beat per node
is safe: every periodic task is idempotent, and a copy that would waste work takes a short lock,
goat.web.db.locks).

Configured from Django settings (``CELERY_*``): the broker is ``CELERY_BROKER_URL`` — kombu's
filesystem transport in the data directory by default (no server), Redis in production.
"""

from __future__ import annotations

import os

from celery import Celery, signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "goat.settings")

app = Celery("goat")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@signals.task_prerun.connect
def _task_log_context(task_id=None, task=None, **_):
    """Log records of a task carry its task id as request id, and no game id left from the last task."""
    from goat.web.observe.logs import game_id_var, request_id_var

    if task is not None and task.request.is_eager:  # run inline inside a request: keep its ids
        return

    request_id_var.set(task_id)
    game_id_var.set(None)


@signals.task_prerun.connect
@signals.task_postrun.connect
def _connections_checked(task=None, **_):
    """Before and after a task, what Django does before and after a request: close the connections
    that failed or outlived ``CONN_MAX_AGE`` (with ``CONN_HEALTH_CHECKS``, the next use of a kept one
    checks it first), and keep the others (settings.CELERY_DB_REUSE_MAX). An eager task runs inside
    a request, whose connections are the request's."""
    if task is not None and task.request.is_eager:
        return
    from django.db import close_old_connections

    close_old_connections()


@signals.worker_process_shutdown.connect
def _metrics_process_gone(pid=None, **_):
    """A pool process exits: its live gauges go from /metrics; its counters stay (goat.web.observe.metrics)."""
    from goat.web.observe.metrics import process_dead

    process_dead(pid or os.getpid())


@signals.worker_ready.connect
def _metrics_exporter(**_):
    """GOAT_WORKER_METRICS_PORT: this worker serves its own /metrics there (a worker container of
    compose); unset (``manage.py run``): the web's /metrics shows the worker's metrics already."""
    port = os.environ.get("GOAT_WORKER_METRICS_PORT", "").strip()
    if port:
        from goat.web.observe.metrics import worker_exporter_start

        worker_exporter_start(port=int(port))
