"""A record downloaded from a running ``manage.py run`` verifies in a fresh virtualenv that holds the
engine and ``cryptography`` only, where Django cannot be imported; a tampered one fails there
(docs/records.md, docs/api.md "Game records")."""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from testkit import REPO, RUN_THROTTLES_OFF, ManageRun

PASSWORD = "domino-goat-1"


def call(base: str, method: str, path: str, body: dict | None = None, token: str | None = None):
    """``(status, body)``: JSON bodies decoded, text ones as text."""
    request = urllib.request.Request(base + path, method=method,
                                     data=None if body is None else json.dumps(body).encode())
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Token {token}")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            status, kind, raw = response.status, response.headers.get("Content-Type", ""), response.read()
    except urllib.error.HTTPError as exc:
        status, kind, raw = exc.code, exc.headers.get("Content-Type", ""), exc.read()
    return status, (json.loads(raw) if "json" in kind else raw.decode("utf-8"))


def signed_up(base: str, name: str) -> str:
    assert call(base, "POST", "/api/players/", {"username": name, "password": PASSWORD})[0] == 201
    status, body = call(base, "POST", "/api/auth/token/", {"username": name, "password": PASSWORD})
    assert status == 200, body
    return body["token"]


def played_to_the_end(base: str, tokens: list[str]) -> int:
    """A two-seat game of domino-3rounds played over HTTP, each seat its first legal move, to its end."""
    status, view = call(base, "POST", "/api/games/", {"ruleset": "domino-3rounds", "seats": 2,
                                                      "options": {"move_time": 0}}, tokens[0])
    assert status == 201, view
    gid = view["id"]
    assert call(base, "POST", f"/api/games/{gid}/join/", {"client_seed": "карл"}, tokens[1])[0] == 200
    for _ in range(400):
        views = [call(base, "GET", f"/api/games/{gid}/", token=t)[1] for t in tokens]
        if views[0]["status"] != "running":
            return gid
        mover = next(i for i, v in enumerate(views) if v["legal_moves"])
        move = views[mover]["legal_moves"][0]
        status, body = call(base, "POST", f"/api/games/{gid}/moves/", move, tokens[mover])
        assert status == 201, body
    raise AssertionError("the game did not end")


def fresh_venv_with_only_cryptography(root: Path) -> Path:
    """A new virtualenv (no pip, no site packages of ours) that sees ``cryptography`` and what it
    needs to import (cffi, pycparser), linked from this interpreter's environment: its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root / "venv")], check=True, timeout=120)
    deps = root / "deps"
    deps.mkdir()
    for dist in ("cryptography", "cffi", "pycparser"):
        try:
            files = importlib.metadata.files(dist) or []
        except importlib.metadata.PackageNotFoundError:
            continue
        for top in {f.parts[0] for f in files if not f.parts[0].endswith((".dist-info", ".data")) and
                    f.parts[0] != ".." and f.parts[0] != "__pycache__"}:
            source = Path(importlib.metadata.distribution(dist).locate_file(top))
            if source.exists() and not (deps / top).exists():
                (deps / top).symlink_to(source)
    python = root / "venv" / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    Path(site, "deps.pth").write_text(str(deps) + "\n")
    return python


def engine_only(root: Path) -> Path:
    """A directory with the ``goat`` package reduced to its engine: the PYTHONPATH of the verifier."""
    src = root / "src" / "goat"
    shutil.copytree(REPO / "goat" / "engine", src / "engine", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copyfile(REPO / "goat" / "__init__.py", src / "__init__.py")
    return root / "src"


@pytest.mark.realprocess
def test_a_record_from_a_running_server_verifies_offline_without_django(tmp_path):
    server = ManageRun(tmp_path, args=["--web-workers", "1", "--no-worker"], env=RUN_THROTTLES_OFF, migrated=True)
    try:
        server.wait_healthy()
        tokens = [signed_up(server.base, "masha"), signed_up(server.base, "alex")]
        gid = played_to_the_end(server.base, tokens)
        status, record = call(server.base, "GET", f"/api/games/{gid}/record/")
        assert status == 200, record
        status, keys = call(server.base, "GET", "/api/keys/")
        assert status == 200, keys
    finally:
        server.stop()
    (tmp_path / "game.txt").write_text(record, encoding="utf-8", newline="")
    (tmp_path / "keys.json").write_text(json.dumps(keys), encoding="utf-8")
    python = fresh_venv_with_only_cryptography(tmp_path / "offline")
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(engine_only(tmp_path / "offline"))}

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(python), *args], cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=120)

    # the interpreter is honest: no Django, no goat beyond its engine, yet cryptography imports
    probe = run("-c", "import importlib.util as u, cryptography, goat.engine.records; "
                      "print(u.find_spec('django'), u.find_spec('rest_framework'), u.find_spec('goat.games'))")
    assert probe.returncode == 0 and probe.stdout.split() == ["None", "None", "None"], probe.stderr
    assert not os.path.exists(tmp_path / "offline" / "src" / "goat" / "games")

    valid = run("-m", "goat.engine", "verify", "game.txt", "--keys", "keys.json")
    assert (valid.returncode, valid.stdout) == (0, "valid\n"), valid.stderr

    def other_end(m: re.Match) -> str:
        return f"\n{m[1]} play {m[2]} {m[3]} {'right' if m[4] == 'left' else 'left'}\n"

    tampered = re.sub(r"\n(\d+ \S+) play (\d) (\S+) (left|right)\n", other_end, record, count=1)
    assert tampered != record
    (tmp_path / "tampered.txt").write_text(tampered, encoding="utf-8", newline="")
    invalid = run("-m", "goat.engine", "verify", "tampered.txt", "--keys", "keys.json")
    assert invalid.returncode == 1 and invalid.stdout.startswith("invalid: signature: "), invalid.stdout
