"""Helpers shared by the benches: timing (medians, GC paused), the machine, Django on a database.

Every bench measures a figure and its baseline in the same run and reports their ratio; absolute
times are printed for reading only.
"""

from __future__ import annotations

import gc
import json
import os
import platform
import socket
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

_TMP: tempfile.TemporaryDirectory | None = None


def timed(fn: Callable[[], Any]) -> float:
    """Wall seconds of one ``fn()`` with the garbage collector paused (as ``timeit`` does)."""
    gc.collect()
    gc.disable()
    try:
        started = time.perf_counter()
        fn()
        return time.perf_counter() - started
    finally:
        gc.enable()


def median_seconds(fn: Callable[[], Any], repeat: int) -> float:
    return statistics.median(timed(fn) for _ in range(repeat))


def interleaved(fns: dict[str, Callable[[], Any]], repeat: int) -> dict[str, float]:
    """Median seconds of each function, alternating them every repetition so that a noisy
    neighbour on the machine slows both sides alike."""
    samples: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            samples[name].append(timed(fn))
    return {name: statistics.median(values) for name, values in samples.items()}


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port free on ``host`` now (the kernel's pick). Another process may take it before the
    caller's server binds it; a server that can listen on port 0 and say which port it took avoids that."""
    with socket.socket() as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def use_database(default_settings: str = "goat.settings") -> str:
    """Point Django at ``DATABASE_URL``, or at a throwaway SQLite file when unset; returns the URL."""
    global _TMP
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", default_settings)
    if not os.environ.get("DATABASE_URL"):
        _TMP = tempfile.TemporaryDirectory(prefix="goat-bench-")
        os.environ["DATABASE_URL"] = f"sqlite:///{_TMP.name}/bench.sqlite3"
        os.environ.setdefault("GOAT_DATA_DIR", f"{_TMP.name}/goat-data")
    return os.environ["DATABASE_URL"]


def is_postgres_url(url: str | None = None) -> bool:
    url = url if url is not None else os.environ.get("DATABASE_URL", "")
    return url.startswith(("postgres://", "postgresql://", "pgsql://"))


def emit(figures: dict, as_json: bool, lines: list[str]) -> None:
    if as_json:
        print(json.dumps(figures))
    else:
        print("\n".join(lines))


def skipped(bench: str, why: str, as_json: bool) -> int:
    """A bench that cannot run here says so (``run_all`` prints the line and goes on)."""
    figures = {"bench": bench, "skipped": why}
    emit(figures, as_json, [f"{bench}: skipped: {why}"])
    return 0


def machine() -> dict[str, Any]:
    return {"cores": os.cpu_count(), "python": platform.python_version(),
            "platform": platform.platform(terse=True), "implementation": platform.python_implementation()}


def computer_game(rng, ruleset: str, players: list[str], choose: Callable[..., tuple]) -> list[dict[str, Any]]:
    """A whole game of ``ruleset`` played in memory through the engine's ``Session`` by ``players`` (their
    names, seat by seat), its deal seeded from ``rng``: each play is ``choose(seat, state, view, seen)``
    (tile, end) from the seat's game view and the round's events redacted for it (what a computer player
    reads). Returns the full event log with ``seq``. Needs Django set up (the views are the site's)."""
    from django.utils import timezone

    from goat.engine.rules import PLAY, CreateGame, PlayTile, Session, TakeSeat
    from goat.games import selectors
    from goat.games.models import Game

    session = Session()
    log = session.decide(CreateGame(ruleset=ruleset, seats=len(players),
                                    server_seed_hex=rng.getrandbits(256).to_bytes(32, "big").hex()))
    for name in players:
        log += session.decide(TakeSeat(player=name))
    fake = Game(pk=1, created_at=timezone.now())
    start = max(i for i, e in enumerate(log) if e["type"] == "round_dealt")
    while True:
        kind, seat = session.pending()
        if kind != PLAY or seat is None:
            break
        view = selectors.game_view(game=fake, state=session.state, seat=seat)
        seen = [selectors.redact(e, seat) for e in log[start:]]
        tile, end = choose(seat, session.state, view, seen)
        for event in session.decide(PlayTile(seat, tile, end)):
            log.append(event)
            if event["type"] == "round_dealt":
                start = len(log) - 1
    return [{**e, "seq": seq, "at": None} for seq, e in enumerate(log, start=1)]

