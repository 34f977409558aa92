"""PgBouncer in transaction mode in front of the test run's PostgreSQL (docs/operations.md "PgBouncer"):
Debian's ``pgbouncer`` on a free port, ``python manage.py run`` (web, worker and beat) with
DATABASE_POOLER=pgbouncer and its DATABASE_URL pointing at PgBouncer.

* A short real game is played over HTTP through it (moves with If-Match and Idempotency-Key, a key
  sent twice answered from its record), it verifies, and its projections (run by the worker) land.
* goat.web.db.locks under transaction pooling: while one process holds a lock another is refused, and
  once it is released another takes it (a session-level lock would be taken on one server connection
  and released on another: PgBouncer hands a later caller the same server connection, and the lock
  looks free to it).
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from games.test_streams_run import Client
from pgcluster import pg_user

from testkit import REPO, RUN_THROTTLES_OFF, GroupProcess, ManageRun, free_port, test_database_url, wait_for

START_TIMEOUT = 120
PGBOUNCER = shutil.which("pgbouncer") or next((p for p in ("/usr/sbin/pgbouncer",) if os.path.exists(p)), None)

pytestmark = [
    pytest.mark.realprocess,
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes"),
    pytest.mark.skipif(settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql",
                       reason="needs PostgreSQL in DATABASE_URL (the services pass of .ci/run)"),
    pytest.mark.skipif(PGBOUNCER is None, reason="needs Debian's pgbouncer (apt-get install pgbouncer)"),
    pytest.mark.skipif(pg_user() == "missing", reason="as root, needs runuser and a postgres system user: "
                                                      "PgBouncer refuses to run as root"),
]


class PgBouncer(GroupProcess):
    """PgBouncer in transaction mode on a free port, in front of the server of ``database_url``."""

    def __init__(self, database_url: str, *, pool_size: int = 4):
        target = urlsplit(database_url)
        self.user_name = target.username or "postgres"
        self.port = free_port()
        self.root = Path(tempfile.mkdtemp(prefix="goat-pgbouncer-"))
        self.root.chmod(0o755)
        (self.root / "userlist.txt").write_text(f'"{self.user_name}" ""\n')
        password = f" password={target.password}" if target.password else ""
        (self.root / "pgbouncer.ini").write_text(f"""\
[databases]
* = host={target.hostname or '127.0.0.1'} port={target.port or 5432}{password}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {self.port}
unix_socket_dir =
auth_type = trust
auth_file = {self.root}/userlist.txt
pool_mode = transaction
default_pool_size = {pool_size}
max_client_conn = 500
server_round_robin = 0
ignore_startup_parameters = extra_float_digits,options
logfile = {self.root}/pgbouncer.log
""")
        user = pg_user()
        if user:
            shutil.chown(self.root, user)
            for path in self.root.iterdir():
                shutil.chown(path, user)
        cmd = [PGBOUNCER, str(self.root / "pgbouncer.ini")]
        super().__init__(["runuser", "-u", user, "--", *cmd] if user else cmd, cwd=self.root,
                         env={**os.environ}, log_path=self.root / "stdout.log")
        self.url = database_url.replace(f"{target.hostname}:{target.port}", f"127.0.0.1:{self.port}", 1)
        wait_for(self._answers, timeout=30, what="pgbouncer to listen")

    def _answers(self) -> bool:
        assert self.proc.poll() is None, (self.root / "pgbouncer.log").read_text(errors="replace")[-3000:]
        import psycopg

        try:
            with psycopg.connect(self._conninfo(), connect_timeout=3, prepare_threshold=None) as conn:
                return conn.execute("SELECT 1").fetchone() == (1,)
        except psycopg.OperationalError:
            return False

    def _conninfo(self) -> str:
        return self.url.replace("postgres://", "postgresql://", 1)

    def destroy(self) -> None:
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture
def bouncer(transactional_db):
    running = PgBouncer(test_database_url())
    try:
        yield running
    finally:
        running.destroy()


def _play_to_the_end(client: Client, tokens: dict[str, str], game_id: int) -> dict:
    for _ in range(2000):
        status, _, view = client.call("GET", f"/api/games/{game_id}/", token=tokens["pgb-a"])
        assert status == 200, view
        if view["status"] != "running":
            return view
        player = view["seats"][view["turn"]]["player"]
        status, headers, mine = client.call("GET", f"/api/games/{game_id}/", token=tokens[player])
        headers = {k.lower(): v for k, v in headers.items()}
        move = mine["legal_moves"][0]
        body = {"tile": move["tile"], **({"end": move["end"]} if move.get("end") else {})}
        sent = {"If-Match": headers["etag"], "Idempotency-Key": secrets.token_hex(8)}
        status, _, answer = client.call("POST", f"/api/games/{game_id}/moves/", body, tokens[player], sent)
        assert status == 201, answer
        again = client.call("POST", f"/api/games/{game_id}/moves/", body, tokens[player], sent)
        replayed = {k.lower(): v for k, v in again[1].items()}.get("idempotent-replayed")
        assert (again[0], replayed, again[2]) == (201, "true", answer)
    raise AssertionError("the game did not end")


def test_a_short_game_through_pgbouncer_in_transaction_mode(bouncer, tmp_path):
    server = ManageRun(tmp_path, args=["--web-workers", "1"], env={
        "DATABASE_URL": bouncer.url, "DATABASE_POOLER": "pgbouncer", "GOAT_ADMIN_PASSWORD": "staff-pass-123",
        "GOAT_COMPUTER_THINK_SECONDS": "0", **RUN_THROTTLES_OFF})
    try:
        server.wait_healthy(START_TIMEOUT)
        client = Client(server)
        tokens = {name: client.player(name) for name in ("pgb-a", "pgb-b")}
        status, _, game = client.call("POST", "/api/games/", {"ruleset": "goat-classic", "seats": 2,
                                                              "options": {"limit": 13, "move_time": 0}},
                                      tokens["pgb-a"])
        assert status == 201, game
        assert client.call("POST", f"/api/games/{game['id']}/join/", {}, tokens["pgb-b"])[0] == 200
        final = _play_to_the_end(client, tokens, game["id"])
        assert final["status"] == "finished", final
        status, _, verified = client.call("GET", f"/api/games/{game['id']}/verify/", token=tokens["pgb-a"])
        assert status == 200 and verified["hash_chain"] and verified["replay"], verified
        # the worker (through PgBouncer too) applies the game's projections: the rating entries appear
        wait_for(lambda: client.call("GET", "/api/players/pgb-a/ratings/")[2].get("count", 0) > 0, timeout=90,
                 what="the rating entries of the game (the worker's projections)")
        assert server.proc.poll() is None
        assert "prepared statement" not in server.output(200_000)
    finally:
        server.stop()


LOCK_SCRIPT = """
import sys, time, django
django.setup()
from goat.web.db import locks
with locks.held("pgbouncer-test") as mine:
    print("got" if mine else "refused", flush=True)
    if sys.argv[1] == "hold":
        sys.stdin.readline()
print("released", flush=True)
"""


def test_a_periodic_task_lock_is_exclusive_and_released_under_transaction_pooling(bouncer):
    env = {**{k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "DATABASE_REPLICA_URL"}},
           "DJANGO_SETTINGS_MODULE": "goat.settings", "DATABASE_URL": bouncer.url, "DATABASE_POOLER": "pgbouncer"}

    def once(mode: str, **kwargs) -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-c", LOCK_SCRIPT, mode], cwd=REPO, env=env, text=True,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, **kwargs)

    holder = once("hold")
    try:
        assert holder.stdout.readline().strip() == "got"
        for _ in range(3):  # each lands on one of the pool's server connections, the holder's busy one aside
            other = once("try")
            assert other.communicate(timeout=60)[0].split() == ["refused", "released"]
        holder.stdin.write("\n")
        holder.stdin.flush()
        assert holder.stdout.readline().strip() == "released"
        assert holder.wait(timeout=30) == 0
    finally:
        if holder.poll() is None:
            holder.kill()
    time.sleep(0.2)
    after = once("try")
    assert after.communicate(timeout=60)[0].split() == ["got", "released"]
