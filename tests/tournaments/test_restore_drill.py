"""The restore drill of docs/operations.md ("Backups and restore"), on PostgreSQL: a database with
finished games, a finished tournament and chips that moved is dumped with ``pg_dump -Fc``, restored
with ``pg_restore`` into a fresh database, and there ``verify_games --all`` and the rebuilds
(``rebuild_games``, ``rebuild_ratings``, ``rebuild_standings``) run as an operator runs them (the
management commands, in processes of their own). Every game verifies, and the ratings, skill
ratings, leaderboards, standings and chip balances are those of before the dump.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
from io import StringIO
from pathlib import Path

import psycopg
import pytest
from django.core.management import call_command
from django.db import connection

from goat.games import services as game_services
from goat.games.models import Game
from tournaments import services

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.database

#: what must come back: every figure a player or a tournament director sees, as sorted rows
FIGURES = {
    "ratings": "SELECT game_id, player_id, seat, points, reason, goat FROM ratings_ratingentry",
    "chips": "SELECT player_id, balance FROM ratings_chipaccount",
    "chip ledger": "SELECT player_id, game_id, amount, kind FROM ratings_chipledgerentry",
    "skill": "SELECT player_id, ruleset, mu, sigma, games FROM ratings_skillrating",
    "leaderboards": "SELECT board, player_id, rating, games, goats FROM ratings_leaderboardrow",
    "standings": ("SELECT tournament_id, player_id, points, games, goats, game_points, byes, rank"
                  " FROM tournaments_standing"),
    "games": "SELECT id, status, version, last_hash FROM goat_game",
}


def _pg_bin(name: str) -> str:
    found = shutil.which(name) or next(iter(sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)), None)
    if found is None:
        pytest.skip(f"{name} not found (PostgreSQL client binaries)")
    return found


def _figures(conninfo: str) -> dict[str, list[tuple]]:
    with psycopg.connect(conninfo) as conn, conn.cursor() as cursor:
        out = {}
        for name, sql in FIGURES.items():
            cursor.execute(sql)
            out[name] = sorted(cursor.fetchall(), key=repr)
        return out


def _manage(database_url: str, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "PROMETHEUS_MULTIPROC_DIR"}}
    return subprocess.run([sys.executable, str(REPO / "manage.py"), *args], cwd=REPO,
                          env={**env, "DATABASE_URL": database_url, "CELERY_TASK_ALWAYS_EAGER": "1"},
                          capture_output=True, text=True, timeout=300)


@pytest.mark.django_db(transaction=True)
def test_a_dump_restored_into_a_fresh_database_verifies_and_rebuilds_to_the_same_figures(bots, make_tournament,
                                                                                          tmp_path):
    if connection.vendor != "postgresql":
        pytest.skip("the drill is pg_dump and pg_restore (the PostgreSQL pass of .ci/run runs it)")
    pg_dump, pg_restore = _pg_bin("pg_dump"), _pg_bin("pg_restore")

    players = bots(6)
    tournament = make_tournament(table_size=3, rounds=2)
    for player in players:
        services.tournament_register(tournament_id=tournament.pk, player=player)
    services.tournaments_start_due()
    # games with an ante beside the tournament: chips move (stakes in escrow, payouts)
    for a, b in ((0, 1), (2, 3), (4, 5)):
        game = game_services.game_create(player=players[a], ruleset="goat-classic", seats=2,
                                         options={"move_time": 0, "limit": 25, "ante": 10}).game
        game_services.game_join(game_id=game.pk, player=players[b])
    call_command("play_bots", "--until-done", "--seed", "5", stdout=StringIO())
    tournament.refresh_from_db()
    assert tournament.status == "finished"
    assert not Game.objects.exclude(status__in=["finished", "interrupted"]).exists()
    assert Game.objects.filter(options__ante__gt=0).exists()

    params = connection.get_connection_params()
    source = connection.settings_dict["NAME"]
    base = f"host={params.get('host', '127.0.0.1')} port={params.get('port', 5432)} user={params.get('user', '')}"
    password = params.get("password")
    env = {**os.environ, **({"PGPASSWORD": password} if password else {})}
    before = _figures(f"{base} dbname={source}")
    assert before["ratings"] and before["standings"] and before["chip ledger"]

    dump = tmp_path / "goat.dump"
    subprocess.run([pg_dump, "-Fc", "-h", params.get("host", "127.0.0.1"), "-p", str(params.get("port", 5432)),
                    "-U", params.get("user", ""), "-f", str(dump), source], check=True, env=env, timeout=120)
    restored = f"{source}_restored"
    with psycopg.connect(f"{base} dbname=postgres", autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{restored}"')
        admin.execute(f'CREATE DATABASE "{restored}"')
    try:
        subprocess.run([pg_restore, "--no-owner", "-h", params.get("host", "127.0.0.1"), "-p",
                        str(params.get("port", 5432)), "-U", params.get("user", ""), "-d", restored, str(dump)],
                       check=True, env=env, timeout=120)
        user = params.get("user", "")
        auth = f"{user}:{password}@" if password else f"{user}@"
        url = f"postgres://{auth}{params.get('host', '127.0.0.1')}:{params.get('port', 5432)}/{restored}"

        verified = _manage(url, "verify_games", "--all")
        assert verified.returncode == 0, verified.stdout[-2000:] + verified.stderr[-2000:]
        games = Game.objects.count()
        assert f"{games} game(s) verified, 0 failed" in verified.stderr
        assert verified.stdout.count(": ok (") == games
        # the three rebuilds in docs/operations.md's order, in one process (one Django start, not three)
        rebuilt = _manage(url, "shell", "-c", "from django.core.management import call_command\n"
                          "for name in ('rebuild_games', 'rebuild_ratings', 'rebuild_standings'): call_command(name)")
        assert rebuilt.returncode == 0, rebuilt.stdout[-2000:] + rebuilt.stderr[-2000:]
        assert "standings" in rebuilt.stdout

        after = _figures(f"{base} dbname={restored}")
        for name in FIGURES:
            assert after[name] == before[name], name
    finally:
        with psycopg.connect(f"{base} dbname=postgres", autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{restored}" WITH (FORCE)')
