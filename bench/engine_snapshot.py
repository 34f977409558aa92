"""Engine snapshot benchmark: the state's JSON form against pickle, dump + load per move.

    python bench/engine_snapshot.py [--games N] [--repeat R] [--json]

Simulates N games across every ruleset and seat count, takes the state after every 7th event (the
snapshot a move would store), and measures in the same run (median of R repetitions):

* json: ``state_to_json`` + ``state_from_json`` (the event store's snapshot form);
* pickle: ``pickle.dumps`` + ``pickle.loads`` of the same states (the baseline: the former snapshot
  form; this bench is not part of the product and is the one place that still pickles a state).

Target: json / pickle <= 1.0.
"""

from __future__ import annotations

import argparse
import pickle
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import emit, interleaved  # noqa: E402

from goat.engine.fold import Fold  # noqa: E402
from goat.engine.json_form import state_from_json, state_to_json  # noqa: E402
from goat.engine.simulate import simulate_game  # noqa: E402

TARGET = 1.0
MIXES = [
    ("goat-classic", 2, None), ("goat-classic", 4, {"fish_scoring": "fish_for_one"}), ("goat-gamesburg", 3, None),
    ("domino-3rounds", 4, None),
]


def states(games: int) -> list:
    out = []
    for n in range(games):
        ruleset, seats, options = MIXES[n % len(MIXES)]
        log = simulate_game(random.Random(n), ruleset=ruleset, seats=seats, options=options)
        fold = Fold()
        for i, event in enumerate(log):
            fold.push(event)
            if i % 7 == 3:
                out.append(fold.state)
    return out


def run(games: int, repeat: int) -> dict:
    snapshots = states(games)
    for state in snapshots:  # the form round-trips (checked once, outside the timing)
        assert state_from_json(state_to_json(state)) == state

    def json_form() -> None:
        for state in snapshots:
            state_from_json(state_to_json(state))

    def pickled() -> None:
        for state in snapshots:
            pickle.loads(pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL))

    medians = interleaved({"json": json_form, "pickle": pickled}, repeat)
    per = {k: v / len(snapshots) * 1e6 for k, v in medians.items()}
    ratio = per["json"] / per["pickle"]
    return {
        "bench": "engine_snapshot", "states": len(snapshots), "repeat": repeat,
        "json_us": round(per["json"], 2), "pickle_us": round(per["pickle"], 2),
        "json_bytes": round(sum(len(state_to_json(s).encode()) for s in snapshots) / len(snapshots)),
        "pickle_bytes": round(sum(len(pickle.dumps(s, protocol=pickle.HIGHEST_PROTOCOL)) for s in snapshots)
                              / len(snapshots)),
        "ratio": round(ratio, 3), "target": f"<= {TARGET}", "pass": ratio <= TARGET,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="a few seconds (CI smoke)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.quick:
        args.games, args.repeat = 12, 3
    f = run(args.games, args.repeat)
    emit(f, args.json, [
        f"snapshots: {f['states']} states, dump + load, median of {f['repeat']}",
        f"  json (state_to_json + state_from_json) {f['json_us']:>8.1f} us  {f['json_bytes']:>6} bytes",
        f"  pickle (dumps + loads)                 {f['pickle_us']:>8.1f} us  {f['pickle_bytes']:>6} bytes",
        f"  json / pickle = {f['ratio']:.2f} (target <= {TARGET}): {'PASS' if f['pass'] else 'MISS'}",
    ])
    return 0


if __name__ == "__main__":
    sys.exit(main())
