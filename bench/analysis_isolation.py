"""Do moves wait behind an analysis? (docs/computer.md "Analysis": its own queue and worker.)

    DATABASE_URL=postgres://... CELERY_BROKER_URL=redis://... GOAT_ANALYSIS_SAMPLES=1500 \
        python bench/analysis_isolation.py

Migrates the database, plays one four-seat goat-classic game (the computer standing in for its four
accounts at the level random: goat.games.computer.stand_ins_play), starts the ordinary
worker (as ``manage.py run`` does: concurrency 2, the default queues) and the analysis worker
(``-Q analysis``, concurrency 1, ``nice -n 10``), then sends a no-op ``goat.tasks.computer_move``
(game 0: it returns at once) every 0.25 s, 60 times with no analysis and 60 times while the game is
analysed (enough samples that it lasts the whole phase), and prints, per phase, the time from the
send to the task's end as the worker logs it (p50, p99, max). Leaves a game and its analysis in the
database: use a database of its own. The worker logs local time: run it with TZ=UTC.
"""

from __future__ import annotations

import datetime
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "goat.settings")
LOGS = Path(tempfile.mkdtemp(prefix="goat-isolation-"))

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402

from goat.celery import app  # noqa: E402
from goat.games import analysis, services  # noqa: E402
from goat.games.computer import stand_ins_play  # noqa: E402
from goat.games.models import GameAnalysis  # noqa: E402

FINISHED = re.compile(r"\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}): INFO/[\w-]+\] "
                      r"Task goat\.tasks\.computer_move\[([0-9a-f-]+)\] succeeded")


def worker(name: str, queue_args: list[str], concurrency: int, niced: bool) -> subprocess.Popen:
    cmd = ["nice", "-n", "10"] if niced else []
    cmd += [sys.executable, "-m", "celery", "-A", "goat", "worker", *queue_args, "--concurrency", str(concurrency),
            "--loglevel", "INFO", "--hostname", f"{name}-{os.getpid()}@%h"]
    return subprocess.Popen(cmd, cwd=str(REPO), env={**os.environ, "CELERY_TASK_ALWAYS_EAGER": "0"},
                            stdout=open(LOGS / f"{name}.log", "w"), stderr=subprocess.STDOUT, start_new_session=True)


def main() -> None:
    call_command("migrate", interactive=False, verbosity=0)
    users = [get_user_model().objects.get_or_create(username=f"isolation{i}")[0] for i in range(4)]
    game = services.game_create(player=users[0], ruleset="goat-classic", seats=4, options={"move_time": 0}).game
    for user in users[1:]:
        services.game_join(game_id=game.pk, player=user)
    stand_ins_play(everyone=True, game_ids=[game.pk], until_done=True, seed=1)
    procs = [worker("worker", [], 2, False), worker("analysis", ["-Q", "analysis"], 1, True)]
    started = time.time()
    while not all("ready." in (LOGS / f"{name}.log").read_text() for name in ("worker", "analysis")):
        assert time.time() - started < 120, "the workers did not start"
        time.sleep(0.5)
    sent: dict[str, tuple[str, float]] = {}

    def phase(label: str, count: int = 60) -> None:
        for _ in range(count):
            result = app.tasks["goat.tasks.computer_move"].apply_async((0, 0))
            sent[result.id] = (label, time.time())
            time.sleep(0.25)

    phase("idle")
    analysis.analysis_request(game_id=game.pk)
    time.sleep(2)
    at_start = GameAnalysis.objects.get(game=game).status
    phase("analysing")
    at_end = GameAnalysis.objects.get(game=game).status
    time.sleep(3)
    for proc in procs:
        os.killpg(proc.pid, signal.SIGTERM)
    for proc in procs:
        proc.wait(timeout=30)
    took: dict[str, list[float]] = {"idle": [], "analysing": []}
    for match in FINISHED.finditer((LOGS / "worker.log").read_text()):
        if match.group(2) in sent:
            label, at = sent[match.group(2)]
            ended = datetime.datetime.strptime(match.group(1), "%Y-%m-%d %H:%M:%S,%f").replace(tzinfo=datetime.UTC)
            took[label].append(ended.timestamp() - at)
    for label, times in took.items():
        times.sort()
        p99 = times[min(len(times) - 1, int(0.99 * (len(times) - 1)))]
        print(f"{label}: {len(times)} tasks, p50 {times[len(times) // 2] * 1e3:.1f} ms, p99 {p99 * 1e3:.1f} ms, "
              f"max {times[-1] * 1e3:.1f} ms")
    print(f"analysis {at_start} at the start of the second phase, {at_end} at its end; load {os.getloadavg()}")


if __name__ == "__main__":
    main()
