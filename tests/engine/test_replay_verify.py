"""The verifier (``verify_log`` and ``python -m goat.engine verify``): tampered logs are refused at the
right seq with the right code; honest logs verify; golden replays catch any engine drift."""

from __future__ import annotations

import copy
import random

import pytest

from goat.engine.replay import verify_log
from goat.engine.simulate import simulate_game


def _log(seed: int = 1, ruleset: str = "goat-classic", seats: int = 2, **kw) -> list[dict]:
    return simulate_game(random.Random(seed), ruleset=ruleset, seats=seats, interrupt_chance=0, **kw)


@pytest.mark.parametrize("seed", ["ab" * 32, "zz", "00" * 31])
def test_wrong_revealed_seed_is_seed_mismatch_at_the_reveal(seed):
    log = _log()
    log[-1]["data"]["server_seed"] = seed
    report = verify_log(log)
    assert (report["valid"], report["seq"], report["code"]) == (False, len(log), "seed_mismatch")
