"""What an event of a game's log says, in the visitor's language (the replay's caption)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _


def describe(event: dict[str, Any], players: list[str | None]) -> str:
    """One line for ``event``: who did what (the players by seat from ``players``)."""
    data = event.get("data") or {}
    seat = event.get("seat")
    who = (players[seat] or _("seat %(seat)s") % {"seat": seat}) if seat is not None and seat < len(players) else ""
    kind = event["type"]
    if kind == "game_created":
        return _("The game is created: %(ruleset)s, %(seats)s seats.") % {
            "ruleset": data.get("ruleset"), "seats": data.get("seats")}
    if kind == "seat_taken":
        return _("%(player)s takes seat %(seat)s.") % {"player": data.get("player"), "seat": data.get("seat")}
    if kind == "seat_left":
        return _("%(player)s leaves seat %(seat)s.") % {"player": data.get("player"), "seat": data.get("seat")}
    if kind == "round_dealt":
        if data.get("void"):
            return _("Round %(round)s is dealt again: the deal was void.") % {"round": data.get("round")}
        return _("Round %(round)s is dealt.") % {"round": data.get("round")}
    if kind == "tile_played":
        end = _("on the left") if data.get("end") == "left" else _("on the right")
        return _("%(player)s plays %(tile)s %(end)s.") % {"player": who, "tile": data.get("tile"), "end": end}
    if kind == "tile_drawn":
        return _("%(player)s draws %(tile)s from the bazaar.") % {"player": who, "tile": data.get("tile")}
    if kind == "knocked":
        return _("%(player)s knocks: no tile fits and the bazaar is empty.") % {"player": who}
    if kind == "timed_out":
        return _("%(player)s ran out of time.") % {"player": who}
    if kind == "resigned":
        return _("%(player)s resigns.") % {"player": who}
    if kind == "game_cancelled":
        return _("The game is cancelled.")
    if kind == "seed_revealed":
        return _("The server seed is revealed: the game can be checked.")
    return kind.replace("_", " ")
