"""Replay and verification of an event log.

``replay`` is a fold over the events that stops at the first one the rules refuse and reports it
with its ``seq``; ``verify_log`` is what an auditor runs on an exported, unredacted log: it checks
the revealed seed against the commitment, every deal against the seeds, and every play, draw and
knock against the rules.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .deal import commitment
from .errors import RulesError
from .events import is_seed_hex
from .fold import Fold
from .machine import GameMachine, freeze
from .moves import CHOICES, pending
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
    fold, seq, code, detail = _fold(events, server_seed, require_complete)
    return ReplayResult(fold.state if fold is not None else None, seq, code, detail)


def _fold(events: Iterable[Mapping[str, Any]], server_seed: str | None, require_complete: bool,
          ) -> tuple[Fold | None, int | None, str | None, str | None]:
    """:func:`replay` up to the frozen state: the fold (its machine as the replay left it), and the
    seq, code and detail of the first refused event (``None`` when there is none)."""
    fold = Fold()
    events = iter(events)
    first = next(events, None)
    if first is None:
        return None, 1, "empty_log", "the log has no events."
    try:
        fold.push_all([first])
        if server_seed is not None:
            # Not checked against the commitment here: a wrong seed shows as a deal mismatch,
            # and the reveal event checks the commitment itself.
            fold.set_server_seed(server_seed)
        fold.push_all(events, first_seq=2)
    except RulesError as exc:
        return fold, exc.seq, exc.code, exc.detail
    if require_complete:
        g: GameMachine = fold.machine  # type: ignore[assignment]  # the first event was applied
        kind, seat = pending(g)  # reads the machine as it reads a GameState
        if kind not in CHOICES:
            who = "" if seat is None else f" by seat {seat}"
            # every event adds one to the version
            return fold, g.version + 1, "forced_action_missing", f"the log ends where the rules force a {kind}{who}."
    return fold, None, None, None


def verify_log(events: list[Mapping[str, Any]]) -> dict[str, Any]:
    """Verify an unredacted log of an ended game. Returns the verifier's report (without ``file``)."""
    if not events:
        return {"valid": False, "seq": 1, "code": "empty_log", "detail": "the log has no events."}
    last = events[-1]
    revealed = None
    # (``x.__class__ is dict or``: what the isinstance says for a decoded event, without typing.Mapping's
    # __instancecheck__)
    if (
        (last.__class__ is dict or isinstance(last, Mapping)) and last.get("type") == "seed_revealed"
        and ((data := last.get("data")).__class__ is dict or isinstance(data, Mapping))
    ):
        revealed = last["data"].get("server_seed")
    if not isinstance(revealed, str):
        return {
            "valid": False,
            "seq": len(events) + 1,
            "code": "seed_not_revealed",
            "detail": "the log does not end with seed_revealed, so its deals cannot be proved.",
        }
    first = events[0]
    created = first.get("data") if first.__class__ is dict or isinstance(first, Mapping) else None
    committed = (created.get("server_seed_commitment") if created.__class__ is dict or isinstance(created, Mapping)
                 else None)
    if not is_seed_hex(revealed) or commitment(revealed) != committed:
        # A reveal that does not open the commitment proves nothing: replay without it, so that the
        # reveal itself is refused (seed_mismatch at its seq) unless an earlier event already is.
        revealed = None
    fold, seq, code, detail = _fold(events, revealed, True)
    if code is not None:
        return {"valid": False, "seq": seq, "code": code, "detail": detail}
    return {"valid": True, **report(freeze(fold.machine))}  # type: ignore[union-attr, arg-type]  # (the first event was applied)


def report(state: GameState) -> dict[str, Any]:
    """Result and completed rounds, in the verifier's shape: the result as the game's views show it
    (:meth:`GameState.result_dict`, with a paired ruleset's ``pair``)."""
    return {
        "result": state.result_dict(),
        "rounds": [r.to_dict(state.options.remembered_counts) for r in state.rounds],
    }
