"""bench/bots.py's long runs: the games shared over processes give the figures of one process (each
game is played from its own seed), ``--record`` keeps every finished game as a line, and ``--resume``
counts those and plays only the others, so a run stopped and resumed ends with the figures of one
uninterrupted run."""

from __future__ import annotations

import json

import pytest

from bench.bots import measure

#: the figures that depend on the games only (not on their time)
OUTCOME = ("games", "goat_rate", "opponent_goat_rate", "rating_points", "opponent_rating_points", "won", "tied",
           "goat_ratio_ci95", "points_ratio_ci95", "choices")

pytestmark = pytest.mark.django_db


def _outcome(figures: dict) -> dict:
    return {key: figures[key] for key in OUTCOME}


def test_shared_stopped_and_resumed_runs_give_the_figures_of_one_run(tmp_path):
    whole = measure("goat-pairs", 4, "strong", "random", games=8, seed=3)
    record = tmp_path / "games.jsonl"
    shared = measure("goat-pairs", 4, "strong", "random", games=8, seed=3, jobs=2, record=str(record))
    assert _outcome(shared) == _outcome(whole) and shared["resumed"] == 0
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    assert sorted(line["index"] for line in lines) == list(range(8))
    assert {(line["ruleset"], line["tested"], line["opponent"], line["seed"]) for line in lines} == {
        ("goat-pairs", "strong", "random", 3)}

    # a run stopped after five games (the first five lines, the sixth cut short), then resumed
    record.write_text("".join(f"{json.dumps(line)}\n" for line in lines[:5]) + json.dumps(lines[5])[:40])
    resumed = measure("goat-pairs", 4, "strong", "random", games=8, seed=3, record=str(record), resume=True)
    assert resumed["resumed"] == 5 and _outcome(resumed) == _outcome(whole)
    # nothing more to play: the record alone gives the figures
    again = measure("goat-pairs", 4, "strong", "random", games=8, seed=3, record=str(record), resume=True,
                    until=0.0)
    assert again["resumed"] == 8 and _outcome(again) == _outcome(whole)
    with pytest.raises(ValueError, match="no game"):  # another seed's run: none of these lines is its
        measure("goat-pairs", 4, "strong", "random", games=8, seed=4, record=str(record), resume=True, until=0.0)
