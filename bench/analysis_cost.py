"""What the analysis of a finished game costs (docs/computer.md "Analysis"): N four-seat goat-classic
games played in process by ``strong`` computers, each analysed as the task does
(``goat.games.analysis.events_analyse``: every tile played judged by the expert from its seat's view
at that moment) at the default samples (``GOAT_ANALYSIS_SAMPLES``).

    python bench/analysis_cost.py [--games N] [--samples S] [--ruleset R --seats K] [--json]

Prints, per game, the tiles played, the decisions (moves with a choice) and the seconds, and their
median. Nothing is stored (a game row is built in memory for the views).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import computer_game, emit, use_database  # noqa: E402
from goat.engine import computer  # noqa: E402


def played_game(rng: random.Random, ruleset: str, seats: int) -> list[dict]:
    """A whole game by ``strong`` players, as its full event log (with ``seq``)."""
    return computer_game(rng, ruleset, [f"p{seat}" for seat in range(seats)],
                         lambda seat, state, view, seen: computer.choose(computer.seat_view(view, seen), "strong", rng))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--samples", type=int, default=None, help="default: GOAT_ANALYSIS_SAMPLES")
    parser.add_argument("--ruleset", default="goat-classic")
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--seed", type=int, default=38)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    use_database()
    import django

    django.setup()
    from django.conf import settings
    from django.utils import timezone

    from goat.games import analysis
    from goat.games.models import Game

    samples = args.samples or settings.GOAT_ANALYSIS_SAMPLES
    rng = random.Random(args.seed)
    rows, lines = [], []
    for index in range(args.games):
        events = played_game(rng, args.ruleset, args.seats)
        game = Game(pk=index + 1, created_at=timezone.now(), ruleset=args.ruleset, seats=args.seats)
        started = time.perf_counter()
        result = analysis.events_analyse(game, events, samples=samples)
        seconds = time.perf_counter() - started
        moves = result["moves"]
        decisions = sum(not m["forced"] for m in moves)
        rows.append({"tiles_played": len(moves), "decisions": decisions, "seconds": round(seconds, 2)})
        lines.append(f"game {index + 1}: {len(moves)} tiles played, {decisions} decisions, {seconds:.1f} s "
                     f"({seconds / max(1, decisions) * 1e3:.0f} ms a decision)")
        if not args.json:
            print(lines[-1], flush=True)
    median = statistics.median(r["seconds"] for r in rows)
    summary = {"bench": "analysis_cost", "ruleset": args.ruleset, "seats": args.seats, "samples": samples,
               "games": rows, "median_seconds": median}
    lines.append(f"{args.ruleset} x{args.seats} at {samples} samples: median {median:.1f} s a game")
    emit(summary, args.json, lines[-1:] if not args.json else lines)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
