"""Engine benchmark: verifying a log must cost at most 3x decoding its JSON.

    python bench/engine.py [--games N] [--repeat R] [--json]

Simulates N games across every ruleset and seat count (deterministic seeds), serialises each log to
JSON text, then measures in the same run (median of R repetitions, ``time.perf_counter``):

* decode: ``json.loads`` of every log (the baseline: any verifier must at least read the log);
* verify: ``json.loads`` + ``verify_log`` (replay with every rule checked, every deal recomputed from
  the revealed seed);
* simulate: random legal games through ``decide`` (moves per second).

The figure that matters is the ratio verify / decode, measured against a baseline taken in the same
run on the same machine, so it does not depend on how fast the machine is. Repetitions alternate the
measures (``_common.interleaved``), so a change in the machine's speed during the run slows both sides
alike. Target: <= 3.5.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import interleaved  # noqa: E402

from goat.engine.replay import verify_log  # noqa: E402
from goat.engine.simulate import simulate_game  # noqa: E402

#: issue #29 (revising #15): verify at most 3.5x the time of json.loads of the same events
TARGET = 3.5
MIXES = [
    ("goat-classic", 2, None), ("goat-classic", 3, {"fish_scoring": "fish_for_one"}), ("goat-classic", 4, None),
    ("goat-gamesburg", 2, None), ("goat-gamesburg", 3, None), ("goat-gamesburg", 4, None),
    ("domino-3rounds", 2, None), ("domino-3rounds", 3, None), ("domino-3rounds", 4, None),
]


def simulate_all(games: int) -> tuple[list[list[dict]], int, float]:
    """``games`` logs, the number of client moves (plays, timeouts, resignations) and the seconds taken."""
    logs = []
    started = time.perf_counter()
    for n in range(games):
        ruleset, seats, options = MIXES[n % len(MIXES)]
        logs.append(simulate_game(random.Random(n), ruleset=ruleset, seats=seats, options=options))
    elapsed = time.perf_counter() - started
    moves = sum(1 for log in logs for e in log if e["type"] in ("tile_played", "timed_out", "resigned"))
    return logs, moves, elapsed


def run(games: int, repeat: int) -> dict:
    logs, moves, _ = simulate_all(games)
    # As ``python -m goat.engine simulate`` writes them: one compact JSON array per log.
    texts = [json.dumps(log, ensure_ascii=False, separators=(",", ":")) for log in logs]
    # As the golden files and exports are stored: JSON Lines, one event per line.
    lines = ["\n".join(json.dumps(e, ensure_ascii=False) for e in log) for log in logs]
    events = sum(len(log) for log in logs)

    def decode_jsonl(text):
        return [json.loads(line) for line in text.splitlines()]

    def decode():
        for text in texts:
            json.loads(text)

    def verify():
        for text in texts:
            report = verify_log(json.loads(text))
            if not report["valid"]:
                raise SystemExit(f"a simulated log does not verify: {report}")

    def decode_lines():
        for text in lines:
            decode_jsonl(text)

    def verify_lines():
        for text in lines:
            verify_log(decode_jsonl(text))

    medians = interleaved({"decode": decode, "verify": verify, "decode_lines": decode_lines,
                           "verify_lines": verify_lines, "simulate": lambda: simulate_all(games)}, repeat)
    decode_s, verify_s = medians["decode"], medians["verify"]
    decode_lines_s, verify_lines_s = medians["decode_lines"], medians["verify_lines"]
    simulate_s = medians["simulate"]
    ratio = verify_s / decode_s
    return {
        "games": games,
        "events": events,
        "bytes": sum(len(t.encode("utf-8")) for t in texts),
        "repeat": repeat,
        "decode_seconds": decode_s,
        "verify_seconds": verify_s,
        "decode_events_per_s": events / decode_s,
        "verify_events_per_s": events / verify_s,
        "simulate_seconds": simulate_s,
        "simulate_moves": moves,
        "simulate_moves_per_s": moves / simulate_s,
        "ratio_verify_to_decode": ratio,
        "jsonl_decode_seconds": decode_lines_s,
        "jsonl_verify_seconds": verify_lines_s,
        "jsonl_ratio_verify_to_decode": verify_lines_s / decode_lines_s,
        "target": TARGET,
        "pass": ratio <= TARGET,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=600, help="games to simulate (default 600)")
    parser.add_argument("--repeat", type=int, default=5, help="repetitions per measurement (median taken)")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = parser.parse_args(argv)
    figures = run(args.games, args.repeat)
    if args.json:
        print(json.dumps(figures))
        return 0
    f = figures
    print(f"engine benchmark: {f['games']} games, {f['events']} events, {f['bytes'] / 1e6:.1f} MB of JSON, "
          f"median of {f['repeat']}")
    print(f"  {'measure':<28}{'seconds':>10}{'per second':>16}")
    print(f"  {'decode (json.loads)':<28}{f['decode_seconds']:>10.3f}{f['decode_events_per_s']:>12,.0f} ev/s")
    print(f"  {'decode + verify_log':<28}{f['verify_seconds']:>10.3f}{f['verify_events_per_s']:>12,.0f} ev/s")
    print(f"  {'simulate (decide)':<28}{f['simulate_seconds']:>10.3f}{f['simulate_moves_per_s']:>12,.0f} moves/s")
    print(f"  {'decode JSON Lines':<28}{f['jsonl_decode_seconds']:>10.3f}"
          f"{f['events'] / f['jsonl_decode_seconds']:>12,.0f} ev/s")
    print(f"  {'decode JSON Lines + verify':<28}{f['jsonl_verify_seconds']:>10.3f}"
          f"{f['events'] / f['jsonl_verify_seconds']:>12,.0f} ev/s")
    verdict = "PASS" if f["pass"] else "MISS"
    print(f"  verify / decode = {f['ratio_verify_to_decode']:.2f} (target <= {TARGET:.1f}): {verdict}"
          f"  [JSON Lines: {f['jsonl_ratio_verify_to_decode']:.2f}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
