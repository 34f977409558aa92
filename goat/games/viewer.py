"""Who is looking at a game: a seat, a spectator or an auditor, resolved once per request from the user
and the game, and handed to the selectors that redact (goat.games.selectors) and to the table's presenter
(goat.games.table).

- a **seat** (``seat``: its number, from 0) sees its own hand and the counts of the others', auditor or
  not: a seat's view is its own (docs/api.md "Events and what is hidden");
- a **spectator** (anonymous, or signed in without a seat) sees no hand while the game runs;
- an **auditor** (the ``goat.audit_game`` permission, goat.games.access; holding no seat at the game) sees
  a running game's hidden information, and whoever looks is recorded (goat.games.audit).

Once a game has ended everyone sees everything (``sees_everything``), so whether a viewer without a seat
audits is not asked for an ended game (no permission query): they are a spectator of it.
"""

from __future__ import annotations

from dataclasses import dataclass

from goat.games import access
from goat.games.models import Game, Seat


def viewer_seat(game: Game, user) -> int | None:
    """``user``'s seat at ``game`` (None: not seated)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    return Seat.objects.filter(game=game, player=user).values_list("seat", flat=True).first()


@dataclass(frozen=True)
class Viewer:
    """A seat (``seat`` set), a spectator, or an auditor (``auditor``): build one with ``of`` or ``at``."""

    seat: int | None = None
    auditor: bool = False

    @classmethod
    def seated(cls, seat: int) -> Viewer:
        return cls(seat=seat)

    @classmethod
    def spectator(cls) -> Viewer:
        return cls()

    @classmethod
    def auditing(cls) -> Viewer:
        return cls(auditor=True)

    @classmethod
    def of(cls, game: Game, user) -> Viewer:
        """``user`` looking at ``game``: their seat read (one query for a signed-in user), then, without
        one at a game not ended, whether they audit."""
        return cls.at(game, user, viewer_seat(game, user))

    @classmethod
    def at(cls, game: Game, user, seat: int | None) -> Viewer:
        """``user`` looking at ``game`` from ``seat``, known to the caller (None: no seat there)."""
        if seat is not None:
            return cls.seated(seat)
        if not game.ended and access.may_audit(user):
            return cls.auditing()
        return cls.spectator()

    def sees_everything(self, game: Game) -> bool:
        """Whether this viewer sees ``game`` unredacted: once it has ended, everyone; before, an auditor."""
        return game.ended or self.auditor
