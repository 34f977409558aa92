"""Immutable engine state (frozen dataclasses and tuples).

``GameState`` changes rarely (seats, scores, rounds); ``RoundState`` is the table of the round being
played. Tiles are :class:`~goat.engine.tiles.Tile` ints; ``held`` and ``on_line`` are 28-bit sets of
them, kept beside the ordered hands and line so that "which tiles fit" is one ``&``. The JSON form
of a state is in :mod:`goat.engine.json_form`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from .rulesets import Options, is_paired, team_of
from .scoring import PlayerScore, pair_result, points
from .status import ENDED, RUNNING, WAITING
from .tiles import TEXT, Tile, tile_str, tiles_str


@dataclass(frozen=True, slots=True)
class RoundState:
    """The table during one round."""

    number: int
    #: each seat's tiles in the order received (dealt, then drawn)
    hands: tuple[tuple[Tile, ...], ...]
    #: the undrawn tiles, drawn from the front
    bazaar: tuple[Tile, ...]
    #: tiles as laid, left to right, each oriented ``(left half, right half)``
    line: tuple[tuple[int, int], ...] = ()
    left: int | None = None
    right: int | None = None
    #: the seat whose turn it is (to play, or to draw/knock by force); ``None`` once the round ended
    turn: int | None = None
    #: the tile the leader must open with (docs/rules.md §4), ``None`` when any tile may lead
    must_lead: Tile | None = None
    #: seat of the last ``tile_played`` (the fisher if the round ends in fish)
    last_player: int | None = None
    #: ``None`` while the round runs, else ``"out"`` or ``"fish"``
    ended: str | None = None
    #: each hand as a set of tiles (the same tiles as ``hands``)
    held: tuple[int, ...] = ()
    #: the set of tiles on the line
    on_line: int = 0

    def line_str(self) -> list[str]:
        return [f"{a}-{b}" for a, b in self.line]


class RoundRecord(NamedTuple):
    """One completed round on the scoresheet (docs/rules.md §7/§8)."""

    round: int
    end: str  # "out" | "fish"
    seat: int  # who went out, or the fisher
    hand_tiles: tuple[tuple[Tile, ...], ...]
    hands: tuple[int, ...]  # hand values
    round_points: tuple[int, ...]
    fish_pot: int  # carried after the round
    draw: bool
    players: tuple[PlayerScore, ...]
    #: the seats with the fewest pips (fixed-rounds scoring, §8), ``None`` for a goat round
    winners: tuple[int, ...] | None = None

    def to_dict(self, remembered_counts: bool | None) -> dict[str, Any]:
        """The round as the verifier and the scoresheet show it; each player's ``points`` follow
        ``remembered_counts`` (D-8), and a fixed-rounds round names its ``winners``."""
        d = {
            "round": self.round,
            "end": self.end,
            "seat": self.seat,
            "hands": list(self.hands),
            "round_points": list(self.round_points),
            "fish_pot": self.fish_pot,
            "players": [p.to_dict(remembered_counts) for p in self.players],
        }
        if self.winners is not None:
            d["winners"] = list(self.winners)
        return d


class Result(NamedTuple):
    """How a game ended: the reason, the goats and winners, rating points and chips per seat."""

    reason: str  # one of status.RESULT_REASONS
    goats: tuple[int, ...]
    winners: tuple[int, ...]
    rating_points: tuple[int, ...]
    chips: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "reason": self.reason,
            "goats": list(self.goats),
            "winners": list(self.winners),
            "rating_points": list(self.rating_points),
            "chips": list(self.chips),
        }


@dataclass(frozen=True, slots=True)
class GameState:
    ruleset: str
    options: Options
    seats: int
    commitment: str
    #: the secret server seed when known (the server always knows it; an auditor after the reveal)
    server_seed: str | None = field(default=None, repr=False)
    players: tuple[str | None, ...] = ()
    client_seeds: tuple[str | None, ...] = ()
    status: str = WAITING
    #: the last round dealt (0 before the first deal) and the next deal attempt of the next round
    round_no: int = 0
    next_attempt: int = 0
    table: RoundState | None = None
    scores: tuple[PlayerScore, ...] = ()
    fish_pot: int = 0
    #: who leads the next round under ``later_leader == "last_winner"``
    leader: int | None = None
    rounds: tuple[RoundRecord, ...] = ()
    result: Result | None = None
    revealed_seed: str | None = field(default=None, repr=False)
    version: int = 0

    # -- derived views -------------------------------------------------------------------------
    @property
    def ended(self) -> bool:
        return self.status in ENDED

    @property
    def turn(self) -> int | None:
        t = self.table
        return t.turn if (t is not None and self.status == RUNNING) else None

    @property
    def points(self) -> list[int]:
        """Every player's points by the game's rule (§7, D-8): the limit, winners, ratings and ante use these."""
        return points(self.scores, self.options.remembered_counts)

    def hand(self, seat: int) -> tuple[Tile, ...]:
        return self.table.hands[seat] if self.table is not None else ()

    def public_dict(self) -> dict[str, Any]:
        """Everything about the game that every player may see (no hands, no bazaar order)."""
        t = self.table
        return {
            "ruleset": self.ruleset,
            "options": self.options.to_dict(),
            "status": self.status,
            "version": self.version,
            "round": self.round_no,
            "turn": self.turn,
            "seats": [
                {
                    "seat": s,
                    "player": self.players[s],
                    "tiles": len(t.hands[s]) if t is not None else 0,
                    # the seat's pair in a paired ruleset (0 or 1, partners opposite), null otherwise
                    "team": team_of(self.ruleset, s),
                    **(self.scores[s].to_dict(self.options.remembered_counts)),
                }
                for s in range(self.seats)
            ],
            "line": {
                "tiles": t.line_str() if t is not None else [],
                "left": t.left if t is not None else None,
                "right": t.right if t is not None else None,
            },
            "bazaar": len(t.bazaar) if t is not None else 0,
            "fish_pot": self.fish_pot,
            "server_seed_commitment": self.commitment,
            "result": self.result_dict(),
        }

    def result_dict(self) -> dict[str, Any] | None:
        """The result as the views show it: :meth:`Result.to_dict`, and in a paired ruleset ``pair``, the
        losing pair with the winners' margin and whether it is a dry goat (docs/rules.md §12, D-31);
        ``pair`` is null when there is no single losing pair (both at the limit at once)."""
        if self.result is None:
            return None
        shown = self.result.to_dict()
        if is_paired(self.ruleset):
            r = self.result
            found = pair_result(self.points, r.goats, r.winners)
            shown["pair"] = None if found is None else {
                "goats": list(found.goats), "winners": list(r.winners), "margin": found.margin,
                "dry": found.dry and r.reason == "limit",
            }
        return shown

    def hands_str(self) -> list[list[str]]:
        t = self.table
        return [tiles_str(h) for h in t.hands] if t is not None else [[] for _ in range(self.seats)]


__all__ = [
    "RoundState",
    "RoundRecord",
    "Result",
    "GameState",
    "TEXT",
    "tile_str",
]
