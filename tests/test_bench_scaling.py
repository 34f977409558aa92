"""bench/scaling.py's leaderboard part loads its ledger with raw ``INSERT ... SELECT`` statements, which
a new NOT NULL column without a database default breaks (the computer columns of ``goat_game`` once
did, unseen until a full ``run_all``). It runs here in smoke size on a scratch PostgreSQL database,
through run_all's own helpers."""

from __future__ import annotations

import os

import pytest
from django.db import connection

from bench import run_all
from testkit import test_database_url

pytestmark = [pytest.mark.database, pytest.mark.django_db]


def test_the_scaling_bench_loads_its_ledger_on_the_current_schema():
    if connection.vendor != "postgresql":
        pytest.skip("the leaderboard part of bench/scaling.py needs PostgreSQL")
    admin = test_database_url()
    [scratch] = run_all.scratch_databases(admin, 1)
    try:
        env = {**os.environ, "DATABASE_URL": scratch}
        env.pop("DJANGO_SETTINGS_MODULE", None)
        figures, _ = run_all.run_bench("scaling.py", ["--part", "leaderboard", "--quick"], env, timeout=300)
    finally:
        run_all.drop_databases(admin, [scratch])
    assert "error" not in figures, figures["error"]
    board = figures["leaderboard"]
    assert board["large_entries"] > board["small_entries"] > 0 and board["large_players"] > 0, board
    assert board["large_page1_ms"] > 0 and board["large_last_page_ms"] > 0, board
