"""A Celery worker killed mid-analysis (issue 38): a real worker on the ``analysis`` queue (Redis,
PostgreSQL) is killed with SIGKILL while it analyses; the job stays ``running`` with nothing shown;
the message (acks_late) comes back to a new worker, which waits for the dead job's lease to run out,
takes the job up again and writes the whole analysis once."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import pytest
from django.conf import settings

from testkit import GroupProcess, test_database_url, wait_for

REPO = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.realprocess, pytest.mark.database]


def _analysis_worker(tmp_path: Path, name: str) -> GroupProcess:
    env = {**os.environ, "DATABASE_URL": test_database_url(), "GOAT_DATA_DIR": str(tmp_path / "data"),
           "CELERY_TASK_ALWAYS_EAGER": "0", "GOAT_ANALYSIS_LEASE_SECONDS": "4",
           "GOAT_BROKER_VISIBILITY_TIMEOUT": "3"}
    worker = GroupProcess([sys.executable, "-m", "celery", "-A", "goat", "worker", "-Q", "analysis", "--concurrency",
                           "1", "--loglevel", "INFO", "--hostname", f"{name}-{os.getpid()}@%h", "--without-mingle",
                           "--without-gossip"], cwd=REPO, env=env, log_path=tmp_path / f"{name}.log")
    wait_for(lambda: b"ready." in (tmp_path / f"{name}.log").read_bytes(), timeout=60, what=f"{name} ready")
    return worker


@pytest.mark.skipif(not settings.CELERY_BROKER_URL.startswith("redis://"), reason="needs CELERY_BROKER_URL=redis://")
def test_a_worker_killed_mid_analysis_leaves_nothing_half_written_and_the_job_is_taken_up_again(
        tmp_path, transactional_db, settings):
    import factories

    from goat.celery import app
    from goat.games import analysis, eventstore
    from goat.games.models import AnalysisStatus, GameAnalysis

    app.conf.task_always_eager = False  # the job goes to the real worker (conftest's fixture sets it back)
    settings.GOAT_ANALYSIS_SAMPLES = 400  # long enough to be killed in the middle
    settings.GOAT_ANALYSIS_LEASE_SECONDS = 4
    # a four-seat goat game at 400 samples: seconds of work even on an idle machine, so the kill below
    # (as soon as the job is seen running) lands in the middle of it
    players = factories.make_players("masha", "ivan", "olga", "petr")
    game = factories.finished_game(players, ruleset="goat-classic", options={"move_time": 0}, seed=2)
    first = _analysis_worker(tmp_path, "first")
    try:
        assert analysis.analysis_request(game_id=game.pk)[0] == 202
        wait_for(lambda: GameAnalysis.objects.get(game=game).status == AnalysisStatus.RUNNING, timeout=60,
                 what="the job running", interval=0.05)
        os.killpg(first.proc.pid, signal.SIGKILL)
        first.proc.wait(timeout=30)
    finally:
        first.kill()
    job = GameAnalysis.objects.get(game=game)
    assert job.status == AnalysisStatus.RUNNING and job.result is None  # nothing half-written
    assert analysis.analysis_read(game_id=game.pk) == (202, {"status": "running"})
    second = _analysis_worker(tmp_path, "second")
    try:
        wait_for(lambda: GameAnalysis.objects.get(game=game).status == AnalysisStatus.DONE, timeout=300,
                 what="the job taken up again and done")
    finally:
        second.stop()
    job.refresh_from_db()
    assert job.attempts == 2 and job.result["moves"] and job.samples == 400
    code, body = analysis.analysis_read(game_id=game.pk)
    plays = [e.seq for e in eventstore.events_load(game_id=game.pk) if e.type == "tile_played"]
    assert code == 200 and [m["version"] for m in body["moves"]] == plays
