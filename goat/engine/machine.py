"""The machine: the mutable working form of a :class:`GameState` that the rules change in place.

The public state is immutable; a fold over many events (replay, a session of many moves) changes one
machine instead, and :func:`freeze` turns it back into a ``GameState`` when the state is read. The
machine has the attribute names of the state (``GameMachine`` those of ``GameState``,
``RoundMachine`` those of ``RoundState``), so the read-only rules (``pending``, ``legal_moves``,
``check_play``) take either. (Named apart from the games app's ``Game`` model and the tournaments'
``Table``.)
"""

from __future__ import annotations

from .deal import Stream
from .rulesets import Options
from .scoring import PlayerScore
from .state import GameState, Result, RoundRecord, RoundState
from .status import ENDED
from .tiles import Tile


class RoundMachine:
    """The mutable form of :class:`RoundState` (lists where the state has tuples)."""

    __slots__ = ("number", "hands", "bazaar", "line", "left", "right", "turn", "must_lead", "last_player",
                 "ended", "held", "on_line")

    number: int
    hands: list[list[Tile]]
    bazaar: list[Tile]
    line: list[tuple[int, int]]
    left: int | None
    right: int | None
    turn: int | None
    must_lead: Tile | None
    last_player: int | None
    ended: str | None
    held: list[int]
    on_line: int


class GameMachine:
    """The mutable form of :class:`GameState` (``scores`` stays the immutable tuple a round end writes)."""

    __slots__ = ("ruleset", "options", "seats", "commitment", "server_seed", "players", "client_seeds", "status",
                 "round_no", "next_attempt", "table", "scores", "fish_pot", "leader", "rounds", "result",
                 "revealed_seed", "version", "stream")

    ruleset: str
    options: Options
    seats: int
    commitment: str
    server_seed: str | None
    players: list[str | None]
    client_seeds: list[str | None]
    status: str
    round_no: int
    next_attempt: int
    table: RoundMachine | None
    scores: tuple[PlayerScore, ...]
    fish_pot: int
    leader: int | None
    rounds: list[RoundRecord]
    result: Result | None
    revealed_seed: str | None
    version: int
    #: the deal key's prepared HMAC stream (derived from the seeds; ``None`` until the first deal needs
    #: it, and cleared by whatever changes ``server_seed`` or ``client_seeds``)
    stream: Stream | None

    @property
    def ended(self) -> bool:
        return self.status in ENDED


def thaw(state: GameState) -> GameMachine:
    """A machine holding ``state`` (sharing nothing mutable with it)."""
    g = GameMachine()
    g.ruleset, g.options, g.seats, g.commitment = state.ruleset, state.options, state.seats, state.commitment
    g.server_seed, g.players, g.client_seeds = state.server_seed, list(state.players), list(state.client_seeds)
    g.status, g.round_no, g.next_attempt = state.status, state.round_no, state.next_attempt
    g.scores, g.fish_pot, g.leader, g.rounds = state.scores, state.fish_pot, state.leader, list(state.rounds)
    g.result, g.revealed_seed, g.version, g.stream = state.result, state.revealed_seed, state.version, None
    r = state.table
    if r is None:
        g.table = None
    else:
        t = g.table = RoundMachine()
        t.number, t.hands, t.bazaar, t.line = r.number, [list(h) for h in r.hands], list(r.bazaar), list(r.line)
        t.left, t.right, t.turn, t.must_lead = r.left, r.right, r.turn, r.must_lead
        t.last_player, t.ended, t.held, t.on_line = r.last_player, r.ended, list(r.held), r.on_line
    return g


def freeze(g: GameMachine) -> GameState:
    """The immutable state the machine holds."""
    t = g.table
    table = None if t is None else RoundState(
        t.number, tuple([tuple(h) for h in t.hands]), tuple(t.bazaar), tuple(t.line), t.left, t.right, t.turn,
        t.must_lead, t.last_player, t.ended, tuple(t.held), t.on_line,
    )
    return GameState(
        g.ruleset, g.options, g.seats, g.commitment, g.server_seed, tuple(g.players), tuple(g.client_seeds),
        g.status, g.round_no, g.next_attempt, table, g.scores, g.fish_pot, g.leader, tuple(g.rounds), g.result,
        g.revealed_seed, g.version,
    )
