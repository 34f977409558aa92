"""Snapshots: the engine state pickles to itself, and snapshots written before ``pickling.by_fields`` still load."""

from __future__ import annotations

import dataclasses
import json
import pickle
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goat.engine.pickling import by_fields
from goat.engine.replay import replay
from goat.engine.simulate import simulate_game

GOLDEN = Path(__file__).parent / "golden"
NAME = "classic-4-fish-for-one-pot"


def _log() -> list[dict]:
    return [json.loads(line) for line in (GOLDEN / f"{NAME}.jsonl").read_text().splitlines() if line.strip()]


@pytest.mark.parametrize("upto", [134, 269])
def test_a_snapshot_pickled_by_the_dataclass_default_still_loads(upto):
    # the files were pickled by the code before by_fields (dataclasses' own __getstate__: a list of values)
    old = pickle.loads((GOLDEN / f"{NAME}.at-{upto}.pickle").read_bytes())
    assert old == replay(_log()[:upto]).state
    assert old.version == upto


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), ruleset=st.sampled_from(["goat-classic", "goat-gamesburg", "domino-3rounds"]),
       seats=st.integers(2, 4), cut=st.floats(0, 1))
def test_every_state_pickles_to_an_equal_state(seed, ruleset, seats, cut):
    log = simulate_game(random.Random(seed), ruleset=ruleset, seats=seats)
    state = replay(log[: max(1, int(len(log) * cut))]).state
    copy = pickle.loads(pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL))
    assert copy == state
    assert type(copy.options) is type(state.options) and copy.options == state.options


@dataclasses.dataclass(frozen=True, slots=True)
class Plain:
    a: int
    b: tuple = ()


@by_fields
@dataclasses.dataclass(frozen=True, slots=True)
class One:
    a: int


def test_by_fields_keeps_the_dataclass_state_and_handles_one_field():
    assert Plain(1, (2,)).__getstate__() == [1, (2,)]  # the old state: the values in field order
    assert pickle.loads(pickle.dumps(One(5))) == One(5)
    assert One(5).__getstate__() == (5,)
    with pytest.raises(ValueError):  # a state of another shape is refused, not half applied
        One.__new__(One).__setstate__((1, 2))
