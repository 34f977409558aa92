"""Rulesets (docs/rules.md §2): the presets, overrides, refused combinations, and resolved options in the log."""

from __future__ import annotations

import random

import pytest

from goat.engine import rulesets
from goat.engine.errors import InvalidOptions
from goat.engine.replay import replay, verify_log
from goat.engine.rules import CreateGame, decide
from goat.engine.rulesets import OPTION_KEYS, PRESETS, RULESETS, resolve_options
from goat.engine.simulate import simulate_game
from helpers import seed_hex

#: docs/rules.md §2 (second edition), transcribed by hand from the table (a dash is None).
TABLE = {
    "hand_size": (7, 7, 5, 7),
    "redeal": (True, False, False, True),
    "opener": ("doubles_from_one_by_sum", "doubles_from_one_by_sum", "smallest_double", "doubles_from_one_by_sum"),
    "later_leader": ("last_winner", "last_winner", "opener", "last_winner"),
    "bazaar_reserve": (0, 0, 2, 0),
    "fish": ("positional_or_blocked", "positional_or_blocked", "blocked", "positional_or_blocked"),
    "lone_double_zero": (10, 10, 0, 10),
    "scoring": ("goat", "goat", "rounds", "goat"),
    "fish_scoring": ("fish_for_all", "fish_for_all", None, "fish_for_one"),
    "open_threshold": (12, 12, None, 12),
    "remembered_counts": (True, False, None, False),
    "limit": (101, 125, None, 101),
    "rounds": (None, None, 3, None),
    "ante": (0, 10, 0, 0),
    "move_time": (30, 30, 30, 30),
}
NAMES = ("goat-classic", "goat-gamesburg", "domino-3rounds", "goat-pairs")
#: the rulesets every player plays for themselves, with 2 to 4 seats
SOLO = NAMES[:3]


def test_the_four_presets_exist():
    assert RULESETS == NAMES


@pytest.mark.parametrize("column", range(4))
@pytest.mark.parametrize("key", sorted(TABLE))
def test_preset_matches_rules_table(key, column):
    name = NAMES[column]
    assert PRESETS[name][key] == TABLE[key][column]
    assert type(PRESETS[name][key]) is type(TABLE[key][column])  # noqa: E721 (True is not 1)
    assert getattr(resolve_options(name, 4), key) == TABLE[key][column]


def test_presets_have_exactly_the_table_keys():
    for name in NAMES:
        assert set(PRESETS[name]) == set(TABLE) == set(OPTION_KEYS)


@pytest.mark.parametrize("ruleset", SOLO)
@pytest.mark.parametrize("seats", [2, 3, 4])
def test_every_preset_is_playable_with_2_to_4_seats(ruleset, seats):
    assert resolve_options(ruleset, seats).to_dict() == PRESETS[ruleset]


def test_d22_goat_classic_defaults_to_fish_for_all():
    assert resolve_options("goat-classic", 4).fish_scoring == "fish_for_all"


def test_goat_classic_offers_fish_for_one():
    options = resolve_options("goat-classic", 4, {"fish_scoring": "fish_for_one"})
    assert options.fish_scoring == "fish_for_one"
    assert {k: v for k, v in options.to_dict().items() if k != "fish_scoring"} == {
        k: v for k, v in PRESETS["goat-classic"].items() if k != "fish_scoring"
    }


@pytest.mark.parametrize("overrides", [
    {"redeal": True},
    {"move_time": 0},
    {"limit": 51, "ante": 25},
    {"hand_size": 6, "bazaar_reserve": 4},
    {"open_threshold": 0},
])
def test_any_key_may_be_overridden(overrides):
    options = resolve_options("goat-gamesburg", 3, overrides)
    for key, value in overrides.items():
        assert getattr(options, key) == value


def test_overrides_do_not_change_the_presets():
    before = {k: dict(v) for k, v in PRESETS.items()}
    resolve_options("goat-classic", 2, {"limit": 50})
    assert PRESETS == before


def _refused(ruleset, seats, overrides=None) -> InvalidOptions:
    with pytest.raises(InvalidOptions) as exc:
        resolve_options(ruleset, seats, overrides)
    assert exc.value.detail and exc.value.detail != exc.value.code.replace("_", " ")
    return exc.value


def test_refuses_more_tiles_than_a_set_has():
    err = _refused("goat-classic", 4, {"hand_size": 8, "redeal": False})
    assert err.code == "invalid_options" and "28" in err.detail
    _refused("domino-3rounds", 4, {"hand_size": 8})
    resolve_options("domino-3rounds", 4, {"hand_size": 6, "bazaar_reserve": 4})  # 24 + 4 = 28 is fine


def test_refuses_a_reserve_bigger_than_the_bazaar():
    err = _refused("domino-3rounds", 4, {"hand_size": 6, "bazaar_reserve": 5})
    assert "bazaar_reserve" in err.detail


def test_refuses_unknown_option():
    err = _refused("goat-classic", 2, {"hand_sise": 7})
    assert "hand_sise" in err.detail


@pytest.mark.parametrize("key, value", [
    ("hand_size", "7"), ("limit", 10.5), ("opener", "biggest_double"), ("fish", None), ("redeal", 1),
    ("redeal", "yes"), ("ante", -1), ("move_time", 86401), ("scoring", "chess"),
])
def test_refuses_wrong_type_or_value(key, value):
    err = _refused("goat-classic", 2, {key: value})
    assert repr(key) in err.detail or key in err.detail


@pytest.mark.parametrize("key", ["hand_size", "limit", "ante", "move_time", "bazaar_reserve"])
def test_refuses_bool_where_int(key):
    _refused("goat-gamesburg", 2, {key: True})


def test_refuses_goat_scoring_without_a_limit():
    _refused("goat-classic", 2, {"limit": None})
    _refused("domino-3rounds", 2, {"rounds": None})


def test_refuses_unknown_ruleset():
    err = _refused("goat-deluxe", 2)
    assert err.code == "unknown_ruleset" and "goat-classic" in err.detail


@pytest.mark.parametrize("seats", [0, 1, 5, True, "2"])
def test_refuses_seats_outside_2_to_4(seats):
    err = _refused("goat-classic", seats)
    assert "seats" in err.detail


def test_refused_options_are_refused_at_creation():
    with pytest.raises(InvalidOptions):
        decide(None, CreateGame(ruleset="goat-classic", seats=5, server_seed_hex=seed_hex(0)))
    with pytest.raises(InvalidOptions):
        decide(None, CreateGame(ruleset="goat-classic", seats=2, server_seed_hex=seed_hex(0),
                                options={"unknown": 1}))


def test_resolved_options_are_stored_in_game_created():
    _, events = decide(None, CreateGame(ruleset="goat-gamesburg", seats=3, server_seed_hex=seed_hex(0),
                                        options={"limit": 77}))
    data = events[0]["data"]
    assert events[0]["type"] == "game_created"
    assert data["options"] == {**PRESETS["goat-gamesburg"], "limit": 77}
    assert set(data) == {"ruleset", "options", "seats", "server_seed_commitment"}


def test_replay_uses_the_stored_options_not_todays_presets(monkeypatch):
    log = simulate_game(random.Random(3), ruleset="goat-classic", seats=3, interrupt_chance=0)
    before = verify_log(log)
    state_before = replay(log).state
    assert before["valid"]
    changed = {name: dict(preset) for name, preset in PRESETS.items()}
    changed["goat-classic"].update(limit=11, hand_size=5, redeal=False, lone_double_zero=0)
    monkeypatch.setattr(rulesets, "PRESETS", changed)
    assert resolve_options("goat-classic", 3).limit == 11  # today's defaults did change
    assert verify_log(log) == before
    assert replay(log).state == state_before
    assert replay(log).state.options.limit == 101


def test_stored_options_that_are_not_fully_resolved_are_refused():
    log = simulate_game(random.Random(4), ruleset="goat-classic", seats=2, interrupt_chance=0)
    del log[0]["data"]["options"]["ante"]
    report = verify_log(log)
    assert (report["valid"], report["seq"], report["code"]) == (False, 1, "options_not_resolved")
