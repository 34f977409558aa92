"""What an event of a game's log says, in the visitor's language (the replay's caption)."""

from __future__ import annotations

from typing import Any

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from goat.web.templatetags.site_links import player_link


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


def _mark(index: int) -> str:
    """A stand-in for the ``index``-th name of a caption: text no name, translation or escaping holds."""
    return f"\x02{index}\x03"


def caption_html(event: dict[str, Any], players: list[str | None]) -> SafeString:
    """``describe(event, players)`` as HTML in which each player's name links to their page (every name
    is a link, SITE.md): the sentence is made with stand-ins for the names, escaped, and each stand-in
    replaced by its link."""
    names = [name for name in players if name]
    data = event.get("data") or {}
    if data.get("player"):
        names.append(data["player"])
    names = list(dict.fromkeys(names))
    marked = {name: _mark(i) for i, name in enumerate(names)}
    shown = {**event, "data": {**data, "player": marked[data["player"]]}} if data.get("player") else event
    text = str(escape(describe(shown, [marked.get(name) if name else name for name in players])))
    for name, mark in marked.items():
        text = text.replace(mark, str(player_link(name)))
    return mark_safe(text)  # escaped above; the links escape their names
