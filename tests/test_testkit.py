"""The process helper of the live tests leaves nothing running (testkit.GroupProcess)."""

from __future__ import annotations

import os
import signal
import sys
import time

import pytest

from testkit import GroupProcess

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="process groups are POSIX")

# a parent that starts a child (as `celery worker --beat` starts its beat) and exits on SIGTERM
# without stopping it
PARENT = """
import os, signal, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
print("child", child.pid, flush=True)
signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
time.sleep(600)
"""


def _started(tmp_path) -> tuple[GroupProcess, int]:
    process = GroupProcess([sys.executable, "-c", PARENT], cwd=tmp_path, env=dict(os.environ),
                           log_path=tmp_path / "parent.log")
    deadline = time.monotonic() + 30
    while "child" not in process.output():
        assert time.monotonic() < deadline, process.output()
        time.sleep(0.05)
    return process, int(process.output().split()[1])


def _gone(pid: int) -> bool:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


def test_stop_leaves_no_child_of_the_process_running(tmp_path):
    process, child = _started(tmp_path)
    try:
        process.stop()
        assert process.proc.returncode == 0  # the parent stopped on SIGTERM by itself
        assert _gone(child), "the child outlived stop()"
        assert not process.group_alive()
    finally:
        if not _gone(child):
            os.kill(child, signal.SIGKILL)


def test_kill_is_a_crash_of_the_whole_group(tmp_path):
    process, child = _started(tmp_path)
    try:
        process.kill()
        assert process.proc.returncode == -signal.SIGKILL
        assert _gone(child)
    finally:
        if not _gone(child):
            os.kill(child, signal.SIGKILL)
