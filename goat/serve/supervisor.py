"""Supervision of ``manage.py run``'s children (web, worker, beat): a child that dies is started again.

A child that exits while nobody asked it to stop is logged and started again after a backoff that
doubles with each of its exits in the last ``window`` seconds (``backoff_first`` .. ``backoff_max``).
A child that exits ``max_exits`` times within ``window`` seconds is a crash loop: supervision gives
up, stops every child and reports the loop (``Supervisor.poll`` returns the exit code to use).

On Linux the supervising process is a child subreaper (``PR_SET_CHILD_SUBREAPER``): the children of
a child that was killed (a Celery pool process, a gunicorn worker) are re-parented to it instead of
to init, so it can stop them before it starts their parent again (no orphaned pool process keeps
running tasks, no orphaned worker holds the port) and reap them. Nothing here imports Django.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

#: how long an orphan (the child of a dead child) gets after SIGTERM before SIGKILL
ORPHAN_GRACE_SECONDS = 5.0
_PR_SET_CHILD_SUBREAPER = 36


def become_subreaper(on: bool = True) -> bool:
    """Make this process the reaper of its descendants' orphans (Linux), or no longer (``on=False``);
    whether that worked."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_CHILD_SUBREAPER, 1 if on else 0, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def children_of(pid: int) -> list[int]:
    """Every descendant of ``pid`` (Linux /proc; empty elsewhere), deepest last."""
    proc = Path("/proc")
    if not proc.is_dir():
        return []
    parents: dict[int, list[int]] = {}
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        parents.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _direct_children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return [p for p in children_of(pid) if _ppid(p) == pid]
    return [int(p) for p in text.split()]


def _ppid(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


@dataclass
class Child:
    name: str
    cmd: list[str]
    proc: subprocess.Popen | None = None
    exits: deque[float] = field(default_factory=deque)
    restart_at: float | None = None
    restarts: int = 0
    #: descriptors the child inherits (the web server's listening socket)
    pass_fds: tuple[int, ...] = ()


class Supervisor:
    def __init__(self, commands: dict[str, list[str]], *, env: dict[str, str] | None = None,
                 log: Callable[[str], None] = print, max_exits: int = 5, window: float = 60.0,
                 backoff_first: float = 0.5, backoff_max: float = 10.0,
                 clock: Callable[[], float] = time.monotonic, pass_fds: dict[str, tuple[int, ...]] | None = None):
        self.children = {name: Child(name, cmd, pass_fds=(pass_fds or {}).get(name, ()))
                         for name, cmd in commands.items()}
        self.env = env
        self.log = log
        self.max_exits = max_exits
        self.window = window
        self.backoff_first = backoff_first
        self.backoff_max = backoff_max
        self.clock = clock
        self.subreaper = become_subreaper()
        #: orphans being stopped: pid -> when SIGKILL is due
        self._orphans: dict[int, float] = {}

    def start(self) -> None:
        for child in self.children.values():
            self._spawn(child)

    def _spawn(self, child: Child) -> None:
        child.proc = subprocess.Popen(child.cmd, env=self.env, pass_fds=child.pass_fds)
        child.restart_at = None

    def backoff(self, exits: int) -> float:
        """The wait before the restart that follows a child's ``exits``-th exit within the window."""
        return min(self.backoff_max, self.backoff_first * 2 ** max(0, exits - 1))

    def poll(self) -> int | None:
        """Restart what died (after its backoff) and stop orphans; an exit code once a child is in a
        crash loop (the caller then stops everything), else None."""
        now = self.clock()
        self._stop_orphans(now)
        for child in self.children.values():
            proc = child.proc
            if child.restart_at is not None:
                if now >= child.restart_at:
                    self._stop_orphans(now, wait=True)  # what the dead child left behind goes first
                    child.restarts += 1
                    self._spawn(child)
                    self.log(f"{child.name} started again (restart {child.restarts})")
                continue
            if proc is None or proc.poll() is None:
                continue
            child.exits.append(now)
            while child.exits and child.exits[0] < now - self.window:
                child.exits.popleft()
            code = proc.returncode
            how = f"killed by {signal.Signals(-code).name}" if code < 0 else f"exited with code {code}"
            if len(child.exits) >= self.max_exits:
                self.log(f"{child.name} {how}: {len(child.exits)} exits in {self.window:.0f}s, a crash loop; "
                         f"stopping everything")
                return code if code > 0 else 1
            delay = self.backoff(len(child.exits))
            self.log(f"{child.name} {how}; starting it again in {delay:.1f}s "
                     f"({len(child.exits)} of {self.max_exits} exits allowed in {self.window:.0f}s)")
            child.restart_at = now + delay
        return None

    def _stop_orphans(self, now: float, wait: bool = False) -> None:
        """Stop (SIGTERM, then SIGKILL after a grace) every child of this process that is not a
        supervised one: the re-parented children of a child that died. ``wait``: until they are gone."""
        if not self.subreaper:
            return
        ours = {c.proc.pid for c in self.children.values() if c.proc is not None and c.proc.returncode is None}
        deadline = now + ORPHAN_GRACE_SECONDS
        while True:
            orphans = [pid for pid in _direct_children(os.getpid()) if pid not in ours]
            for pid in orphans:
                if pid not in self._orphans:
                    self._orphans[pid] = self.clock() + ORPHAN_GRACE_SECONDS
                    self._signal(pid, signal.SIGTERM)
                elif self.clock() >= self._orphans[pid]:
                    self._signal(pid, signal.SIGKILL)
            for pid in list(self._orphans):
                try:
                    done, _ = os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    done = pid
                if done:
                    self._orphans.pop(pid, None)
            if not wait or not self._orphans or self.clock() > deadline + 1:
                return
            time.sleep(0.05)

    @staticmethod
    def _signal(pid: int, signum: int) -> None:
        try:
            os.kill(pid, signum)
        except ProcessLookupError:
            pass

    def stop(self, timeout: float) -> list[str]:
        """Stop every child (SIGTERM; each parent stops its own children), waiting up to ``timeout``
        seconds in all; kill what is left, with its children. The names of the killed ones."""
        running = [c for c in self.children.values() if c.proc is not None and c.proc.poll() is None]
        for child in running:
            child.proc.terminate()
        deadline = time.monotonic() + timeout
        killed = []
        for child in running:
            try:
                child.proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                killed.append(child.name)
                for pid in [child.proc.pid, *children_of(child.proc.pid)]:
                    self._signal(pid, signal.SIGKILL)
                child.proc.wait()
        self._stop_orphans(time.monotonic(), wait=True)
        return killed
