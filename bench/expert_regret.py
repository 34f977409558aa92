"""How well the expert spends its samples: the regret of its choice against a many-sample judgement.

    python bench/expert_regret.py [--games G] [--oracle N] [--repeats R] [--variants a,b,...] [--jobs J]

The decision points are the real ones of ``G`` games of ``strong`` against ``strong`` (two-seat
domino-3rounds, or four-seat goat-classic with ``--ruleset goat-classic``; seed 57, as bench/bots.py
plays them: the views the tested seat decides from, those with more than one distinct move). Each is
judged once with ``N`` sampled tables per distinct move (the "oracle", its own seed); each variant of
the expert's sampling (``VARIANTS``: a fixed share of tables per move, or the race of
goat.engine.expert.race with its settings) then chooses ``R`` times with other seeds, and its regret
is the oracle's value of the best move less the oracle's value of the chosen one, in the objective's
points (percentage points of the chance of winning the game; in goat scoring, hundredths of what a
game pays at most). The oracle and the variants share the playout policy and the objective, so the
figure measures only how the samples are spent; what the policy is worth needs games (bench/expert_screen.py).

Printed per variant: the mean regret per decision with its 95% interval, the share of decisions
where it chose a move the oracle puts more than 1 point behind, the mean tables per decision, and
the CPU time per decision (mean, p99) in this process.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import percentile  # noqa: E402
from bench.bots import Tally, _django, play_game  # noqa: E402

#: each variant: ("fixed", tables per move) or ("race", tables per move, RACE_ROUND, RACE_Z, RACE_FLOOR)
VARIANTS: dict[str, tuple] = {
    "fixed-150": ("fixed", 150),
    "fixed-60": ("fixed", 60),
    "fixed-300": ("fixed", 300),
    "race": ("race", 150, 25, 2.5, 4),
    "race-z2": ("race", 150, 25, 2.0, 4),
    "race-z3": ("race", 150, 25, 3.0, 4),
    "race-floor3": ("race", 150, 25, 2.5, 3),
    "race-floor6": ("race", 150, 25, 2.5, 6),
    "race-floor8": ("race", 150, 25, 2.5, 8),
    "race-round15": ("race", 150, 15, 2.5, 4),
    "race-round50": ("race", 150, 50, 2.5, 4),
}


def collect(games: int, seed: int, ruleset: str = "domino-3rounds") -> list:
    """The seat views with more than one distinct move that the tested seat decided from."""
    from goat.engine.seat import is_forced

    views: list = []

    def watch(view) -> None:
        if not is_forced(view.legal, view.left, view.right):
            views.append(view)

    for index in range(games):
        seats = 2 if ruleset == "domino-3rounds" else 4
        play_game(random.Random(seed * 1_000_003 + index), ruleset, seats, index % seats, "strong", "strong",
                  Tally(), watch)
    return views


def choose(view, variant: tuple, rng: random.Random):
    """The variant's choice and the tables it took."""
    from goat.engine import expert

    if variant[0] == "fixed":
        scored = expert.evaluate(view, rng, variant[1])
        best = max(value for _, value in scored)
        return next(move for move, value in scored if value == best), variant[1]
    _, samples, expert.RACE_ROUND, expert.RACE_Z, expert.RACE_FLOOR = variant
    return expert.race(view, rng, samples)


def judge(views: list, names: list[str], oracle: int, repeats: int, seed: int) -> dict:
    """Per variant: per decision (regret, tables, CPU seconds), over ``repeats`` choices each."""
    _django()
    from goat.engine import expert

    out: dict[str, list] = {name: [] for name in names}
    for number, view in enumerate(views):
        truth = dict(expert.evaluate(view, random.Random(seed * 7919 + number), oracle))
        top = max(truth.values())
        for name in names:
            for repeat in range(repeats):
                rng = random.Random((seed + 1 + repeat) * 1_000_003 + number)
                cpu = time.process_time()
                move, tables = choose(view, VARIANTS[name], rng)
                out[name].append((top - truth[move], tables, time.process_time() - cpu))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--oracle", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--seed", type=int, default=57)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--ruleset", default="domino-3rounds", help="domino-3rounds (two seats) or goat-classic (four)")
    args = parser.parse_args()
    names = args.variants.split(",")
    for name in names:
        if name not in VARIANTS:
            parser.error(f"unknown variant {name!r} (known: {', '.join(VARIANTS)})")
    _django()
    views = collect(args.games, args.seed, args.ruleset)
    print(f"{len(views)} decisions from {args.games} games; oracle {args.oracle} tables per move, "
          f"{args.repeats} choices per decision and variant", flush=True)
    from concurrent.futures import ProcessPoolExecutor

    results: dict[str, list] = {name: [] for name in names}
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        parts = [pool.submit(judge, views[share::args.jobs], names, args.oracle, args.repeats, args.seed + share)
                 for share in range(args.jobs)]
        for part in parts:
            for name, rows in part.result().items():
                results[name] += rows
    for name in names:
        rows = results[name]
        n = len(rows)
        regrets = [row[0] for row in rows]
        mean = sum(regrets) / n
        sd = math.sqrt(sum((r - mean) ** 2 for r in regrets) / (n - 1))
        cpu = [row[2] for row in rows]
        line = (f"{name:13s} regret {mean:.3f} +- {1.96 * sd / math.sqrt(n):.3f} points, "
                f"> 1 point behind {sum(r > 1 for r in regrets) / n:.1%}; tables {sum(r[1] for r in rows) / n:.0f}; "
                f"CPU mean {sum(cpu) / n * 1e3:.1f} ms, p99 {percentile(cpu, 99) * 1e3:.1f} ms")
        if name != names[0]:  # paired with the first variant: the same decisions and seeds
            diffs = [row[0] - base[0] for row, base in zip(rows, results[names[0]], strict=True)]
            d_mean = sum(diffs) / n
            d_sd = math.sqrt(sum((d - d_mean) ** 2 for d in diffs) / (n - 1))
            line += f"; vs {names[0]} {d_mean:+.3f} +- {1.96 * d_sd / math.sqrt(n):.3f}"
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
