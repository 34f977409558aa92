"""Two ``manage.py run`` started at the same moment against one fresh PostgreSQL database both become
healthy: one migrates and makes the staff account under the migrations lock, the other waits for it
(goat.web.db.locks.migrations_lock; docs/operations.md "Scaling out")."""

from __future__ import annotations

import os
import uuid

import dj_database_url
import psycopg
import pytest

from testkit import RUN_THROTTLES_OFF, ManageRun

pytestmark = [
    pytest.mark.realprocess,
    pytest.mark.skipif(not os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://")),
                       reason="needs PostgreSQL: DATABASE_URL names no PostgreSQL server (CI's services pass "
                              "sets one); two nodes share one database only there"),
]


@pytest.fixture
def fresh_database():
    """A new, empty database on DATABASE_URL's server (dropped afterwards); its URL."""
    config = dj_database_url.parse(os.environ["DATABASE_URL"])
    name = f"goat_together_{uuid.uuid4().hex[:10]}"
    server = {"host": config["HOST"] or "127.0.0.1", "port": config["PORT"] or 5432, "user": config["USER"],
              "password": config["PASSWORD"] or None, "dbname": "postgres"}
    with psycopg.connect(**server, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    url = f"postgres://{config['USER']}{':' + config['PASSWORD'] if config['PASSWORD'] else ''}" \
          f"@{server['host']}:{server['port']}/{name}"
    try:
        yield url
    finally:
        with psycopg.connect(**server, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_two_runs_started_together_on_one_fresh_database_both_become_healthy(tmp_path, fresh_database):
    env = {**RUN_THROTTLES_OFF, "DATABASE_URL": fresh_database}
    nodes = []
    for name in ("a", "b"):  # started back to back: both migrate a database that has no tables yet
        (tmp_path / name).mkdir()
        nodes.append(ManageRun(tmp_path / name, args=["--no-worker", "--web-workers", "1"], env=env))
    try:
        for node in nodes:
            node.wait_healthy(240)
        outputs = [node.output(100_000) for node in nodes]
    finally:
        for node in nodes:
            node.terminate()
        for node in nodes:
            node.stop()
    assert not any("IntegrityError" in output or "Traceback" in output for output in outputs), outputs
    made = [output for output in outputs if "created staff account 'admin'" in output]
    assert len(made) == 1, outputs  # exactly one node made it; the other found it
    assert all("database migrated" in output for output in outputs)
