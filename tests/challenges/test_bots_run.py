"""The example bot (examples/goat_bot.py, docs/api.md "Write a bot") against the real ``python
manage.py run``: two bots play a whole game through challenges alone (one challenges the other at
its start; each hears of it on its bot stream, the challenged accepts, both follow the game's stream
and move until it ends)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from testkit import RUN_THROTTLES_OFF, ManageRun

REPO = Path(__file__).resolve().parents[2]
BOT = REPO / "examples" / "goat_bot.py"
pytestmark = [pytest.mark.realprocess]


def _client(run):
    sys.path.insert(0, str(REPO / "tests" / "games"))
    try:
        from test_streams_run import Client
    finally:
        sys.path.pop(0)
    return Client(run)


def test_two_example_bots_play_each_other_through_challenges_alone(tmp_path):
    run = ManageRun(tmp_path, args=["--web-workers", "1", "--worker-concurrency", "1"], migrated=True,
                    env={"GOAT_STREAM_KEEPALIVE_SECONDS": "1", **RUN_THROTTLES_OFF})
    try:
        run.wait_healthy(90)
        client = _client(run)
        tokens = {name: client.player(name) for name in ("robo-a", "robo-b")}
        bots = [subprocess.Popen([sys.executable, str(BOT), run.base, tokens["robo-b"], "--games", "1"],
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)]
        try:
            first = bots[0].stdout.readline()
            assert first.startswith("bot robo-b ready"), first
            bots.append(subprocess.Popen([sys.executable, str(BOT), run.base, tokens["robo-a"], "--games", "1",
                                          "--challenge", "robo-b", "--rulesets", "goat-classic"],
                                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
            outputs = [bot.communicate(timeout=240)[0] for bot in reversed(bots)]
        finally:
            for bot in bots:
                if bot.poll() is None:
                    bot.kill()
        assert [bot.returncode for bot in bots] == [0, 0], outputs
        challenger, challenged = outputs
        assert "challenged robo-b: 201" in challenger and "accepted challenge" in challenged, outputs
        assert "finished" in challenger and "finished" in challenged, outputs
        status, _, games = client.call("GET", "/api/players/me/games/", token=tokens["robo-a"])
        assert status == 200 and games["count"] == 1
        game = games["results"][0]
        assert game["status"] == "finished" and game["result"]["reason"] in ("limit", "rounds")
        assert [seat["bot"] for seat in game["seats"]] == [True, True]
        status, _, profile = client.call("GET", "/api/players/robo-a/", token=tokens["robo-b"])
        assert profile["bot"] is True
    finally:
        run.stop()
