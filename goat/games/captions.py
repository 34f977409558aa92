"""What a step of a game's log says, in the reader's language: the one caption of an event that the
site's replay, the admin's audit replay and anything else that narrates a game show.

The words follow docs/glossary.md. A caption never needs a player's gender (Russian past-tense verbs
have one): it says what happened in the present tense or as "what: who". Seats are counted from 1,
as people count them (goat.games.words.seat); the log and the API keep 0-based seats. An event type
without its own sentence is named by its word (goat.games.words.event), humanised when it has none.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

from goat.games import words


def player_of(seat: object, players: list[str | None]) -> str:
    """The name at ``seat`` (0-based), else "seat N" counted from 1; empty when there is no seat."""
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(players):
        return ""
    return players[seat] or _("seat %(seat)s") % {"seat": words.seat(seat)}


def caption(event: dict[str, Any], players: list[str | None]) -> str:
    """One sentence for ``event`` (``type``, ``seat``, ``data`` as the log stores them)."""
    data = event.get("data") or {}
    who = player_of(event.get("seat"), players)
    kind = event.get("type")
    if kind == "game_created":
        seats = data.get("seats") if isinstance(data.get("seats"), int) else 0
        return ngettext("The game is created: %(ruleset)s, %(seats)s seat.",
                        "The game is created: %(ruleset)s, %(seats)s seats.", seats) % {
            "ruleset": words.ruleset(data.get("ruleset")), "seats": data.get("seats")}
    if kind == "seat_taken":
        return _("%(player)s takes seat %(seat)s.") % {"player": data.get("player"),
                                                        "seat": words.seat(data.get("seat"))}
    if kind == "seat_left":
        return _("%(player)s leaves seat %(seat)s.") % {"player": data.get("player"),
                                                         "seat": words.seat(data.get("seat"))}
    if kind == "round_dealt":
        if data.get("void"):
            return _("Round %(round)s is dealt again: the deal was void.") % {"round": data.get("round")}
        return _("Round %(round)s is dealt.") % {"round": data.get("round")}
    if kind == "tile_played":
        end = (pgettext("line end", "on the left") if data.get("end") == "left"
               else pgettext("line end", "on the right"))
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
    named = words.event(kind)
    return f"{named}: {who}" if who else named
