"""Verification of a stored game: the hash chain, the deals against the seeds, and the replay
against the stored read model. Used by the API (``/verify/``), the admin and the nightly job."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from goat import engine
from goat.games import eventstore
from goat.games.models import Game

DEAL_CODES = frozenset({"deal_mismatch", "seed_mismatch", "seed_not_revealed"})


@dataclass(frozen=True)
class Verification:
    hash_chain: bool
    deals: bool
    replay: bool
    detail: str
    seq: int | None = None

    @property
    def ok(self) -> bool:
        return self.hash_chain and self.deals and self.replay

    def to_dict(self) -> dict[str, Any]:
        return {"hash_chain": self.hash_chain, "deals": self.deals, "replay": self.replay,
                "detail": self.detail, "seq": self.seq}


def game_verify(*, game: Game) -> Verification:
    events = eventstore.events_load(game_id=game.pk)
    chain_ok, chain_seq, chain_why = eventstore.hash_chain_check(events)
    dicts = [eventstore.event_dict(e) for e in events]
    problems: list[tuple[int | None, str]] = []
    if not chain_ok:
        problems.append((chain_seq, f"hash chain broken at seq {chain_seq}: {chain_why}"))
    if game.ended:
        report = engine.verify_log(dicts)
        valid = report["valid"]
        state = None
        if valid:
            state = engine.replay(dicts, server_seed=game.server_seed).state
    else:  # a running game (staff): prove the deals with the server's own seed
        result = engine.replay(dicts, server_seed=game.server_seed)
        valid = result.ok
        report = {"valid": True} if valid else {"seq": result.seq, "code": result.code, "detail": result.detail}
        state = result.state if valid else None
    deals_ok = True
    replay_ok = valid
    if not valid:
        problems.append((report["seq"], f"seq {report['seq']}: {report['code']}: {report['detail']}"))
        deals_ok = report["code"] not in DEAL_CODES
    elif state is not None:
        stored = {
            "status": game.status, "version": game.version, "result": game.result,
        }
        replayed = {
            "status": state.status, "version": state.version,
            "result": state.result.to_dict() if state.result is not None else None,
        }
        for key in stored:
            if stored[key] != replayed[key]:
                replay_ok = False
                problems.append((None, f"stored {key} {stored[key]!r} differs from the replay's {replayed[key]!r}"))
    first = min((p for p in problems if p[0] is not None), default=None, key=lambda p: p[0])
    detail = "; ".join(p[1] for p in problems) if problems else "all checks passed"
    return Verification(chain_ok, deals_ok, replay_ok, detail, first[0] if first else None)
