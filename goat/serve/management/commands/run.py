"""``python manage.py run``: the whole service on one machine, one command.

Migrates and makes sure a staff account exists (printing its password the first time), under the
migrations lock (goat.web.db.locks: nodes started together against one PostgreSQL do it once), then starts
the web server (gunicorn with uvicorn workers: the API and the live streams on one port), one
Celery worker, one Celery worker for the ``analysis`` queue alone (one process, niced) and one Celery
beat, and prints the URLs.
Ctrl-C (or SIGTERM) stops every child cleanly. A second start reuses the data directory.

The children are supervised (goat.serve.supervisor): one that dies (a crash, kill -9, an
unrecoverable error of the Celery worker when Redis restarts) is logged and started again after a
backoff; only Ctrl-C, or a crash loop (one child exiting 5 times in a minute), stops everything.
The children stay in this command's process group (a terminal's Ctrl-C reaches them too) and are
stopped with SIGTERM, waited for, and killed with their own children if they do not stop in time.
The web server reads the top-level gunicorn.conf.py; this command overrides bind and workers.
The command itself listens on the port and hands the socket to gunicorn (``--bind fd://N``): a port
in use fails the start at once with a clear message, ``--port 0`` takes a port the system picks (the
printed URLs name it), and the socket outlives a restart of the web server (connections wait in its
backlog instead of being refused).
"""

from __future__ import annotations

import os
import secrets
import signal
import socket
import sys
import time
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import IntegrityError, transaction

from goat.serve.supervisor import Supervisor
from goat.web.db.locks import migrations_lock
from goat.web.management.commands.migrate import database_reached
from goat.web.observe import metrics

GUNICORN_CONF = Path(settings.BASE_DIR) / "gunicorn.conf.py"
STOP_TIMEOUT_SECONDS = 20


class Command(BaseCommand):
    help = "Migrate, ensure a staff account, and run web + Celery worker + beat until Ctrl-C."

    def add_arguments(self, parser):
        parser.add_argument("--host", default=os.environ.get("GOAT_HOST", "127.0.0.1"))
        parser.add_argument("--port", type=int, default=int(os.environ.get("GOAT_PORT", "8000")),
                            help="0: a free port the system picks (the printed URLs name it)")
        parser.add_argument("--web-workers", type=int, default=int(os.environ.get("WEB_CONCURRENCY", "2")))
        parser.add_argument("--worker-concurrency", type=int, default=2)
        parser.add_argument("--no-worker", action="store_true", help="web only (no Celery worker, no beat)")

    def handle(self, *args, **options):
        database_reached()
        # nodes started together against one database: one migrates and makes the staff account, the
        # others wait for the lock and find both done (docs/operations.md "Scaling out")
        with migrations_lock():
            call_command("migrate", interactive=False, verbosity=0)
            self.stdout.write(self.style.SUCCESS("database migrated"))
            self._ensure_staff()
        python = sys.executable
        host = options["host"]
        listener = _listen(host, options["port"])
        port = listener.getsockname()[1]
        web = [python, "-m", "gunicorn"]
        if GUNICORN_CONF.is_file():
            web += ["--config", str(GUNICORN_CONF)]
        web += ["goat.asgi:application", "--bind", f"fd://{listener.fileno()}",
                "--workers", str(options["web_workers"])]
        children = {"web": web}
        if not options["no_worker"]:
            children["worker"] = [python, "-m", "celery", "-A", "goat", "worker", "--loglevel", "INFO",
                                  "--concurrency", str(options["worker_concurrency"]),
                                  "--hostname", f"worker-{os.getpid()}@%h"]
            # the analysis of finished games: a worker of its own on its own queue, one process at a lower
            # CPU priority, so moves and the ticker never wait behind an analysis (docs/computer.md)
            children["analysis"] = ["nice", "-n", "10", python, "-m", "celery", "-A", "goat", "worker",
                                    "--loglevel", "INFO", "-Q", "analysis", "--concurrency", "1",
                                    "--hostname", f"analysis-{os.getpid()}@%h"]
            children["beat"] = [python, "-m", "celery", "-A", "goat", "beat", "--loglevel", "INFO",
                                "--schedule", str(settings.GOAT_DATA_DIR / "celerybeat-schedule")]
        stop_signal: list[int] = []

        def stop(signum, _frame):
            stop_signal.append(signum)

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        self.stdout.flush()
        # the children import the same code as this command, wherever it was started from
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            p for p in (str(settings.BASE_DIR), os.environ.get("PYTHONPATH", "")) if p)}
        # /metrics adds up the files every child process writes here; emptied now, once per start of the
        # process set (never when the supervisor starts a child again: a dead process's counters stay in
        # the totals, and gunicorn.conf.py forgets only its earlier open-stream gauges)
        env[metrics.MULTIPROC_ENV] = str(metrics.multiprocess_dir_reset(
            os.environ.get(metrics.MULTIPROC_ENV) or settings.GOAT_DATA_DIR / "metrics"))

        def log(line: str) -> None:
            self.stderr.write(f"run: {line}")
            self.stderr.flush()

        supervisor = Supervisor(children, env=env, log=log, pass_fds={"web": (listener.fileno(),)},
                                max_exits=int(os.environ.get("GOAT_RUN_MAX_EXITS", "5")),
                                window=float(os.environ.get("GOAT_RUN_EXIT_WINDOW_SECONDS", "60")))
        supervisor.start()
        shown = "localhost" if host in ("127.0.0.1", "0.0.0.0", "::", "::1") else host
        base = f"http://{shown}:{port}"
        self.stdout.write(self.style.SUCCESS(
            f"goat is running ({', '.join(children)}); Ctrl-C stops it\n"
            f"  play        {base}/play/\n"
            f"  API docs    {base}/api/docs/\n"
            f"  API schema  {base}/api/schema/\n"
            f"  admin       {base}/admin/\n"
            f"  health      {base}/health/\n"
            f"  site        {base}/\n"
            f"  data        {settings.GOAT_DATA_DIR}"
        ))
        self.stdout.flush()
        code = None
        while not stop_signal and code is None:
            code = supervisor.poll()
            time.sleep(0.2)
        if stop_signal:
            self.stdout.write(f"{signal.Signals(stop_signal[0]).name}: stopping {', '.join(children)}")
            code = 0
        for name in supervisor.stop(STOP_TIMEOUT_SECONDS):
            self.stderr.write(f"{name} did not stop in {STOP_TIMEOUT_SECONDS}s; killed it and its children")
        listener.close()
        self.stdout.write("stopped")
        self.stdout.flush()
        if code:
            sys.exit(code)

    def _ensure_staff(self) -> None:
        User = get_user_model()
        username = os.environ.get("GOAT_ADMIN_USERNAME", "admin")
        if User.objects.filter(username=username).exists():
            self.stdout.write(f"staff account {username!r} exists (its password was printed at its first start; "
                              f"change it with: python manage.py changepassword {username})")
            return
        password = os.environ.get("GOAT_ADMIN_PASSWORD") or secrets.token_urlsafe(12)
        try:
            with transaction.atomic():
                User.objects.create_superuser(username=username, password=password, email="")
        except IntegrityError:  # another node made it meanwhile (SQLite, or a database without the lock)
            self.stdout.write(f"staff account {username!r} exists (made by another node at this start)")
            return
        shown = "(from GOAT_ADMIN_PASSWORD)" if os.environ.get("GOAT_ADMIN_PASSWORD") else password
        self.stdout.write(self.style.WARNING(f"created staff account {username!r} with password: {shown}"))


def _listen(host: str, port: int) -> socket.socket:
    """A TCP socket listening on ``host``:``port`` (``[::1]`` or ``::1`` for IPv6; port 0: one the system
    picks), with gunicorn's default backlog; a clear error if it cannot be had."""
    bare = host.strip("[]")
    family = socket.AF_INET6 if ":" in bare else socket.AF_INET
    try:
        return socket.create_server((bare, port), family=family, backlog=2048)
    except OSError as error:
        reason = os.strerror(error.errno) if error.errno else str(error)
        raise CommandError(f"cannot listen on {host}:{port}: {reason} (--port chooses another; 0, a free one)") \
            from error
