"""Commands (imperative): what a client or the server asks the engine to do.

Commands are typed named tuples, built for every move by every caller. Two commands are equal only
when they are of the same class with equal fields (``Resign(0) != TimeOut(0)``, a ``PlayTile`` is
never equal to a plain tuple); they hash by their fields and have no order.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple, TypeVar

_C = TypeVar("_C")


def _same_command(self: tuple[Any, ...], other: object) -> bool:
    if other.__class__ is not self.__class__:
        # A tuple's own == would say yes to equal items (and runs when this returns NotImplemented).
        return False if isinstance(other, tuple) else NotImplemented
    return tuple.__eq__(self, other)


def _other_command(self: tuple[Any, ...], other: object) -> bool:
    if other.__class__ is not self.__class__:
        return True if isinstance(other, tuple) else NotImplemented
    return tuple.__ne__(self, other)


def _unordered(self: tuple[Any, ...], other: object) -> bool:
    return NotImplemented  # type: ignore[no-any-return]


def _command(cls: type[_C]) -> type[_C]:
    """Equality by class and fields, tuple hashing, no ordering."""
    for name, method in (("__eq__", _same_command), ("__ne__", _other_command), ("__hash__", tuple.__hash__)):
        setattr(cls, name, method)
    for name in ("__lt__", "__le__", "__gt__", "__ge__"):
        setattr(cls, name, _unordered)
    return cls


@_command
class CreateGame(NamedTuple):
    ruleset: str
    seats: int
    server_seed_hex: str
    options: Mapping[str, Any] | None = None


@_command
class TakeSeat(NamedTuple):
    player: str
    client_seed: str = ""
    #: the seat chosen (a goat-pairs table: the seat chooses the partner); ``None``: the lowest free one
    seat: int | None = None


@_command
class LeaveSeat(NamedTuple):
    """A seated player leaves a game that has not started (the seat becomes free again)."""

    player: str


@_command
class CancelGame(NamedTuple):
    """The server cancels a game: a waiting one as ``"expired"`` (it did not fill in time), a waiting or
    running one as ``"tournament_cancelled"`` (its tournament was cancelled), a running one as
    ``"idle"`` (nothing happened in it for the server's idle time)."""

    reason: str = "expired"


@_command
class PlayTile(NamedTuple):
    seat: int
    #: the tile as text (either order), as a ``Tile``, or as its two halves
    tile: object
    end: str | None = None


@_command
class Resign(NamedTuple):
    seat: int


@_command
class TimeOut(NamedTuple):
    seat: int


Command = CreateGame | TakeSeat | LeaveSeat | CancelGame | PlayTile | Resign | TimeOut
