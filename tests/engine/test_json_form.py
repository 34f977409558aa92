"""The state's versioned JSON form: it round-trips exactly, play goes on identically from a restored
state, the golden snapshots still read, and a form of another version is refused with a typed error."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goat.engine import deal as dealing
from goat.engine.errors import StateFormatError, UnknownStateFormat
from goat.engine.fold import Fold
from goat.engine.json_form import FORMAT_VERSION, state_from_dict, state_from_json, state_to_dict, state_to_json
from goat.engine.replay import replay
from goat.engine.rules import PlayTile, Resign, Session, TakeSeat, TimeOut, advance
from goat.engine.simulate import simulate_game

GOLDEN = Path(__file__).parent / "golden"
NAME = "classic-4-fish-for-one-pot"
MIXES = [
    ("goat-classic", 2, None), ("goat-classic", 3, {"fish_scoring": "fish_for_one"}), ("goat-classic", 4, None),
    ("goat-gamesburg", 2, None), ("goat-gamesburg", 4, None), ("domino-3rounds", 3, None),
    ("domino-3rounds", 4, None), ("goat-classic", 3, {"fish_scoring": "fish_for_one", "bazaar_reserve": 2}),
]


def _log(name: str = NAME) -> list[dict]:
    return [json.loads(line) for line in (GOLDEN / f"{name}.jsonl").read_text().splitlines() if line.strip()]


def _command(event: dict):
    kind, seat, data = event["type"], event["seat"], event["data"]
    if kind == "tile_played":
        return PlayTile(seat=seat, tile=data["tile"], end=data["end"])
    if kind == "timed_out":
        return TimeOut(seat=seat)
    if kind == "resigned":
        return Resign(seat=seat)
    if kind == "seat_taken":
        return TakeSeat(player=data["player"], client_seed=data["client_seed"])
    return None  # a forced action: decide performs it itself


def _bare(events: list[dict]) -> list[dict]:
    return [{k: e[k] for k in ("type", "seat", "data")} for e in events]


@settings(max_examples=24, deadline=None)
@given(seed=st.integers(0, 10**6), mix=st.sampled_from(MIXES))
def test_every_prefix_round_trips_and_play_goes_on_identically(seed, mix):
    ruleset, seats, options = mix
    log = simulate_game(random.Random(seed), ruleset=ruleset, seats=seats, options=options, interrupt_chance=0.3)
    server_seed = log[-1]["data"]["server_seed"]
    fold = Fold()
    fold.push(log[0])
    fold.set_server_seed(server_seed)
    for k in range(1, len(log) + 1):
        if k > 1:
            fold.push(log[k - 1])
        state = fold.state
        text = state_to_json(state)
        restored = state_from_json(text)
        assert restored == state
        assert state_to_json(restored) == text
        # continued play: the commands of the rest of the log, decided from the restored state
        rest = log[k:]
        produced = []
        if rest and _command(rest[0]) is None:  # the prefix stops where the rules force an action
            restored, produced = advance(restored)
        session = Session(restored)
        while len(produced) < len(rest):
            command = _command(rest[len(produced)])
            assert command is not None
            produced.extend(session.decide(command))
        assert _bare(produced) == _bare(rest)


@pytest.mark.parametrize("upto", [134, 269])
def test_the_first_edition_golden_snapshots_read_as_the_replayed_state(upto):
    """Snapshots of a first-edition game (its log has no ``remembered_counts``): they read as the
    replayed state, in which remembered points count, as in that edition."""
    text = (GOLDEN / f"{NAME}.at-{upto}.json").read_text(encoding="utf-8").strip()
    state = replay(_log()[:upto]).state
    assert state_from_json(text) == state
    assert state.version == upto
    assert state.options.remembered_counts is True
    assert state_from_json(state_to_json(state)) == state


SNAPSHOTS = [("2e-gamesburg-3-remembered", 200), ("2e-gamesburg-3-remembered", 282), ("2e-3rounds-3-rounds", 87)]


def generate_snapshots() -> None:
    for name, upto in [(NAME, 134), (NAME, 269), *SNAPSHOTS]:
        (GOLDEN / f"{name}.at-{upto}.json").write_text(state_to_json(replay(_log(name)[:upto]).state) + "\n")


@pytest.mark.parametrize(("name", "upto"), SNAPSHOTS)
def test_the_second_edition_golden_snapshots_read_as_the_replayed_state(name, upto):
    text = (GOLDEN / f"{name}.at-{upto}.json").read_text(encoding="utf-8").strip()
    state = replay(_log(name)[:upto]).state
    assert state_from_json(text) == state
    assert state.version == upto
    assert state_to_json(state) == text  # the layout of format 2 does not drift


def test_the_form_carries_remembered_counts_and_round_winners():
    from goat.engine.rulesets import OPTION_KEYS

    where = OPTION_KEYS.index("remembered_counts")
    state = replay(_log("2e-3rounds-3-rounds")).state
    d = json.loads(state_to_json(state))
    assert d["options"][where] is None
    assert [row[-1] for row in d["rounds"]] == [list(r.winners) for r in state.rounds]
    assert all(r.winners for r in state.rounds)
    goat = json.loads(state_to_json(replay(_log("2e-gamesburg-3-remembered")).state))
    assert goat["options"][where] is False
    assert {row[-1] for row in goat["rounds"]} == {None}  # goat rounds name no winners


def test_the_form_is_plain_json_with_its_version_first():
    state = replay(_log()[:134]).state
    d = json.loads(state_to_json(state))
    assert next(iter(d)) == "format" and d["format"] == FORMAT_VERSION == 2
    hand = d["table"][9]  # the table's values, then one string of tiles per hand
    assert isinstance(hand, str) and hand.count("-") == len(state.table.hands[0])
    assert json.loads(json.dumps(state_to_dict(state))) == d  # tuples in the dict stand for arrays


@pytest.mark.parametrize("version", [0, 1, 3, "2", 2.0, None, True])
def test_a_form_of_another_version_is_refused_with_a_typed_error(version):
    d = state_to_dict(replay(_log()[:20]).state)
    d["format"] = version
    with pytest.raises(UnknownStateFormat) as excinfo:
        state_from_json(json.dumps(d))
    assert excinfo.value.code == "unknown_state_format"
    d.pop("format")
    with pytest.raises(UnknownStateFormat):
        state_from_dict(d)


@pytest.mark.parametrize("text", ["", "[]", "{", '{"format": 2}', '{"format": 2, "table": 5}', b"\xff"])
def test_an_unreadable_form_is_a_state_format_error(text):
    with pytest.raises(StateFormatError):
        state_from_json(text)


def test_a_state_with_the_server_seed_round_trips_with_it():
    log = _log()
    seed = log[-1]["data"]["server_seed"]
    assert dealing.commitment(seed) == log[0]["data"]["server_seed_commitment"]
    result = replay(log, server_seed=seed)
    assert result.ok
    assert state_from_json(state_to_json(result.state)) == result.state
    assert state_from_json(state_to_json(result.state)).server_seed == seed


if __name__ == "__main__":
    import sys

    if sys.argv[1:] == ["--regenerate"]:
        generate_snapshots()  # after a change of the format's version


def test_docs_rules_md_names_every_option_of_the_json_form_in_order():
    from pathlib import Path

    from goat.engine.rulesets import OPTION_KEYS

    text = (Path(__file__).resolve().parents[2] / "docs" / "rules.md").read_text(encoding="utf-8")
    listed = text.split("`goat.engine.rulesets.OPTION_KEYS`: ", 1)[1].split(")", 1)[0]
    assert [key.strip(" `") for key in listed.split(",")] == list(OPTION_KEYS)
