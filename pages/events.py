"""What an event of a game's log says, in the visitor's language (the replay's caption)."""

from __future__ import annotations

from typing import Any

from goat.games.captions import caption


def describe(event: dict[str, Any], players: list[str | None]) -> str:
    """One line for ``event``: who did what (the players by seat from ``players``): goat.games.captions."""
    return caption(event, players)
