"""Every task the code sends by name, and every task the beat schedules, is registered in any process
that loads Django: a web server, a management command or a shell, not only a Celery worker (whose
start-up alone runs Celery's task autodiscovery)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# A fresh interpreter: the test process has imported every tasks module already.
_PROBE = """
import json
import django
django.setup()
from django.conf import settings
from goat.celery import app
from tournaments.services import ADVANCE_TASK
wanted = sorted({entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()} | {ADVANCE_TASK})
print(json.dumps({"wanted": wanted, "missing": [name for name in wanted if name not in app.tasks]}))
"""


def test_a_process_that_only_sets_up_django_knows_every_task_it_may_send(tmp_path):
    environ = {**os.environ, "GOAT_DATA_DIR": str(tmp_path), "DJANGO_SETTINGS_MODULE": "goat.settings",
               "DATABASE_URL": f"sqlite:///{tmp_path / 'probe.sqlite3'}", "CELERY_BROKER_URL": "filesystem://"}
    out = subprocess.run([sys.executable, "-c", _PROBE], cwd=ROOT, env=environ, check=True, timeout=120,
                         capture_output=True, text=True).stdout
    found = json.loads(out.strip().splitlines()[-1])
    assert "tournaments.tasks.tournament_advance" in found["wanted"]
    assert found["missing"] == []
