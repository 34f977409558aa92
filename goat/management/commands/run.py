"""``python manage.py run``: the whole service on one machine, one command.

Migrates, makes sure a staff account exists (printing its password the first time), then starts
the web server (gunicorn), one Celery worker and exactly one Celery beat, and prints the URLs.
Ctrl-C (or SIGTERM) stops every child cleanly. A second start reuses the data directory.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Migrate, ensure a staff account, and run web + Celery worker + beat until Ctrl-C."

    def add_arguments(self, parser):
        parser.add_argument("--host", default=os.environ.get("GOAT_HOST", "127.0.0.1"))
        parser.add_argument("--port", type=int, default=int(os.environ.get("GOAT_PORT", "8000")))
        parser.add_argument("--web-workers", type=int, default=int(os.environ.get("WEB_CONCURRENCY", "2")))
        parser.add_argument("--worker-concurrency", type=int, default=2)
        parser.add_argument("--no-worker", action="store_true", help="web only (no Celery worker, no beat)")

    def handle(self, *args, **options):
        call_command("migrate", interactive=False, verbosity=0)
        self.stdout.write(self.style.SUCCESS("database migrated"))
        self._ensure_staff()
        python = sys.executable
        host, port = options["host"], options["port"]
        children = {
            "web": [python, "-m", "gunicorn", "goat.wsgi:application", "--bind", f"{host}:{port}",
                    "--workers", str(options["web_workers"]), "--threads", "4", "--timeout", "30",
                    "--graceful-timeout", "10", "--access-logfile", "-"],
        }
        if not options["no_worker"]:
            children["worker"] = [python, "-m", "celery", "-A", "goat", "worker", "--loglevel", "INFO",
                                  "--concurrency", str(options["worker_concurrency"]), "--hostname", "worker@%h"]
            children["beat"] = [python, "-m", "celery", "-A", "goat", "beat", "--loglevel", "INFO",
                                "--schedule", str(settings.GOAT_DATA_DIR / "celerybeat-schedule")]
        procs: dict[str, subprocess.Popen] = {}
        stopping = False

        def stop(*_):
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        for name, cmd in children.items():
            procs[name] = subprocess.Popen(cmd, start_new_session=True)
        base = f"http://{'localhost' if host in ('127.0.0.1', '0.0.0.0') else host}:{port}"
        self.stdout.write(self.style.SUCCESS(
            f"goat is running ({', '.join(procs)}); Ctrl-C stops it\n"
            f"  API docs    {base}/api/docs/\n"
            f"  API schema  {base}/api/schema/\n"
            f"  admin       {base}/admin/\n"
            f"  health      {base}/health/\n"
            f"  pages       {base}/leaderboards/  {base}/tournaments/\n"
            f"  data        {settings.GOAT_DATA_DIR}"
        ))
        code = 0
        while not stopping:
            for name, proc in procs.items():
                if proc.poll() is not None:
                    self.stderr.write(f"{name} exited with code {proc.returncode}; stopping the others")
                    code = proc.returncode or 1
                    stopping = True
                    break
            time.sleep(0.5)
        self._stop(procs)
        return_code = code
        if return_code:
            sys.exit(return_code)

    def _stop(self, procs: dict[str, subprocess.Popen]) -> None:
        for proc in procs.values():
            if proc.poll() is None:
                proc.terminate()  # each parent (gunicorn master, celery) stops its own children
        deadline = time.monotonic() + 15
        for name, proc in procs.items():
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self.stderr.write(f"{name} did not stop in time; killing it")
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        self.stdout.write("stopped")

    def _ensure_staff(self) -> None:
        User = get_user_model()
        username = os.environ.get("GOAT_ADMIN_USERNAME", "admin")
        if User.objects.filter(username=username).exists():
            self.stdout.write(f"staff account {username!r} exists (its password was printed at its first start; "
                              f"change it with: python manage.py changepassword {username})")
            return
        password = os.environ.get("GOAT_ADMIN_PASSWORD") or secrets.token_urlsafe(12)
        User.objects.create_superuser(username=username, password=password, email="")
        shown = "(from GOAT_ADMIN_PASSWORD)" if os.environ.get("GOAT_ADMIN_PASSWORD") else password
        self.stdout.write(self.style.WARNING(f"created staff account {username!r} with password: {shown}"))
