"""bench/fairplay.py runs end to end at a toy size and reports every figure docs/fairplay.md quotes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from bench import fairplay

ROOT = Path(__file__).resolve().parents[1]


def test_the_bench_runs_and_reports_its_figures(tmp_path):
    out = subprocess.run([sys.executable, "bench/fairplay.py", "--honest", "3", "--assisted", "1", "--pairs", "1",
                          "--games", "2", "--samples", "3", "--json"], cwd=ROOT, capture_output=True, text=True,
                         timeout=600, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT),
                                           "GOAT_DATA_DIR": str(tmp_path)})
    assert out.returncode == 0, out.stderr[-3000:]
    figures = json.loads(out.stdout.strip().splitlines()[-1])
    assert figures["games"] == 4 and figures["samples"] == 3
    for key in ("assisted_detected", "honest_flagged_assistance", "colluding_pairs_detected", "honest_pairs_flagged"):
        assert set(figures[key]) == {"flagged", "of", "rate", "interval"}, key
    assert figures["colluding_pairs_detected"]["of"] == 1 and figures["assisted_detected"]["of"] == 1
    assert set(figures["assistance_errors"]) == {"spread_median", "noise_median"}
    assert set(figures["ordinals"]) == {"random", "greedy", "strong", "assisted", "colluder"}
    for key in ("against_honest_only", "against_strong_only"):
        assert figures[key]["assisted_detected"]["of"] == 1 and len(figures[key]["assisted_scores"]) == 1, key
    assert figures["against_honest_only"]["reference_flagged"]["of"] == 3
    assert figures["against_strong_only"]["reference_flagged"]["of"] == 1


def test_tables_seat_everyone_once_a_round():
    import random

    class Args:
        honest, assisted, pairs = 6, 1, 1

    players = fairplay.population(Args)
    tables = fairplay.tables(players, random.Random(1), together=1.0)
    seated = [p.name for table in tables for p in table]
    assert sorted(seated) == sorted(p.name for p in players) and all(len(t) == 3 for t in tables)
    assert any({"c0x", "c0y"} <= {p.name for p in table} for table in tables)


def test_wilson_interval():
    assert fairplay.wilson(0, 368)[1] < 0.0104
    low, high = fairplay.wilson(3, 3)
    assert round(low, 2) == 0.44 and high == 1.0


def test_a_saved_run_is_resumed_for_more_games_and_loaded_again_alone_or_pooled(tmp_path):
    def bench(*args: str) -> dict:
        out = subprocess.run([sys.executable, "bench/fairplay.py", "--samples", "3", "--json", *args], cwd=ROOT,
                             capture_output=True, text=True, timeout=600,
                             env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "GOAT_DATA_DIR": str(tmp_path)})
        assert out.returncode == 0, out.stderr[-3000:]
        return json.loads(out.stdout.strip().splitlines()[-1])

    size = ["--honest", "3", "--assisted", "1", "--pairs", "1", "--games", "1"]
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    made = bench(*size, "--seed", "1", "--save", str(first))
    assert made["games"] == 2 and made["games_each"] == 1
    resumed = bench("--games", "1", "--resume", str(first))
    assert resumed["games"] == 4 and resumed["games_each"] == 2 and resumed["seed"] == 1
    saved = json.loads(first.read_text())
    assert len(saved["analysed"]) == 4 and set(saved["seatings"]) == {"1", "2", "3", "4"}
    assert bench("--load", str(first)) | {"seconds": None} == resumed | {"seconds": None}
    bench(*size, "--seed", "2", "--save", str(second))
    pooled = bench("--load", str(first), "--load", str(second))
    assert pooled["games"] == 6 and pooled["assisted_detected"]["of"] == 2 and pooled["seed"] == [1, 2]
    assert pooled["colluding_pairs_detected"]["of"] == 2
