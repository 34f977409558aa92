"""Replay and verification of an event log.

``replay`` is a fold over the events that stops at the first one the rules refuse and reports it
with its ``seq``; ``verify_log`` is what an auditor runs on an exported, unredacted log: it checks
the revealed seed against the commitment, every deal against the seeds, and every play, draw and
knock against the rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from .deal import commitment
from .errors import RulesError
from .rules import CHOICES, Fold, is_seed_hex, pending
from .state import GameState


@dataclass(frozen=True, slots=True)
class ReplayResult:
    state: GameState | None
    #: the first refused event: its seq (or 1-based position when it has none), code and why
    seq: int | None = None
    code: str | None = None
    detail: str | None = None

    @property
    def ok(self) -> bool:
        return self.code is None


def replay(events: Iterable[Mapping[str, Any]], *, server_seed: str | None = None,
           require_complete: bool = False) -> ReplayResult:
    """Fold ``events`` through the rules.

    ``server_seed`` (the server's secret, or the revealed one) lets every deal be proved; without it
    a deal is only checked for shape.  With ``require_complete`` a log that stops while the rules
    still force an action (a draw, a knock, a deal, the reveal) is refused at the next seq.
    """
    fold = Fold()
    events = iter(events)
    first = next(events, None)
    if first is None:
        return ReplayResult(None, 1, "empty_log", "the log has no events.")
    try:
        fold.push_all([first])
        if server_seed is not None:
            # Not checked against the commitment here: a wrong seed shows as a deal mismatch,
            # and the reveal event checks the commitment itself.
            fold.set_server_seed(server_seed)
        fold.push_all(events, first_seq=2)
    except RulesError as exc:
        return ReplayResult(fold.state, exc.seq, exc.code, exc.detail)
    state = fold.state
    position = state.version  # every event adds one to the version
    if require_complete:
        kind, seat = pending(state)
        if kind not in CHOICES:
            who = "" if seat is None else f" by seat {seat}"
            return ReplayResult(state, position + 1, "forced_action_missing",
                                f"the log ends where the rules force a {kind}{who}.")
    return ReplayResult(state)


def verify_log(events: list[Mapping[str, Any]]) -> dict[str, Any]:
    """Verify an unredacted log of an ended game. Returns the verifier's report (without ``file``)."""
    if not events:
        return {"valid": False, "seq": 1, "code": "empty_log", "detail": "the log has no events."}
    last = events[-1]
    revealed = None
    if isinstance(last, Mapping) and last.get("type") == "seed_revealed" and isinstance(last.get("data"), Mapping):
        revealed = last["data"].get("server_seed")
    if not isinstance(revealed, str):
        return {
            "valid": False,
            "seq": len(events) + 1,
            "code": "seed_not_revealed",
            "detail": "the log does not end with seed_revealed, so its deals cannot be proved.",
        }
    first = events[0]
    created = first.get("data") if isinstance(first, Mapping) else None
    committed = created.get("server_seed_commitment") if isinstance(created, Mapping) else None
    if not is_seed_hex(revealed) or commitment(revealed) != committed:
        # A reveal that does not open the commitment proves nothing: replay without it, so that the
        # reveal itself is refused (seed_mismatch at its seq) unless an earlier event already is.
        revealed = None
    result = replay(events, server_seed=revealed, require_complete=True)
    if not result.ok:
        return {"valid": False, "seq": result.seq, "code": result.code, "detail": result.detail}
    return {"valid": True, **report(result.state)}


def report(state: GameState) -> dict[str, Any]:
    """Result and completed rounds, in the verifier's shape."""
    return {
        "result": state.result.to_dict() if state.result is not None else None,
        "rounds": [r.to_dict() for r in state.rounds],
    }
