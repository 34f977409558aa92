"""Command line: ``python -m goat.engine verify FILE... [--keys KEYS]`` and ``python -m goat.engine simulate ...``.

``verify`` reads each FILE as a signed game record (docs/records.md) when it starts with a record's
first header, else as an unredacted event log (a JSON array or JSON Lines). A record is checked
against the keys of KEYS (a file holding the ``/api/keys/`` answer): it prints ``valid``, or
``invalid: WHAT: DETAIL`` naming the first thing that is wrong. An event log prints the verifier's
report as a JSON line. The exit status is 0 when every file is valid, 1 otherwise, 2 for a usage
error (a record without ``--keys``, an unreadable keys file).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .replay import verify_log
from .rulesets import RULESETS
from .simulate import simulate


def load_log(path: str) -> list[Any]:
    """A JSON array of events, or JSON Lines (one event per line)."""
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    stripped = text.lstrip()
    if stripped.startswith("["):
        data = json.loads(text)
        if not isinstance(data, list):
            raise ValueError("the file is not a JSON array of events")
        return data
    return [json.loads(line) for line in text.splitlines() if line.strip()]


RECORD_START = '[Format "'


def _read_keys(path: str) -> Any:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def verify_record_file(path: str, keys: Any) -> tuple[bool, str]:
    """Whether the record at ``path`` verifies, and the line to print: ``valid`` or ``invalid: ...``."""
    from .records import RecordError, verify_record  # needs ``cryptography``; event logs do not

    try:
        with open(path, encoding="utf-8", newline="") as fh:
            text = fh.read()
        verify_record(text, keys)
    except RecordError as exc:
        return False, f"invalid: {exc.what}: {exc.detail}"
    except (OSError, UnicodeDecodeError) as exc:
        return False, f"invalid: format: the record cannot be read: {exc}"
    return True, "valid"


def _is_record(path: str) -> bool:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read(len(RECORD_START)) == RECORD_START
    except OSError:
        return False


def cmd_verify(args: argparse.Namespace) -> int:
    bad = 0
    keys: Any = None
    if args.keys is not None:
        try:
            keys = _read_keys(args.keys)
        except (OSError, ValueError, UnicodeDecodeError) as exc:
            print(f"invalid: key: the keys file cannot be read: {exc}", file=sys.stderr)
            return 2
    for path in args.files:
        if _is_record(path):
            if keys is None:
                print(f"{path}: a record is verified against published keys: give --keys KEYS", file=sys.stderr)
                return 2
            ok, line = verify_record_file(path, keys)
            bad += not ok
            print(line if len(args.files) == 1 else f"{path}: {line}", flush=True)
            continue
        try:
            events = load_log(path)
        except (OSError, ValueError, UnicodeDecodeError) as exc:
            out = {"file": path, "valid": False, "seq": None, "code": "unreadable_log", "detail": str(exc)}
        else:
            out = {"file": path, **verify_log(events)}
        bad += not out["valid"]
        print(json.dumps(out, ensure_ascii=False), flush=True)
    return 1 if bad else 0


def cmd_simulate(args: argparse.Namespace) -> int:
    options = json.loads(args.options) if args.options else None
    for log in simulate(ruleset=args.ruleset, seats=args.seats, seed=args.seed, count=args.count,
                        options=options, interrupt_chance=args.interrupt_chance):
        sys.stdout.write(json.dumps(log, ensure_ascii=False, separators=(",", ":")) + "\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m goat.engine", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    v = sub.add_parser("verify", help="verify signed game records, or unredacted event logs "
                                      "(JSON array or JSON Lines)")
    v.add_argument("files", nargs="+", metavar="FILE")
    v.add_argument("--keys", metavar="KEYS",
                   help="the published keys (the /api/keys/ answer) a record is checked against")
    v.set_defaults(func=cmd_verify)
    s = sub.add_parser("simulate", help="print random legal games, one JSON event log per line")
    s.add_argument("--ruleset", required=True, choices=RULESETS)
    s.add_argument("--seats", type=int, required=True, choices=(2, 3, 4))
    s.add_argument("--seed", type=int, required=True)
    s.add_argument("--count", type=int, default=1)
    s.add_argument("--options", help="option overrides as a JSON object")
    s.add_argument("--interrupt-chance", type=float, default=0.1,
                   help="share of games cut short by a timeout or resignation (default 0.1)")
    s.set_defaults(func=cmd_simulate)
    args = parser.parse_args(argv)
    status: int = args.func(args)
    return status


if __name__ == "__main__":
    sys.exit(main())
