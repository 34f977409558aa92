"""Folding events into a state: ``apply`` (checked), ``evolve`` (trusted), and the :class:`Fold` that
replay and the event store run over a whole log on one machine."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .errors import InvalidEvent, RulesError
from .events import HANDLERS, dispatch
from .machine import GameMachine, freeze, thaw
from .state import GameState


class Fold:
    """A fold over events on one machine: ``Fold(state).push(event)`` ... ``.state``.

    ``push`` checks the event against the rules (``check=True``) or trusts it, and refuses an invalid
    one without changing anything, so ``.state`` is then the state before it.
    """

    __slots__ = ("_g", "check")

    def __init__(self, state: GameState | None = None, *, check: bool = True) -> None:
        self._g: GameMachine | None = thaw(state) if state is not None else None
        self.check = check

    def push(self, event: Mapping[str, Any]) -> None:
        self._g = dispatch(self._g, event, self.check)

    def push_all(self, events: Iterable[Mapping[str, Any]], *, first_seq: int = 1) -> None:
        """Push events whose ``seq`` (when they have one) runs on from ``first_seq``.

        A refused event raises its :class:`RulesError` with ``.seq`` set to its position."""
        g, check = self._g, self.check
        position = first_seq - 1
        try:
            for position, event in enumerate(events, start=first_seq):
                if event.__class__ is not dict and not isinstance(event, Mapping):
                    raise InvalidEvent("malformed_event", "an event must be a JSON object.")
                try:  # a subscript is cheaper than .get(); an event may have no seq
                    seq = event["seq"]
                except KeyError:
                    seq = position
                if seq != position:
                    raise InvalidEvent("wrong_seq", f"expected seq {position}, found {seq!r}.")
                try:
                    handler = HANDLERS[event["type"]] if g is not None else None
                except (KeyError, TypeError):  # no type, or not even a hashable one
                    handler = None
                g = dispatch(g, event, check) if handler is None else handler(g, event, check)
        except RulesError as exc:
            exc.seq = position
            raise
        finally:
            self._g = g

    def set_server_seed(self, server_seed: str | None) -> None:
        if self._g is not None:
            self._g.server_seed = server_seed
            self._g.stream = None

    @property
    def state(self) -> GameState | None:
        return freeze(self._g) if self._g is not None else None

    @property
    def machine(self) -> GameMachine | None:
        """The machine itself (read it, never change it): what ``state`` would freeze."""
        return self._g


def apply(state: GameState | None, event: Mapping[str, Any]) -> GameState:
    """Check ``event`` against the rules in ``state`` and return the next state."""
    return freeze(dispatch(thaw(state) if state is not None else None, event, True))


def evolve(state: GameState | None, event: Mapping[str, Any]) -> GameState:
    """The next state after a stored (trusted) event; no rule is checked."""
    return freeze(dispatch(thaw(state) if state is not None else None, event, False))


def evolve_all(events: Iterable[Mapping[str, Any]], state: GameState | None = None) -> GameState | None:
    """``functools.reduce(evolve, events, state)``, on one machine (trusted events)."""
    fold = Fold(state, check=False)
    for event in events:
        fold.push(event)
    return fold.state
