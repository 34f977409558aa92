"""The verifier (``verify_log`` and ``python -m goat.engine verify``): tampered logs are refused at the
right seq with the right code; honest logs verify; golden replays catch any engine drift.

The golden logs in ``golden/`` were generated once by :func:`generate_golden` (run this file as a
script with ``--regenerate`` to rewrite them, only when a rules change is intended). Those of
``FIRST_EDITION_GAMES`` are first-edition games (docs/rules.md §2: ``"opener": "doubles_from_one"`` and no
``remembered_counts``) recorded before the second edition: they must verify forever with the results
they had; ``--regenerate`` writes only the second-edition ones.
"""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from goat.engine.replay import replay, verify_log
from goat.engine.rulesets import PRESETS
from goat.engine.simulate import simulate_game

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent / "golden"

#: name -> (simulator seed, ruleset, seats, options, interrupt_chance); seeds chosen by a search for the
#: feature each file is there to pin down (a fish_for_one draw and pot, a redeal, a timeout, ...).
#: First-edition games: simulated with the first edition's options, ``remembered_counts`` then removed.
FIRST_EDITION_GAMES = {
    "classic-2-fish-for-all": (1, "goat-classic", 2, None, 0.0),
    "classic-4-fish-for-one-pot": (5, "goat-classic", 4, {"fish_scoring": "fish_for_one"}, 0.0),
    "classic-3-redeal": (12, "goat-classic", 3, None, 0.0),
    "gamesburg-3-limit": (2, "goat-gamesburg", 3, None, 0.0),
    "gamesburg-2-timeout": (0, "goat-gamesburg", 2, None, 1.0),
    "3rounds-4-resigned": (25, "domino-3rounds", 4, None, 1.0),
    "3rounds-3-rounds": (3, "domino-3rounds", 3, None, 0.0),
    # seat 0 never opens and ends with 10 remembered points, which count (the first edition): added with
    # the second edition as the first-edition game whose ratings the new reading would change (D-8)
    "gamesburg-3-remembered": (19, "goat-gamesburg", 3, None, 0.0),
}
#: Second-edition games (today's presets). ``gamesburg-3-remembered``: seat 0 never opens and ends with 10
#: remembered points, so the winners, ratings and chips differ from the goat-classic reading (D-8).
SECOND_EDITION_GAMES = {
    "2e-classic-2-fish-for-all": (1, "goat-classic", 2, None, 0.0),
    "2e-gamesburg-3-remembered": (19, "goat-gamesburg", 3, None, 0.0),
    "2e-gamesburg-2-timeout": (0, "goat-gamesburg", 2, None, 1.0),
    "2e-3rounds-3-rounds": (3, "domino-3rounds", 3, None, 0.0),
    # goat-pairs (fifth edition): an even fish carried to the next round, the pair of seats 0 and 2 the goats
    "2e-pairs-4-fish-pot": (2, "goat-pairs", 4, None, 0.0),
}
GOLDEN_GAMES = {**FIRST_EDITION_GAMES, **SECOND_EDITION_GAMES}
#: the options a first-edition game was created with (the keys the second edition changed)
FIRST_EDITION_OPTIONS = {"goat": {"opener": "doubles_from_one", "remembered_counts": True}, "rounds": {}}


def _log(seed: int = 1, ruleset: str = "goat-classic", seats: int = 2, **kw) -> list[dict]:
    return simulate_game(random.Random(seed), ruleset=ruleset, seats=seats, interrupt_chance=0, **kw)


def _renumber(events: list[dict]) -> list[dict]:
    return [{**e, "seq": i} for i, e in enumerate(events, start=1)]


def _refused(log) -> tuple[int, str]:
    report = verify_log(log)
    assert report["valid"] is False
    assert set(report) == {"valid", "seq", "code", "detail"} and report["detail"]
    return report["seq"], report["code"]


def _index(log, predicate, start: int = 0) -> int:
    return next(i for i in range(start, len(log)) if predicate(log[i], i))


def test_an_honest_log_verifies():
    log = _log()
    report = verify_log(log)
    assert report["valid"] is True and set(report) == {"valid", "result", "rounds"}
    assert report["result"] == replay(log).state.result_dict()


# --- tampering ------------------------------------------------------------------------------------


def test_changed_deal_is_deal_mismatch_at_that_seq():
    log = _log()
    # The second round's deal: swap the first tiles of seat 0's and seat 1's hands.
    i = [k for k, e in enumerate(log) if e["type"] == "round_dealt"][1]
    hands = log[i]["data"]["hands"]
    hands[0][0], hands[1][0] = hands[1][0], hands[0][0]
    assert _refused(log) == (log[i]["seq"], "deal_mismatch")


def test_changed_bazaar_order_is_deal_mismatch():
    log = _log()
    i = _index(log, lambda e, _: e["type"] == "round_dealt")
    bazaar = log[i]["data"]["bazaar"]
    bazaar[0], bazaar[1] = bazaar[1], bazaar[0]
    assert _refused(log) == (log[i]["seq"], "deal_mismatch")


def test_out_of_turn_play_is_not_your_turn_at_that_seq():
    log = _log()
    i = _index(log, lambda e, k: e["type"] == "tile_played" and k > 6)
    log[i]["seat"] = (log[i]["seat"] + 1) % 2
    assert _refused(log) == (log[i]["seq"], "not_your_turn")


def test_skipped_forced_draw_before_a_play_is_forced_action_missing():
    # The last draw before a play removed: the play comes while the rules still force a draw.
    log = _log()
    i = _index(log, lambda e, k: e["type"] == "tile_drawn" and log[k + 1]["type"] == "tile_played")
    tampered = _renumber(log[:i] + log[i + 1:])
    assert _refused(tampered) == (i + 1, "forced_action_missing")


def test_skipped_forced_draw_before_another_draw_is_draw_mismatch():
    # A draw removed between two draws: the next draw names a tile that is not the bazaar's front.
    log = _log()
    i = _index(log, lambda e, k: e["type"] == "tile_drawn" and log[k + 1]["type"] == "tile_drawn")
    tampered = _renumber(log[:i] + log[i + 1:])
    assert _refused(tampered) == (i + 1, "draw_mismatch")


def test_unforced_knock_inserted_is_unforced_knock():
    log = _log()
    i = _index(log, lambda e, k: e["type"] == "tile_played" and k > 6)
    knock = {"seq": 0, "type": "knocked", "at": log[i]["at"], "seat": log[i]["seat"], "data": {}}
    tampered = _renumber(log[:i] + [knock] + log[i:])
    assert _refused(tampered) == (i + 1, "unforced_knock")


def test_unforced_draw_inserted_is_unforced_draw():
    log = _log()
    i = _index(log, lambda e, k: e["type"] == "tile_played" and k > 6)
    draw = {"seq": 0, "type": "tile_drawn", "at": log[i]["at"], "seat": log[i]["seat"], "data": {"tile": "0-0"}}
    tampered = _renumber(log[:i] + [draw] + log[i:])
    assert _refused(tampered) == (i + 1, "unforced_draw")


def test_changed_played_tile_is_refused_at_that_seq():
    log = _log()
    i = _index(log, lambda e, k: e["type"] == "tile_played" and k > 6)
    log[i]["data"]["tile"] = "7-7"
    assert _refused(log) == (log[i]["seq"], "malformed_event")


@pytest.mark.parametrize("seed", ["ab" * 32, "zz", "00" * 31, 42])
def test_wrong_revealed_seed_is_seed_mismatch_at_the_reveal(seed):
    log = _log()
    log[-1]["data"]["server_seed"] = seed
    if isinstance(seed, str):
        assert _refused(log) == (len(log), "seed_mismatch")
    else:  # not even a string: the log does not reveal a seed at all
        assert _refused(log) == (len(log) + 1, "seed_not_revealed")


def test_wrong_revealed_seed_after_an_earlier_bad_event_reports_the_earlier_one():
    log = _log()
    log[-1]["data"]["server_seed"] = "ab" * 32
    i = _index(log, lambda e, k: e["type"] == "tile_played" and k > 6)
    log[i]["seat"] = (log[i]["seat"] + 1) % 2
    assert _refused(log) == (log[i]["seq"], "not_your_turn")


def test_events_after_the_end_are_event_after_end():
    log = _log()
    extra = copy.deepcopy(log[-1])
    extra["seq"] = len(log) + 1
    assert _refused(log + [extra]) == (len(log) + 1, "event_after_end")  # a second reveal
    tampered = log + [{"seq": len(log) + 1, "type": "knocked", "at": log[-1]["at"], "seat": 0, "data": {}}]
    tampered.append({**log[-1], "seq": len(log) + 2})  # still ends with the reveal
    assert _refused(tampered) == (len(log) + 1, "event_after_end")


def test_wrong_seq_is_wrong_seq_at_that_position():
    log = _log()
    log[9]["seq"] = 11
    assert _refused(log) == (10, "wrong_seq")


def test_truncated_log_is_seed_not_revealed():
    log = _log()
    assert _refused(log[:-1]) == (len(log), "seed_not_revealed")
    assert _refused(log[: len(log) // 2]) == (len(log) // 2 + 1, "seed_not_revealed")


def test_empty_log_is_refused():
    assert verify_log([])["code"] == "empty_log"


def test_reveal_cut_before_a_forced_action_is_forced_action_missing():
    # Drop the draws after some play but keep the reveal: the log ends... at the first event that is
    # not the forced draw.
    log = _log()
    i = _index(log, lambda e, k: e["type"] == "tile_drawn")
    tampered = _renumber(log[:i] + [log[-1]])
    assert _refused(tampered) == (i + 1, "forced_action_missing")


# --- the command line -----------------------------------------------------------------------------


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "goat.engine", *args], cwd=ROOT, capture_output=True,
                          text=True, encoding="utf-8", timeout=120)


def test_cli_verify_accepts_json_array_and_json_lines(tmp_path):
    log = _log(seed=2, ruleset="goat-gamesburg", seats=3)
    array = tmp_path / "game.json"
    array.write_text(json.dumps(log, ensure_ascii=False), encoding="utf-8")
    lines = tmp_path / "game.jsonl"
    lines.write_text("\n".join(json.dumps(e, ensure_ascii=False) for e in log) + "\n", encoding="utf-8")
    out = _cli("verify", str(array), str(lines))
    assert out.returncode == 0, out.stderr
    reports = [json.loads(line) for line in out.stdout.splitlines()]
    expected = verify_log(log)
    assert reports == [{"file": str(array), **expected}, {"file": str(lines), **expected}]
    assert all(list(r) == ["file", "valid", "result", "rounds"] for r in reports)


def test_cli_verify_one_line_per_file_in_order_exit_1_if_any_invalid(tmp_path):
    paths = []
    for n in range(3):
        log = _log(seed=n)
        if n == 1:
            log = log[:-1]
        path = tmp_path / f"g{n}.jsonl"
        path.write_text("\n".join(json.dumps(e) for e in log), encoding="utf-8")
        paths.append(str(path))
    broken = tmp_path / "broken.json"
    broken.write_text("[{", encoding="utf-8")
    paths.append(str(broken))
    out = _cli("verify", *paths)
    assert out.returncode == 1
    reports = [json.loads(line) for line in out.stdout.splitlines()]
    assert [r["file"] for r in reports] == paths
    assert [r["valid"] for r in reports] == [True, False, True, False]
    assert list(reports[1]) == ["file", "valid", "seq", "code", "detail"]
    assert reports[1]["code"] == "seed_not_revealed"
    assert list(reports[3]) == ["file", "valid", "seq", "code", "detail"]
    assert reports[3]["code"] == "unreadable_log"


def test_cli_simulate_is_deterministic_and_verifies(tmp_path):
    args = ("simulate", "--ruleset", "goat-classic", "--seats", "3", "--seed", "7", "--count", "3")
    first, second = _cli(*args), _cli(*args)
    assert first.returncode == 0 and first.stdout == second.stdout
    logs = [json.loads(line) for line in first.stdout.splitlines()]
    assert len(logs) == 3
    paths = []
    for k, log in enumerate(logs):
        path = tmp_path / f"sim{k}.json"
        path.write_text(json.dumps(log, ensure_ascii=False), encoding="utf-8")
        paths.append(str(path))
    out = _cli("verify", *paths)
    assert out.returncode == 0
    assert all(json.loads(line)["valid"] for line in out.stdout.splitlines())
    other = _cli("simulate", "--ruleset", "goat-classic", "--seats", "3", "--seed", "8")
    assert other.stdout.splitlines()[0] != first.stdout.splitlines()[0]


# --- golden replays -------------------------------------------------------------------------------


def _golden_log(name: str) -> list[dict]:
    seed, ruleset, seats, options, interrupt = GOLDEN_GAMES[name]
    if name in FIRST_EDITION_GAMES:
        scoring = PRESETS[ruleset]["scoring"]
        options = {**FIRST_EDITION_OPTIONS[scoring], **(options or {})}
    log = simulate_game(random.Random(seed), ruleset=ruleset, seats=seats, options=options,
                        interrupt_chance=interrupt)
    if name in FIRST_EDITION_GAMES:
        del log[0]["data"]["options"]["remembered_counts"]  # the key the first edition did not have
    return log


def generate_golden() -> None:
    GOLDEN.mkdir(exist_ok=True)
    for name in SECOND_EDITION_GAMES:
        log = _golden_log(name)
        (GOLDEN / f"{name}.jsonl").write_text(
            "".join(json.dumps(e, ensure_ascii=False, sort_keys=False) + "\n" for e in log), encoding="utf-8")
        (GOLDEN / f"{name}.expected.json").write_text(
            json.dumps(verify_log(log), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def _load_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.parametrize("name", sorted(GOLDEN_GAMES))
def test_golden_replay_verifies_with_the_recorded_report(name):
    log = _load_jsonl(GOLDEN / f"{name}.jsonl")
    expected = json.loads((GOLDEN / f"{name}.expected.json").read_text(encoding="utf-8"))
    assert verify_log(log) == expected
    assert expected["valid"] is True


@pytest.mark.parametrize("name", sorted(GOLDEN_GAMES))
def test_golden_replay_is_what_the_simulator_still_produces(name):
    assert _load_jsonl(GOLDEN / f"{name}.jsonl") == _golden_log(name)


def test_golden_replays_cover_what_they_claim():
    reports = {name: json.loads((GOLDEN / f"{name}.expected.json").read_text(encoding="utf-8"))
               for name in GOLDEN_GAMES}
    logs = {name: _load_jsonl(GOLDEN / f"{name}.jsonl") for name in GOLDEN_GAMES}
    assert {r["result"]["reason"] for r in reports.values()} == {"limit", "rounds", "timeout", "resigned"}
    assert any(r["fish_pot"] > 0 for r in reports["classic-4-fish-for-one-pot"]["rounds"])
    assert any(e["type"] == "round_dealt" and e["data"]["void"] for e in logs["classic-3-redeal"])
    assert {logs[n][0]["data"]["ruleset"] for n in logs} == {
        "goat-classic", "goat-gamesburg", "domino-3rounds", "goat-pairs"}
    assert any(r["fish_pot"] > 0 for r in reports["2e-pairs-4-fish-pot"]["rounds"])
    assert reports["2e-pairs-4-fish-pot"]["result"]["goats"] == [0, 2]
    assert {logs[n][0]["data"]["seats"] for n in logs} == {2, 3, 4}
    for name in FIRST_EDITION_GAMES:
        options = logs[name][0]["data"]["options"]
        assert "remembered_counts" not in options and options["opener"] in ("doubles_from_one", "smallest_double")
    for name in SECOND_EDITION_GAMES:
        options = logs[name][0]["data"]["options"]
        assert options == PRESETS[logs[name][0]["data"]["ruleset"]]
    assert all("winners" in r for r in reports["2e-3rounds-3-rounds"]["rounds"])
    assert all("winners" in r for r in reports["3rounds-3-rounds"]["rounds"])


def _with_remembered_counts(log: list[dict], value) -> list[dict]:
    log = copy.deepcopy(log)
    log[0]["data"]["options"]["remembered_counts"] = value
    return log


def test_first_edition_golden_logs_replay_by_first_edition_rules():
    """A first-edition record (no remembered_counts) means remembered points count: the same log with
    ``remembered_counts: true`` written in verifies to the same report; with ``false`` it would not."""
    for name in ("gamesburg-3-limit", "gamesburg-2-timeout", "classic-4-fish-for-one-pot"):
        log = _load_jsonl(GOLDEN / f"{name}.jsonl")
        assert verify_log(_with_remembered_counts(log, True)) == verify_log(log)
    state = replay(_load_jsonl(GOLDEN / "gamesburg-3-limit.jsonl")).state
    assert state.options.remembered_counts is True and state.options.opener == "doubles_from_one"


def test_first_edition_gamesburg_game_keeps_the_ratings_it_was_played_for():
    """D-8 and docs/rules.md §2: a first-edition goat-gamesburg game counts remembered points (seat 0's 10),
    although today's goat-gamesburg would not; its result is the one it had when it was played."""
    log = _load_jsonl(GOLDEN / "gamesburg-3-remembered.jsonl")
    assert verify_log(log)["result"] == {"reason": "limit", "goats": [2], "winners": [1],
                                         "rating_points": [9, 10, 0], "chips": [-10, 20, -10]}
    assert verify_log(_with_remembered_counts(log, False))["result"]["rating_points"] == [10, 10, 0]


def test_a_first_edition_record_cannot_carry_a_second_edition_opener():
    log = _load_jsonl(GOLDEN / "gamesburg-3-limit.jsonl")
    log[0]["data"]["options"]["opener"] = "doubles_from_one_by_sum"
    assert _refused(log) == (1, "options_not_resolved")


def test_worked_example_gamesburg_remembered_points_do_not_count():
    """D-8, second edition: in goat-gamesburg seat 0 never opens and ends with 10 remembered points;
    the winners, the ratings and the chips use the written score alone (seat 0 and seat 1 both at 0)."""
    log = _load_jsonl(GOLDEN / "2e-gamesburg-3-remembered.jsonl")
    assert log[0]["data"]["options"]["remembered_counts"] is False
    report = verify_log(log)
    last = report["rounds"][-1]["players"]
    assert [(p["open"], p["score"], p["remembered"], p["points"]) for p in last] == [
        (False, 0, 10, 0), (False, 0, 0, 0), (True, 134, 0, 134)]
    assert report["result"] == {"reason": "limit", "goats": [2], "winners": [0, 1], "rating_points": [10, 10, 0],
                                "chips": [5, 5, -10]}


def test_worked_example_the_same_game_under_goat_classic_counting_counts_them():
    """The same game read as goat-classic reads it (``remembered_counts: true``): seat 0's 10 remembered
    points are points, so seat 1 wins alone, seat 0 earns 9 and pays the ante."""
    log = _with_remembered_counts(_load_jsonl(GOLDEN / "2e-gamesburg-3-remembered.jsonl"), True)
    report = verify_log(log)
    assert [p["points"] for p in report["rounds"][-1]["players"]] == [10, 0, 134]
    assert report["result"] == {"reason": "limit", "goats": [2], "winners": [1], "rating_points": [9, 10, 0],
                                "chips": [-10, 20, -10]}


def test_worked_example_3rounds_round_records_name_their_winners():
    report = json.loads((GOLDEN / "2e-3rounds-3-rounds.expected.json").read_text(encoding="utf-8"))
    for r in report["rounds"]:
        assert r["winners"] == [s for s, h in enumerate(r["hands"]) if h == min(r["hands"])]


def test_golden_replays_verify_through_the_cli():
    paths = [str(GOLDEN / f"{name}.jsonl") for name in sorted(GOLDEN_GAMES)]
    out = _cli("verify", *paths)
    assert out.returncode == 0, out.stdout
    for line, name in zip(out.stdout.splitlines(), sorted(GOLDEN_GAMES), strict=True):
        expected = json.loads((GOLDEN / f"{name}.expected.json").read_text(encoding="utf-8"))
        assert json.loads(line) == {"file": str(GOLDEN / f"{name}.jsonl"), **expected}


if __name__ == "__main__":
    if sys.argv[1:] == ["--regenerate"]:
        generate_golden()
        print(f"rewrote {len(SECOND_EDITION_GAMES)} second-edition golden logs in {GOLDEN}")
    else:
        print("usage: python tests/engine/test_replay_verify.py --regenerate")


def _with(log: list[dict], index: int, **changes) -> list[dict]:
    bad = copy.deepcopy(log)
    bad[index] = {**bad[index], **changes}
    return bad


def _malformed_logs() -> list[tuple[str, list, int, str]]:
    """Logs that are not even well-typed, each with the seq and code they must be refused with."""
    log = _log(seed=3)
    play = _index(log, lambda e, _i: e["type"] == "tile_played")
    dealt = _index(log, lambda e, _i: e["type"] == "round_dealt")
    return [
        ("a knock before game_created", _with(log, 0, type="knocked", seat=0, data={}), 1, "unexpected_event"),
        ("a play before game_created", _with(log, 0, type="tile_played", seat=0, data={"tile": "1-1", "end": "left"}),
         1, "unexpected_event"),
        ("a deal before game_created", _with(log, 0, **{k: log[dealt][k] for k in ("type", "seat", "data")}),
         1, "unexpected_event"),
        ("a type that is a list", _with(log, 3, type=["seat_taken"]), 4, "unknown_event"),
        ("a type that is an object", _with(log, 3, type={"a": 1}), 4, "unknown_event"),
        ("a tile that is a list", _with(log, play, data={"tile": [1, 2], "end": "left"}), play + 1,
         "malformed_event"),
        ("a tile that is an object", _with(log, play, data={"tile": {"a": 1}, "end": "left"}), play + 1,
         "malformed_event"),
        ("a tile that is no tile", _with(log, play, data={"tile": "9-9", "end": "left"}), play + 1,
         "malformed_event"),
    ]


@pytest.mark.parametrize("name, log, seq, code", _malformed_logs(), ids=[c[0] for c in _malformed_logs()])
def test_a_malformed_log_is_refused_not_crashed_on(name, log, seq, code):
    report = verify_log(log)
    assert (report["valid"], report["seq"], report["code"]) == (False, seq, code), report
    result = replay(log)
    assert (result.seq, result.code) == (seq, code)
