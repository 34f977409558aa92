"""The signed game record (docs/records.md): the spec's example is what the writer writes, every
game transcribes losslessly, and each alteration fails with the first wrong thing named."""

from __future__ import annotations

import base64
import hashlib
import json
import random
import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from goat.engine import records
from goat.engine.records import RecordError, key_id, public_bytes, sign_record, verify_record, write_record
from goat.engine.simulate import simulate_game

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "docs" / "records.md"
#: the example key of docs/records.md (a key for the page only)
EXAMPLE_KEY = hashlib.sha256(b"goat docs/records.md example key").digest()
OTHER_KEY = hashlib.sha256(b"someone else's key").digest()
SIGNED = datetime(2026, 1, 1, 0, 10, tzinfo=UTC)


def published(private: bytes, *, valid_from: str = "2026-01-01T00:00:00Z", valid_until: str | None = None) -> dict:
    pub = public_bytes(private)
    return {"id": key_id(pub), "public_key": base64.b64encode(pub).decode("ascii"), "algorithm": "ed25519",
            "valid_from": valid_from, "valid_until": valid_until}


KEYS = [published(EXAMPLE_KEY)]


def example_log() -> list[dict]:
    return simulate_game(random.Random(49), ruleset="domino-3rounds", seats=2, interrupt_chance=0)


def example_body() -> str:
    return write_record(example_log(), game=49, rated=True, engine="goat 0.1.0")


def example_record() -> str:
    return sign_record(example_body(), private_key=EXAMPLE_KEY, signed_at=SIGNED)


def spec_blocks() -> tuple[str, list]:
    """The full example record and its keys file, as docs/records.md shows them."""
    text = SPEC.read_text(encoding="utf-8")
    example = text.split("## A full example", 1)[1]
    record = re.search(r"```text\n(.*?)```", example, re.S)[1]
    keys = json.loads(re.search(r"```json\n(.*?)```", example, re.S)[1])
    return record, keys


def reason(text: str, keys: list | None = None) -> tuple[str, str]:
    with pytest.raises(RecordError) as caught:
        verify_record(text, KEYS if keys is None else keys)
    return caught.value.what, caught.value.detail


def resign(text: str, private: bytes = EXAMPLE_KEY) -> str:
    """``text``'s body signed again (as a holder of ``private`` would sign an altered record)."""
    body = text[: text.index(records.BEGIN)]
    return sign_record(body, private_key=private, signed_at=SIGNED)


def test_the_specs_example_is_what_the_writer_writes_and_it_verifies():
    record, keys = spec_blocks()
    assert record == example_record()
    assert keys == KEYS
    report = verify_record(record, keys)
    assert report["key"] == KEYS[0]["id"]
    assert report["result"]["winners"] == [1]
    assert len(report["rounds"]) == 3


@pytest.mark.parametrize("ruleset, seats", [("domino-3rounds", 3), ("goat-classic", 2), ("goat-classic", 4),
                                            ("goat-gamesburg", 3), ("domino-3rounds", 4), ("goat-pairs", 4)])
def test_every_game_transcribes_losslessly_and_verifies(ruleset, seats):
    rng = random.Random(f"{ruleset}-{seats}")
    for _ in range(4):  # interrupted ones too: timeouts and resignations
        log = simulate_game(rng, ruleset=ruleset, seats=seats, interrupt_chance=0.5)
        text = sign_record(write_record(log, game=1, rated=False, engine="goat test"), private_key=EXAMPLE_KEY,
                           signed_at=SIGNED)
        assert records.parse_record(text).events == log
        assert verify_record(text, KEYS)["rounds"] == records.verify_log(log)["rounds"]


def test_a_log_that_does_not_verify_is_not_written():
    log = example_log()
    log[6]["data"]["tile"] = "6-6"
    with pytest.raises(ValueError, match="does not verify"):
        write_record(log, game=1, rated=True, engine="goat test")


# -- alterations of a signed record: the signature catches each one -----------------------------------

def test_an_altered_header_fails_the_signature():
    assert reason(example_record().replace("[Rated true]", "[Rated false]"))[0] == "signature"


def test_an_altered_move_fails_the_signature():
    text = example_record().replace("5 2026-01-01T00:00:05Z play 1 0-0 left", "5 2026-01-01T00:00:05Z play 1 0-0 right")
    assert reason(text)[0] == "signature"


def test_an_altered_signature_fails_the_signature():
    text = example_record()
    line = next(x for x in text.split("\n") if x.startswith("Signature: "))
    raw = bytearray(base64.b64decode(line.removeprefix("Signature: ")))
    raw[10] ^= 1
    assert reason(text.replace(line, "Signature: " + base64.b64encode(bytes(raw)).decode()))[0] == "signature"


def test_an_unknown_key_id_fails_the_key():
    text = example_record().replace(f"Key: {KEYS[0]['id']}", "Key: ed25519-0000000000000000")
    what, detail = reason(text)
    assert (what, "ed25519-0000000000000000" in detail) == ("key", True)


def test_a_key_id_naming_another_published_key_fails_the_signature():
    other = published(OTHER_KEY)
    text = example_record().replace(f"Key: {KEYS[0]['id']}", f"Key: {other['id']}")
    assert reason(text, [*KEYS, other])[0] == "signature"


def test_a_record_signed_by_an_unpublished_key_fails_the_key():
    assert reason(resign(example_record(), OTHER_KEY))[0] == "key"


def test_a_signature_outside_the_keys_validity_fails_the_key():
    retired = [published(EXAMPLE_KEY, valid_from="2025-01-01T00:00:00Z", valid_until="2025-12-31T23:59:59Z")]
    what, detail = reason(example_record(), retired)
    assert what == "key" and "not valid at 2026-01-01T00:10:00Z" in detail
    later = [published(EXAMPLE_KEY, valid_from="2026-01-02T00:00:00Z")]
    assert reason(example_record(), later)[0] == "key"


def test_a_retired_key_still_verifies_what_it_signed():
    keys = [published(EXAMPLE_KEY, valid_until="2026-06-01T00:00:00Z"),
            published(OTHER_KEY, valid_from="2026-06-01T00:00:00Z")]
    assert verify_record(example_record(), keys)["key"] == keys[0]["id"]


def test_a_keys_file_whose_id_does_not_name_its_key_is_refused():
    keys = [{**KEYS[0], "public_key": published(OTHER_KEY)["public_key"]}]
    assert reason(example_record(), keys)[0] == "key"


# -- what a signed record can still get wrong: the checks after the signature -------------------------

def test_a_reveal_that_does_not_open_the_commitment_fails_the_commitment():
    text = example_record()
    reveal = re.search(r'\[Reveal "([0-9a-f]{64})"\]', text)[1]
    altered = text.replace(reveal, hashlib.sha256(b"another seed").hexdigest())
    assert reason(resign(altered))[0] == "commitment"


def test_a_deal_the_seed_does_not_give_fails_the_deal():
    text = example_record().replace("deal 1 0 1-4,0-6,4-6,1-2,5-5 0-0,2-4,", "deal 1 0 0-6,1-4,4-6,1-2,5-5 0-0,2-4,")
    what, detail = reason(resign(text))
    assert what == "deal" and detail.startswith("seq 4: deal_mismatch")


def test_an_illegal_move_fails_the_move_naming_its_seq():
    text = example_record().replace("6 2026-01-01T00:00:06Z play 0 0-6 left", "6 2026-01-01T00:00:06Z play 0 5-5 left")
    what, detail = reason(resign(text))
    assert what == "move" and detail.startswith("seq 6: ")


def test_a_wrong_player_header_fails_the_header():
    assert reason(resign(example_record().replace('[Player1 "bot1"]', '[Player1 "masha"]')))[0] == "header"


def test_options_the_rules_do_not_resolve_fail_the_header():
    text = example_record().replace('"hand_size":5', '"hand_size":99')
    what, detail = reason(resign(text))
    assert what == "header" and detail.startswith("seq 1: ")


def test_a_wrong_result_fails_the_result():
    text = example_record().replace('"winners":[1]}]', '"winners":[0]}]')
    assert reason(resign(text))[0] == "result"


def pairs_record() -> tuple[str, dict]:
    """A signed record of a goat-pairs game played to a single losing pair, and its replayed result."""
    rng = random.Random("pairs-record")
    while True:
        log = simulate_game(rng, ruleset="goat-pairs", seats=4, interrupt_chance=0)
        result = records.verify_log(log)["result"]
        if result and result.get("pair"):
            text = write_record(log, game=1, rated=False, engine="goat test")
            return sign_record(text, private_key=EXAMPLE_KEY, signed_at=SIGNED), result


def test_a_pairs_records_result_names_the_losing_pair_as_the_game_shows_it():
    text, result = pairs_record()
    pair = result["pair"]
    assert set(pair) == {"goats", "winners", "margin", "dry"}
    assert sorted(pair["goats"] + pair["winners"]) == [0, 1, 2, 3]
    assert verify_record(text, KEYS)["result"] == result
    assert f'"pair":{json.dumps(pair, separators=(",", ":"), sort_keys=True)}' in text


def test_a_pairs_record_without_the_pair_verifies_and_a_wrong_pair_fails_the_result():
    text, result = pairs_record()
    pair = json.dumps(result["pair"], separators=(",", ":"), sort_keys=True)
    assert verify_record(resign(text.replace(f',"pair":{pair}', "")), KEYS)["result"] == result
    wrong = dict(result["pair"], margin=result["pair"]["margin"] + 1)
    text = text.replace(pair, json.dumps(wrong, separators=(",", ":"), sort_keys=True))
    assert reason(resign(text))[0] == "result"


def test_a_wrong_scoresheet_fails_the_result():
    text = example_record().replace('"hands":[15,0]', '"hands":[14,0]')
    what, detail = reason(resign(text))
    assert what == "result" and "row 1" in detail


@pytest.mark.parametrize("change", [
    lambda t: t.replace("\n", "\r\n"),
    lambda t: t.replace("-----END GOAT SIGNATURE-----\n", ""),
    lambda t: t.replace('[Format "goat-record/1"]', '[Format "goat-record/9"]'),
    lambda t: t.replace("[Seats 2]\n", ""),
    lambda t: t.replace("draw 0 2-3", "draw 0 banana"),
    lambda t: t.replace("\n13 2026", "\n14 2026"),
    lambda t: t.replace("Algorithm: ed25519\n", ""),
    lambda t: "",
])
def test_a_malformed_record_fails_the_format(change):
    assert reason(change(example_record()))[0] == "format"


# -- the command line ---------------------------------------------------------------------------------

def run_verify(tmp_path: Path, text: str, *args: str) -> subprocess.CompletedProcess:
    (tmp_path / "game.goat").write_text(text, encoding="utf-8", newline="")
    (tmp_path / "keys.json").write_text(json.dumps(KEYS), encoding="utf-8")
    return subprocess.run([sys.executable, "-m", "goat.engine", "verify", str(tmp_path / "game.goat"), *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_the_command_prints_valid(tmp_path):
    out = run_verify(tmp_path, example_record(), "--keys", str(tmp_path / "keys.json"))
    assert (out.returncode, out.stdout) == (0, "valid\n"), out.stderr


def test_the_command_names_the_first_wrong_thing(tmp_path):
    altered = example_record().replace("[Game 49]", "[Game 50]")
    out = run_verify(tmp_path, altered, "--keys", str(tmp_path / "keys.json"))
    assert out.returncode == 1
    assert out.stdout.startswith("invalid: signature: ")


def test_the_command_needs_keys_for_a_record(tmp_path):
    out = run_verify(tmp_path, example_record())
    assert out.returncode == 2 and "--keys" in out.stderr
