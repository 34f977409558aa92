"""How steady the analysis's labels are, and how often it labels the expert's own moves
(docs/computer.md "Analysis": label stability).

    python bench/analysis_stability.py [--games N] [--ruleset R --seats K] [--jobs J] [--minutes M] [--json]

N games (default 2,000 per ruleset) of ``expert`` against ``strong`` (the expert's seat rotated game by
game), in process, each analysed twice as the task does (``goat.games.analysis.events_analyse`` at
``GOAT_ANALYSIS_SAMPLES``) with different seeds: the analysis seeds its samples from the game's id and
the move's version, so the second analysis gives the game another id. Figures, with 95% intervals
(Wilson's, over decisions; the decisions of one game are not independent, so take them as a guide):

* ``changed``: the share of decisions (moves not forced) whose label differs between the two analyses
  (target at most 2%);
* ``expert_labelled``: the share of the expert's decisions given a label (first analysis; at most 1%);
* ``strong_labelled``: the same for ``strong`` (no target: how much there is to label);
* the analysis's CPU seconds per game (the mean of the two).

``--minutes`` stops after that many minutes (fewer games: the figures say how many).
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import computer_game, emit  # noqa: E402
from bench.bots import _django  # noqa: E402
from goat.engine import computer  # noqa: E402

TARGETS = {"changed": 0.02, "expert_labelled": 0.01}


def played_game(rng: random.Random, ruleset: str, seats: int, expert_seat: int) -> list[dict]:
    """A whole game, ``expert`` at ``expert_seat`` and ``strong`` elsewhere, as its event log (with ``seq``)."""

    def choose(seat, state, view, seen):
        level = "expert" if seat == expert_seat else "strong"
        return computer.choose(computer.seat_view(view, seen), level, rng)

    return computer_game(rng, ruleset, [f"p{seat}" for seat in range(seats)], choose)


def one_game(index: int, ruleset: str, seats: int, seed: int) -> dict:
    """Game ``index``: played, analysed twice; its decisions' labels, and the analysis's CPU seconds."""
    _django()
    from django.conf import settings
    from django.utils import timezone

    from goat.games import analysis
    from goat.games.models import Game

    rng = random.Random(seed * 1_000_003 + index)
    expert_seat = index % seats
    events = played_game(rng, ruleset, seats, expert_seat)
    cpu = time.process_time()
    first, second = (analysis.events_analyse(Game(pk=pk, created_at=timezone.now(), ruleset=ruleset, seats=seats),
                                             events, samples=settings.GOAT_ANALYSIS_SAMPLES)
                     for pk in (index + 1, 1_000_000_007 + index))
    cpu = (time.process_time() - cpu) / 2
    rows = []
    for a, b in zip(first["moves"], second["moves"], strict=True):
        if not a["forced"]:
            rows.append((a["seat"] == expert_seat, a["label"], b["label"]))
    return {"rows": rows, "cpu": cpu}


def wilson(k: int, n: int) -> tuple[float, float]:
    """A 95% Wilson interval of the share ``k / n``."""
    if not n:
        return 0.0, 1.0
    z = 1.96
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def measure(ruleset: str, seats: int, games: int, seed: int, jobs: int, until: float | None) -> dict:
    results = []
    if jobs > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=jobs) as pool:
            pending = {pool.submit(one_game, i, ruleset, seats, seed) for i in range(min(games, jobs))}
            nxt = len(pending)
            while pending:
                done = next(iter(pending))
                results.append(done.result())
                pending.remove(done)
                if nxt < games and (until is None or time.time() < until):
                    pending.add(pool.submit(one_game, nxt, ruleset, seats, seed))
                    nxt += 1
    else:
        for index in range(games):
            if until is not None and time.time() >= until:
                break
            results.append(one_game(index, ruleset, seats, seed))
    rows = [row for result in results for row in result["rows"]]
    changed = sum(a != b for _, a, b in rows)
    mine = [row for row in rows if row[0]]
    theirs = [row for row in rows if not row[0]]
    expert_labelled = sum(a is not None for _, a, _ in mine)
    strong_labelled = sum(a is not None for _, a, _ in theirs)
    figures = {
        "ruleset": ruleset, "seats": seats, "games": len(results), "decisions": len(rows),
        "changed": round(changed / max(1, len(rows)), 4),
        "changed_ci95": [round(x, 4) for x in wilson(changed, len(rows))],
        "expert_decisions": len(mine),
        "expert_labelled": round(expert_labelled / max(1, len(mine)), 4),
        "expert_labelled_ci95": [round(x, 4) for x in wilson(expert_labelled, len(mine))],
        "strong_decisions": len(theirs),
        "strong_labelled": round(strong_labelled / max(1, len(theirs)), 4),
        "strong_labelled_ci95": [round(x, 4) for x in wilson(strong_labelled, len(theirs))],
        "cpu_seconds_per_game": round(statistics.mean(r["cpu"] for r in results), 2) if results else None,
    }
    figures["targets"] = [{"figure": name, "value": figures[name], "target": f"<= {limit}",
                           "pass": figures[name] <= limit} for name, limit in TARGETS.items()]
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=57)
    parser.add_argument("--ruleset", help="only this ruleset (with --seats)")
    parser.add_argument("--seats", type=int)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--minutes", type=float, help="stop each ruleset after this many minutes")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    _django()
    pairings = [(args.ruleset, args.seats or 2)] if args.ruleset else [("domino-3rounds", 2), ("goat-classic", 4)]
    results, lines = [], []
    for ruleset, seats in pairings:
        until = time.time() + 60 * args.minutes if args.minutes else None
        figures = measure(ruleset, seats, args.games, args.seed, args.jobs, until)
        results.append(figures)
        lines.append(f"{ruleset} x{seats}: {figures['games']} games, {figures['decisions']} decisions; labels "
                     f"changed {figures['changed']:.2%} {figures['changed_ci95']}; expert labelled "
                     f"{figures['expert_labelled']:.2%} {figures['expert_labelled_ci95']} of "
                     f"{figures['expert_decisions']}; strong labelled {figures['strong_labelled']:.2%} "
                     f"{figures['strong_labelled_ci95']} of {figures['strong_decisions']}; analysis CPU "
                     f"{figures['cpu_seconds_per_game']} s a game")
        for target in figures["targets"]:
            lines.append(f"    {target['figure']} = {target['value']} (target {target['target']}): "
                         f"{'PASS' if target['pass'] else 'FAIL'}")
        if not args.json:
            print("\n".join(lines[-3:]), flush=True)
    summary = {"bench": "analysis_stability", "seed": args.seed, "results": results,
               "pass": all(t["pass"] for r in results for t in r["targets"])}
    if args.json:
        emit(summary, True, lines)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
