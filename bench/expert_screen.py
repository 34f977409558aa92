"""Screening the expert's settings against ``strong``: the same deals for every variant, paired.

    python bench/expert_screen.py --variants fixed,race [--games N] [--seed S] [--jobs J] [--ruleset R]

Each variant plays the same games (game i: the deal of seed ``S * 1_000_003 + i``, the expert at seat
i mod seats, as ``bench/bots.py`` plays them) with some of the expert's settings changed in the
process (``VARIANTS``). Two-seat rulesets report the share of games won outright with its 95%
interval, and, against the first variant, the paired difference of the per-game results (won 1, tied
0.5, lost 0) on the same deals, with its 95% interval; four-seat ones the goat rate and the mean
rating points. The decisions' CPU p50 / p99 (among more than one legal move) as in bench/bots.py.
Screening runs at a few hundred games: what it can tell apart is what the paired interval shows.

``--cache DIR`` keeps each variant's per-game rows in DIR (one JSON file per variant, ruleset, seed
and number of games) and reads them back instead of playing the games again: a game's choices follow
from its seed and the variant alone, so a later run pairs a new variant with rows played earlier (the
CPU figures are then the earlier run's).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import percentile  # noqa: E402
from bench.bots import Tally, _django, play_game  # noqa: E402

#: each variant: the expert module's settings it changes ("race": the module's own settings; "fixed": the
#: fixed share of samples per move instead of the race, as expert-3 chose; "expert-4": the race without
#: the information-set tree, whatever the module's setting; "race-treeN": the tree for N plies)
VARIANTS: dict[str, dict] = {
    "fixed": {"fixed": True, "TREE_PLIES": 0},
    "race": {},
    "expert-4": {"TREE_PLIES": 0},
    "race-block12": {"POLICY_BLOCK": 12},
    "race-block4": {"POLICY_BLOCK": 4},
    "race-double0": {"POLICY_DOUBLE": 0},
    "race-double8": {"POLICY_DOUBLE": 8},
    "race-floor6": {"RACE_FLOOR": 6},
    "race-floor8": {"RACE_FLOOR": 8},
    "race-tree1": {"TREE_PLIES": 1},
    "race-tree2": {"TREE_PLIES": 2},
    "race-tree3": {"TREE_PLIES": 3},
    "race-tree4": {"TREE_PLIES": 4},
    "race-tree6": {"TREE_PLIES": 6},
    "race-tree3-c10": {"TREE_PLIES": 3, "TREE_C": 10.0},
    "race-tree3-c40": {"TREE_PLIES": 3, "TREE_C": 40.0},
    "race-tree1-c10": {"TREE_PLIES": 1, "TREE_C": 10.0},
    "race-tree1-c40": {"TREE_PLIES": 1, "TREE_C": 40.0},
    "race-tree2-c10": {"TREE_PLIES": 2, "TREE_C": 10.0},
    "race-tree2-c40": {"TREE_PLIES": 2, "TREE_C": 40.0},
    "race-tree1-floor6": {"TREE_PLIES": 1, "RACE_FLOOR": 6},
}


def _apply(variant: str) -> None:
    """Set the variant's settings in this process."""
    from goat.engine import computer, expert

    settings = dict(VARIANTS[variant])
    if settings.pop("fixed", False):
        def fixed(view, rng, samples=None):  # expert-3's choice: every distinct move gets every table
            if expert.is_forced(view.legal, view.left, view.right):
                return view.legal[0]
            scored = expert.evaluate(view, random.Random(rng.getrandbits(64)), samples)
            best = max(value for _, value in scored)
            return next(move for move, value in scored if value == best)

        computer.choose_expert = fixed
    for name, value in settings.items():
        assert hasattr(expert, name), name
        setattr(expert, name, value)


def _play(variant: str, ruleset: str, seats: int, games: int, seed: int, share: int, shares: int) -> list:
    """The variant's games ``index % shares == share``: per game (index, result, goat, points, CPU list)."""
    _django()
    _apply(variant)
    out = []
    for index in range(share, games, shares):
        tally = Tally()
        play_game(random.Random(seed * 1_000_003 + index), ruleset, seats, index % seats, "expert", "strong", tally)
        result = 1.0 if tally.won else 0.5 if tally.tied else 0.0
        out.append((index, result, tally.goats, tally.points, tally.choice_cpu_seconds))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variants", default="fixed,race")
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=101)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--ruleset", default="domino-3rounds")
    parser.add_argument("--cache", type=Path, default=None)
    args = parser.parse_args()
    seats = 2 if args.ruleset == "domino-3rounds" else 4
    names = args.variants.split(",")
    for name in names:
        if name not in VARIANTS:
            parser.error(f"unknown variant {name!r} (known: {', '.join(VARIANTS)})")
    from concurrent.futures import ProcessPoolExecutor

    def cached(name: str) -> Path | None:
        return None if args.cache is None else args.cache / f"{name}-{args.ruleset}-{args.seed}-{args.games}.json"

    by_variant: dict[str, dict[int, tuple]] = {}
    with ProcessPoolExecutor(max_workers=args.jobs, max_tasks_per_child=1) as pool:
        futures = {name: [pool.submit(_play, name, args.ruleset, seats, args.games, args.seed, share, args.jobs)
                          for share in range(args.jobs)]
                   for name in names if not ((path := cached(name)) and path.exists())}
        for name in names:
            started = time.time()
            path = cached(name)
            if name in futures:
                rows = [row for future in futures[name] for row in future.result()]
                if path is not None:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_text(json.dumps(rows))
            else:
                rows = [tuple(row) for row in json.loads(path.read_text())]  # type: ignore[union-attr]
            by_variant[name] = {row[0]: row for row in rows}
            n = len(rows)
            won = sum(row[1] == 1.0 for row in rows) / n
            score = sum(row[1] for row in rows) / n
            cpu = [t for row in rows for t in row[4]]
            line = (f"{name:14s} {n} games: won {won:.1%} +- {1.96 * math.sqrt(won * (1 - won) / n):.1%}, "
                    f"score {score:.3f}, goat {sum(r[2] for r in rows) / n:.3f}, "
                    f"points {sum(r[3] for r in rows) / n:.2f}; CPU p50 {percentile(cpu, 50) * 1e3:.1f} ms, "
                    f"p99 {percentile(cpu, 99) * 1e3:.1f} ms ({len(cpu)} choices)")
            if name != names[0]:
                base = by_variant[names[0]]
                key = 1 if seats == 2 else 2
                diffs = [row[key] - base[index][key] for index, row in by_variant[name].items()]
                mean = sum(diffs) / n
                sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1))
                line += f"; vs {names[0]}: {mean:+.3f} +- {1.96 * sd / math.sqrt(n):.3f} (paired)"
            print(line + f" [{time.time() - started:.0f} s waited]", flush=True)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
