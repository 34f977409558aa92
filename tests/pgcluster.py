"""Throwaway PostgreSQL clusters for real-process tests (importable as ``pgcluster``: tests/ is on the
path): a primary made with initdb in a temporary directory on a free port, and a streaming standby of
it made with ``pg_basebackup -R``. Stopping them disturbs nothing else. They need PostgreSQL's server
binaries (Debian's, /usr/lib/postgresql/N/bin; .ci/run installs them); initdb refuses root, so as
root the servers run as the ``postgres`` (or CI's ``goatci``) system user through ``runuser``.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import psycopg

from testkit import free_port

PG_BIN = next(iter(sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)), None) or (
    str(Path(shutil.which("initdb")).parent) if shutil.which("initdb") else None)


def pg_user() -> str | None:
    """initdb refuses root: run the server as ``postgres`` (or CI's ``goatci``) then; None when not root,
    "missing" when root has no such user (or no runuser) to run it as."""
    if os.geteuid() != 0:
        return None
    if shutil.which("runuser") is None:
        return "missing"
    for name in ("postgres", "goatci"):
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            continue
    return "missing"


def unavailable_reason() -> str | None:
    """Why no cluster can be made here (None: one can)."""
    if PG_BIN is None:
        return "needs PostgreSQL's server binaries (/usr/lib/postgresql/N/bin; .ci/run installs them)"
    if pg_user() == "missing":
        return "as root, needs runuser and a postgres (or goatci) system user for initdb"
    return None


class Cluster:
    """A primary (``Cluster()``), or a standby of one (``Cluster.standby_of(primary)``); both listen on
    127.0.0.1 with trust authentication, as the user ``goat``, with a database ``goat``."""

    def __init__(self, *, data_from: Cluster | None = None, prefix: str = "goat-pg-"):
        self.user = pg_user()
        self.port = free_port()
        # a directory the server's user can reach (pytest's temporary directories are private to root)
        self.root = Path(tempfile.mkdtemp(prefix=prefix))
        self.root.chmod(0o755)
        self.data = self.root / "data"
        self._chown(self.root)  # the server writes its log and socket there
        try:
            if data_from is None:
                self.run("initdb", "-D", str(self.data), "--auth=trust", "--username=goat", "--encoding=UTF8",
                         "--locale=C")
                self.start()
                self.run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "goat", "goat")
            else:
                # -R: standby.signal and primary_conninfo; -X stream: the WAL of the copy comes along
                self.run("pg_basebackup", "-h", "127.0.0.1", "-p", str(data_from.port), "-U", "goat", "-D",
                         str(self.data), "-R", "-X", "stream", "-c", "fast")
                self.start()
        except BaseException:
            self.destroy()  # a server that started, a directory that was made
            raise

    @classmethod
    def standby_of(cls, primary: Cluster) -> Cluster:
        return cls(data_from=primary, prefix="goat-pg-standby-")

    @property
    def url(self) -> str:
        return f"postgres://goat@127.0.0.1:{self.port}/goat"

    @property
    def conninfo(self) -> str:
        return f"host=127.0.0.1 port={self.port} user=goat dbname=goat"

    def _chown(self, path: Path) -> None:
        if self.user:
            shutil.chown(path, self.user)

    def run(self, program: str, *args: str) -> str:
        cmd = [f"{PG_BIN}/{program}", *args]
        if self.user:
            cmd = ["runuser", "-u", self.user, "--", *cmd]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
        assert done.returncode == 0, f"{program}: {done.stdout}{done.stderr}"
        return done.stdout

    def start(self) -> float:
        self.run("pg_ctl", "-D", str(self.data), "-l", str(self.root / "server.log"), "-w", "start", "-o",
                 f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off")
        return time.monotonic()

    def stop(self) -> None:
        self.run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    def query(self, sql: str, params: tuple = ()) -> list[tuple]:
        with psycopg.connect(self.conninfo, autocommit=True, connect_timeout=10) as conn:
            return conn.execute(sql, params).fetchall()

    def destroy(self) -> None:
        try:
            if (self.data / "postmaster.pid").exists():
                self.run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
