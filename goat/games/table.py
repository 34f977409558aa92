"""The table as people see it: one presenter for the admin's replay, the site's game page and the
play page.

It turns a game view (already redacted for its viewer by ``selectors.game_view``) or a replay step
(everything face up, for whoever ``selectors.sees_everything`` lets see it) into what the templates
draw: the line, the hands, the bazaar and the caption of a step. Every tile is drawn by one template,
``table/_tile.html`` (pips on a 3 x 3 grid per half, placed by ``goat/table.css``); the play page's
script clones the same tiles from ``table/_tile_set.html``. A tile carries its name ("3-5") as its
``aria-label`` for screen readers and tests; a hidden tile is never drawn.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from goat.games import selectors
from goat.games.captions import caption
from goat.games.models import Game
from goat.web.templatetags.site_links import player_link

#: the values a half shows, 0 … 6
PIPS = 7
#: pip positions on a 3 x 3 grid, (column, row), for 0 … 6
PIP_GRID: dict[int, tuple[tuple[int, int], ...]] = {
    0: (),
    1: ((1, 1),),
    2: ((0, 0), (2, 2)),
    3: ((0, 0), (1, 1), (2, 2)),
    4: ((0, 0), (2, 0), (0, 2), (2, 2)),
    5: ((0, 0), (2, 0), (1, 1), (0, 2), (2, 2)),
    6: ((0, 0), (0, 1), (0, 2), (2, 0), (2, 1), (2, 2)),
}


def tile(label: str, *, highlight: bool = False) -> dict[str, Any]:
    """``"3-5"`` as ``table/_tile.html`` draws it: two halves of pips (left or top first)."""
    a, b = (int(v) for v in label.split("-"))
    return {"label": label, "double": a == b, "highlight": highlight, "halves": [PIP_GRID[a], PIP_GRID[b]]}


def tiles(labels, *, highlight: str | None = None) -> list[dict[str, Any]]:
    return [tile(label, highlight=label == highlight) for label in labels]


def tile_set() -> list[dict[str, Any]]:
    """Every face a tile shows, each drawn once: the 28 tiles both ways round ("3-5" and "5-3", as the
    line turns them), 49 in all. The play page's script clones them by name."""
    return tiles(f"{a}-{b}" for a in range(PIPS) for b in range(PIPS))


def describe(event: dict[str, Any], players: list[str | None]) -> str:
    """One line for ``event``: who did what (the players by seat from ``players``): goat.games.captions."""
    return caption(event, players)


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


def table_live(view: dict[str, Any]) -> dict[str, Any]:
    """The table of ``view`` (``selectors.game_view``, redacted for its viewer): the line, the
    viewer's own hand (empty for anyone not seated) and the number of tiles in the bazaar."""
    line = view["line"]
    return {"line": tiles(line["tiles"]), "ends": (line["left"], line["right"]) if line["tiles"] else None,
            "hand": tiles(view["hand"]), "bazaar_count": view["bazaar"]}


def table_replay(*, game: Game, step: int, user) -> dict[str, Any]:
    """``game``'s table after event ``step`` (0 … version) with every hand and the bazaar face up, as
    the API's replay shows it (``selectors.full_state``): the event that led there and its caption,
    the tile it moved, where each round was dealt and the links to the steps around it.

    Only for a ``user`` who sees everything (``selectors.sees_everything``: anyone once the game has
    ended, an auditor not seated at it before); anyone else gets ``PermissionDenied``."""
    if not selectors.sees_everything(game, user):
        raise PermissionDenied("the replay shows hidden tiles")
    log = selectors.event_log(game=game)
    out: dict[str, Any] = {
        "step": step, "last": game.version, "prev": max(step - 1, 0), "next": min(step + 1, game.version),
        "rounds": [{"round": e["data"].get("round"), "step": e["seq"]} for e in log
                   if e["type"] == "round_dealt" and not e["data"].get("void")],
        "event": None, "state": None, "caption": _("Before the first event."),
    }
    if step == 0:
        return out
    event = log[step - 1]
    state = selectors.game_state(game=game, upto=step)
    full = selectors.full_state(state, game=game)
    players = [s["player"] for s in full["seats"]]
    line = tiles(full["line"]["tiles"])
    if event["type"] == "tile_played" and line:
        line[0 if event["data"].get("end") == "left" else -1]["highlight"] = True
    drawn = event["data"].get("tile") if event["type"] == "tile_drawn" else None
    to_move = full["pending"]["seat"] if full["pending"]["action"] is not None else None
    table = state.table
    winners = full["rounds"][-1].get("winners") if full["rounds"] and table is not None and table.ended else None
    out.update(
        event=event, caption=describe(event, players), caption_html=caption_html(event, players), state=full,
        line=line,
        ends=(full["line"]["left"], full["line"]["right"]) if line else None,
        hands=[{**s, "count": len(full["hands"][s["seat"]]), "to_move": to_move == s["seat"],
                "tiles": tiles(full["hands"][s["seat"]], highlight=drawn if event["seat"] == s["seat"] else None)}
               for s in full["seats"]],
        bazaar=tiles(full["bazaar_tiles"]), bazaar_count=len(full["bazaar_tiles"]),
        round_ended=table.ended if table is not None else None,
        round_winners=[players[s] or "–" for s in winners] if winners else None,
    )
    return out
