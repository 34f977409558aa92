"""Where a move's CPU goes: moves through Django's WSGI handler in process, under pyinstrument.

    python bench/move_profile.py [--moves N] [--depth D]

Against the configured database (``DATABASE_URL``; without one a throwaway SQLite file). Plays N
moves (default 2,000) of 2-seat goat-classic games through ``POST /api/games/{id}/moves/`` with
``If-Match`` and a token, as bench/http_load.py's clients do, calling the WSGI application directly
(no server, no sockets), and prints: CPU time per move (``time.process_time``), the CPU of the
parts of a move (cProfile on ``time.process_time``: cumulative CPU per move of the functions named
in ``PARTS``), and pyinstrument's tree (wall time of this one thread, so waiting on the database
shows too).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import use_database  # noqa: E402

#: (label, module file suffix, function name): the parts of a move whose CPU is reported
PARTS = [
    ("the whole request (WSGI handler)", "django/core/handlers/wsgi.py", "__call__"),
    ("DRF dispatch (view, auth, throttles, rendering)", "rest_framework/views.py", "dispatch"),
    ("token authentication (with the health check)", "goat/web/api/auth.py", "authenticate_credentials"),
    ("throttles", "rest_framework/views.py", "check_throttles"),
    ("the service game_play_tile", "goat/games/services.py", "game_play_tile"),
    ("  load: head + seat (one SELECT)", "goat/games/eventstore.py", "game_head"),
    ("  load: snapshot (JSON)", "goat/games/eventstore.py", "snapshot_load"),
    ("  engine decide", "goat/engine/decide.py", "decide"),
    ("  read model + snapshot (JSON)", "goat/games/services.py", "_sync_read_model"),
    ("  append (one statement)", "goat/games/eventstore.py", "events_append"),
    ("move serializer", "rest_framework/serializers.py", "is_valid"),
    ("game view (selectors)", "goat/games/selectors.py", "game_view"),
    ("redaction", "goat/games/selectors.py", "redact_events"),
    ("response rendering", "rest_framework/response.py", "rendered_content"),
]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=2000)
    parser.add_argument("--depth", type=int, default=12)
    args = parser.parse_args(argv)
    use_database("bench.bench_settings")
    import django

    django.setup()
    from django.core.handlers.wsgi import WSGIHandler
    from django.core.management import call_command
    from django.db import connection
    from http_load import prepare_games
    from pyinstrument import Profiler

    call_command("migrate", verbosity=0)
    handler = WSGIHandler()
    plans = prepare_games(max(1, args.moves // 200), 200, seed=3)
    jobs = [(p["game"], p["tokens"][seat], version, body) for p in plans for seat, version, body in p["moves"]]
    jobs.sort(key=lambda job: (job[2], job[0]))  # games interleaved, each game's moves in order

    def move(game_id, token, version, body) -> int:
        status = []
        environ = {"REQUEST_METHOD": "POST", "PATH_INFO": f"/api/games/{game_id}/moves/", "SERVER_NAME": "localhost",
                   "SERVER_PORT": "80", "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO(body),
                   "CONTENT_LENGTH": str(len(body)), "CONTENT_TYPE": "application/json",
                   "HTTP_AUTHORIZATION": f"Token {token}", "HTTP_IF_MATCH": f'"{version}"', "wsgi.errors": sys.stderr}
        b"".join(handler(environ, lambda s, h: status.append(s)))
        return int(status[0].split()[0])

    for job in jobs[:50]:  # warm up: prepared statements, caches
        assert move(*job) == 201
    half = 50 + (len(jobs) - 50) // 2
    stats = cProfile.Profile(time.process_time)
    cpu = time.process_time()
    stats.enable()
    for job in jobs[50:half]:
        assert move(*job) == 201
    stats.disable()
    cpu = time.process_time() - cpu
    moves = half - 50
    print(json.dumps({"database": connection.vendor, "moves": moves, "cpu_ms_per_move": round(cpu / moves * 1000, 3),
                      "note": "under cProfile (its overhead included)"}))
    table = pstats.Stats(stats).stats
    for label, suffix, name in PARTS:
        found = [v for (path, _line, func), v in table.items() if path.endswith(suffix) and func == name]
        cum = sum(v[3] for v in found)
        print(f"  {label:50s} {cum / moves * 1000:7.3f} ms CPU per move")
    profiler = Profiler(interval=0.0002)
    profiler.start()
    for job in jobs[half:]:
        assert move(*job) == 201
    profiler.stop()
    print(profiler.output_text(unicode=False, color=False, show_all=False, timeline=False)
          .split("\n", 6)[-1][:20000])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
