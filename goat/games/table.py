"""The table as people see it: one presenter for the admin's replay, the site's game page and the
play page.

It turns a game view (already redacted for its viewer by ``selectors.game_view``) or a replay step
(everything face up, for a viewer who sees everything: ``Viewer.sees_everything``) into what the templates
draw: the line, the hands, the bazaar and the caption of a step. Every tile is drawn by one template,
``table/_tile.html`` (pips on a 3 x 3 grid per half, placed by ``goat/table.css``); the play page's
script clones the same tiles from ``table/_tile_set.html``. A tile carries its name ("3-5") as its
``aria-label`` for screen readers and tests; a hidden tile is never drawn.
"""

from __future__ import annotations

import re
from typing import Any

from django.core.exceptions import PermissionDenied
from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext, pgettext_lazy

from goat.engine import status as engine_status
from goat.engine.rulesets import is_paired, parties
from goat.engine.scoring import END_FISH, END_OUT
from goat.engine.tiles import tiles_str
from goat.games import selectors, words
from goat.games.captions import caption
from goat.games.models import Game
from goat.games.viewer import Viewer
from goat.web import words as site_words
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


# --- the table model: what a person sees of a game at a step, computed once ----------------------------
#
# ``table_model`` is the one presenter of a running or ended table for the game page, the play page and
# the admin: plain data (strings, numbers, lists; JSON as it stands) in the reader's language. A
# sentence that names players is a list of *parts*: ``{"text": …}`` for words and ``{"player": username,
# "url": …, "text": name}`` for a name, which every page draws as a link (``parts_html`` in templates,
# the play page's script as nodes). Nothing a reader sees is left for a template or a script to
# compute: captions, notes, counts with their nouns, totals and the legend are all here.

#: how many of the latest events the notes of a step are read from (more than a turn cycle of the
#: table holds: four seats' plays and a two-seat game's draws of a whole bazaar)
NOTES_EVENTS = 60
#: the most notes shown at once (the newest)
NOTES_SHOWN = 24
#: the events that end a seat's turn
TURN_ENDS = ("tile_played", "knocked", "timed_out", "resigned")
#: the events a table's notes leave out: what set the game up, not what happened at the table
NOT_NOTED = ("game_created", "seed_revealed", "game_cancelled")

Part = dict[str, str]


def _name_part(name: str) -> Part:
    shown = site_words.player_name(name)
    part = {"player": name, "text": shown, "url": reverse("page-player", args=[name])}
    if shown != name:
        part["computer"] = "1"
    return part


def parts_of(text: str, names: list[str]) -> list[Part]:
    """``text`` in which ``_mark(i)`` stands for ``names[i]``, as parts: each name a player's part."""
    out: list[Part] = []
    pieces = re.split("\x02(\\d+)\x03", text)
    for i, piece in enumerate(pieces):
        if i % 2:
            out.append(_name_part(names[int(piece)]))
        elif piece:
            out.append({"text": piece})
    return out


def say(template: str, params: dict[str, Any] | None = None, **players: str | None) -> list[Part]:
    """``template % params`` with each of ``players`` (a username, or None: a free seat) in its place
    as a player's part."""
    names: list[str] = []
    marks: dict[str, str] = {}
    for key, name in players.items():
        if name:
            marks[key] = _mark(len(names))
            names.append(name)
        else:
            marks[key] = _("free seat")
    return parts_of(template % {**(params or {}), **marks}, names)


def _seat_marks(players: list[str | None]) -> tuple[list[str | None], list[str]]:
    names = list(dict.fromkeys(name for name in players if name))
    return [_mark(names.index(name)) if name else None for name in players], names


def caption_parts(event: dict[str, Any], players: list[str | None]) -> list[Part]:
    """``describe(event, players)`` as parts (every name a player's part)."""
    marked, names = _seat_marks(players)
    data = event.get("data") or {}
    if data.get("player"):
        if data["player"] not in names:
            names.append(data["player"])
        event = {**event, "data": {**data, "player": _mark(names.index(data["player"]))}}
    return parts_of(describe(event, marked), names)


def parts_html(parts: list[Part] | None) -> SafeString:
    """Parts as HTML: words escaped, each name a link to its player's page."""
    out = []
    for part in parts or ():
        out.append(str(player_link(part["player"])) if part.get("player") else str(escape(part.get("text", ""))))
    return mark_safe("".join(out))  # escaped above; the links escape their names


def parts_text(parts: list[Part] | None) -> str:
    return "".join(part.get("text", "") for part in parts or ())


def _round_end_note(record: dict[str, Any], players: list[str | None], seq: int) -> dict[str, Any]:
    """The note that round ``record`` (``RoundRecord.to_dict``) is over: how, and by whom."""
    who = players[record["seat"]] if record.get("seat") is not None and record["seat"] < len(players) else None
    if record["end"] == END_OUT:
        parts = say(_("Round %(round)s is over: %(player)s goes out (domino)."), {"round": record["round"]},
                    player=who)
    else:
        parts = say(_("Round %(round)s is over: fish, made by %(player)s."), {"round": record["round"]},
                    player=who)
    return {"seq": seq, "type": "round_ended", "seat": record.get("seat"), "round": record["round"],
            "end": record["end"], "parts": parts}


def _draw_note(run: list[dict[str, Any]], players: list[str | None], viewer: int | None) -> dict[str, Any]:
    """One note for a run of draws from the bazaar by one seat: how many, and the tiles where the
    reader may see them (their own, or every tile once the game has ended)."""
    seat, n = run[0]["seat"], len(run)
    shown = [e["data"].get("tile") for e in run]
    who = players[seat] if seat is not None and seat < len(players) else None
    if all(shown):
        tiles = ", ".join(shown)
        if seat == viewer:
            said = ngettext("You take %(n)s tile from the bazaar: %(tiles)s.",
                            "You take %(n)s tiles from the bazaar: %(tiles)s.", n)
            parts = [{"text": said % {"n": n, "tiles": tiles}}]
        else:
            parts = say(ngettext("%(player)s takes %(n)s tile from the bazaar: %(tiles)s.",
                                 "%(player)s takes %(n)s tiles from the bazaar: %(tiles)s.", n),
                        {"n": n, "tiles": tiles}, player=who)
    else:
        parts = say(ngettext("%(player)s takes %(n)s tile from the bazaar.",
                             "%(player)s takes %(n)s tiles from the bazaar.", n), {"n": n}, player=who)
    return {"seq": run[0]["seq"], "last_seq": run[-1]["seq"], "type": "tile_drawn", "seat": seat, "count": n,
            "tiles": shown if all(shown) else None, "parts": parts}


def notes(events: list[dict[str, Any]], *, players: list[str | None], viewer: int | None,
          rounds: list[dict[str, Any]], seats: int, ended_round: bool = False) -> list[dict[str, Any]]:
    """What just happened, as the reader may see it (``events``: the latest events, redacted for them,
    oldest first): everything since the viewer's own last turn (for a seated player) or since a whole
    turn of the table (for anyone else). A run of draws from the bazaar is one note with its count;
    a round's end (domino or fish, from ``rounds``: the scoresheet's records) is a note of its own
    before the next deal, or last when ``ended_round`` (the game ended with it)."""
    ends = [i for i, e in enumerate(events) if e["type"] in TURN_ENDS]
    start = 0
    if viewer is not None:
        mine = [i for i in ends if events[i]["seat"] == viewer]
        if mine:
            start = mine[-1]
    elif ends:
        start = ends[-min(len(ends), max(seats, 1))]
    by_round = {r["round"]: r for r in rounds}
    out: list[dict[str, Any]] = []
    run: list[dict[str, Any]] = []
    last_play = None

    def close_run():
        if run:
            out.append(_draw_note(run, players, viewer))
            run.clear()

    for event in events[start:]:
        kind = event["type"]
        if kind == "tile_drawn" and run and run[0]["seat"] == event["seat"]:
            run.append(event)
            continue
        close_run()
        if kind == "tile_drawn":
            run.append(event)
            continue
        if kind in NOT_NOTED:
            continue
        if kind == "round_dealt" and not (event.get("data") or {}).get("void"):
            previous = by_round.get((event.get("data") or {}).get("round", 0) - 1)
            if previous is not None and last_play is not None:
                out.append(_round_end_note(previous, players, last_play))
        if kind == "tile_played":
            last_play = event["seq"]
        out.append({"seq": event["seq"], "type": kind, "seat": event.get("seat"),
                    "parts": caption_parts(event, players)})
    close_run()
    if ended_round and rounds and last_play is not None:
        out.append(_round_end_note(rounds[-1], players, last_play))
    return out[-NOTES_SHOWN:]


def _tiles_text(n: int) -> str:
    return ngettext("%(n)s tile", "%(n)s tiles", n) % {"n": n}


def _points_text(n: int) -> str:
    return ngettext("%(n)s point", "%(n)s points", n) % {"n": n}


def _sheet_parties(ruleset: str, seats: int) -> list[list[int]]:
    """The scoresheet's columns as seats: one column per pair in a paired ruleset (partners opposite,
    docs/rules.md §12), one per seat otherwise."""
    party_of = parties(ruleset, seats) if is_paired(ruleset) else tuple(range(seats))
    return [[s for s in range(seats) if party_of[s] == party] for party in range(max(party_of, default=-1) + 1)]


def _pair_head(names: list[str | None], members: list[int]) -> list[Part]:
    """A pair's name, «Маша и Коля»: each partner a player's part (a free seat named as one)."""
    return say(_("%(first)s and %(second)s"), first=names[members[0]], second=names[members[1]])


def scoresheet_model(sheet: dict[str, Any], *, options: dict[str, Any], ruleset: str) -> dict[str, Any]:
    """The one scoresheet (``selectors.scoresheet``), as seed 001 draws it: a row per round, each
    player's cell the round's points, the running written total and the points remembered in brackets
    (while the player has not opened); the fish pot carried; the totals; and the legend that explains
    it, for the game's ``options``. In a paired ruleset a column is a pair: its cell is the pair's
    account, with each partner's share (the pips each left in hand) beside it."""
    players = [t["player"] for t in sheet["totals"]]
    goat = options.get("scoring") == "goat"
    columns = _sheet_parties(ruleset, len(players))
    paired = any(len(members) > 1 for members in columns)
    rows = []
    for r in sheet["rounds"]:
        who = players[r["seat"]] if r.get("seat") is not None and r["seat"] < len(players) else None
        if r["end"] == END_OUT:
            how = say(pgettext("scoresheet", "domino: %(player)s"), player=who)
        elif r["end"] == END_FISH:
            how = say(pgettext("scoresheet", "fish: %(player)s"), player=who) if who else [{"text": words.word("fish")}]
        else:
            how = [{"text": words.word(r["end"])}]
        cells = []
        for members in columns:
            s = members[0]
            p = r["players"][s]
            remembered = p["remembered"] if goat and p["remembered"] and not p["open"] else None
            gained = r["round_points"][s]
            cells.append({
                "seat": s, "round_points": gained, "total": p["score"], "remembered": remembered,
                "gained": f"+{gained}", "shown_total": str(p["score"]),
                "shown_remembered": f"({remembered})" if remembered else "",
                "went_out": r["end"] == "out" and r["seat"] in members,
                "round_winner": s in (r.get("winners") or ()),
                "shown_share": (" · ".join(f"{site_words.player_name(players[m]) if players[m] else words.seat(m)} "
                                           f"{r['hands'][m]}" for m in members) if paired else ""),
            })
        rows.append({"round": r["round"], "end": r["end"], "how": how, "cells": cells,
                     "fish_pot": r["fish_pot"], "draw": r.get("draw")})
    by_seat = {t["seat"]: t for t in sheet["totals"]}
    totals = [{"seat": members[0], "points": by_seat[members[0]]["points"], "score": by_seat[members[0]]["score"],
               "remembered": by_seat[members[0]]["remembered"], "shown": str(by_seat[members[0]]["points"])}
              for members in columns]
    return {
        "columns": [{"seat": members[0], "number": words.seat(members[0]), "player": players[members[0]],
                     "seats": members,
                     "head": (_pair_head(players, members) if len(members) > 1
                              else [_name_part(players[members[0]])] if players[members[0]]
                              else [{"text": _("seat %(seat)s") % {"seat": words.seat(members[0])}}])}
                    for members in columns],
        "heads": {"round": _("Round"), "how": _("How it ended"), "fish_pot": _("Fish pot"), "total": _("Total"),
                  "round_winner": _("round winner")},
        "rows": rows, "totals": totals, "fish_pot": sheet["fish_pot"], "show_fish_pot": goat,
        "legend": legend(options=options, ruleset=ruleset),
    }


def legend(*, options: dict[str, Any], ruleset: str) -> dict[str, Any]:
    """What a newcomer needs to read the scoresheet (docs/rules.md §7, §8), for the game's ``options``."""
    items: list[dict[str, str]] = [
        {"term": _("A cell"), "text": _("+ the round's points, then the running total written.")},
    ]
    if is_paired(ruleset):
        items.append({"term": _("A pair"),
                      "text": _("Partners sit opposite and keep one account: a round charges the losing pair the"
                                " pips left in both its hands. Beside each cell, what each partner left in hand."
                                " The pair that reaches the limit are the goats; if the other pair has no points"
                                " at all, it is a dry goat.")})
    if options.get("scoring") == "goat":
        items += [
            {"term": _("A number in brackets"),
             "text": _("Points remembered (kept in mind): a player who has not opened yet does not write a round"
                       " of up to the opening threshold (here: %(threshold)s) but keeps it in mind.") % {
                 "threshold": options.get("open_threshold")}},
            {"term": _("Opened"),
             "text": _("A round above the opening threshold opens the player's account: that round and everything"
                       " remembered are written, and from then on every round is written. Going out before opening"
                       " wipes what was remembered.")},
            {"term": _("Total"),
             "text": (_("The written score plus the remembered points: in this game remembered points count"
                        " towards the limit.")
                      if options.get("remembered_counts")
                      else _("The written score only: in this game remembered points count once the player"
                             " has opened."))
             + " " + _("Whoever reaches the limit (here: %(limit)s) is the goat.") % {"limit": options.get("limit")}},
            {"term": _("domino, fish"),
             "text": _("How the round ended: domino, a player played their last tile; fish, nobody could play"
                       " any more.")},
            {"term": _("Fish pot"),
             "text": _("The points of a fish that ended in a tie, carried to the top scorer of the next round.")},
        ]
    else:
        items.append({"term": "★", "text": _("The round's winner: the fewest pips left in hand (ties share).")})
        items.append({"term": _("Round points"),
                      "text": _("The pips left in each hand when the round ended (nothing for the player who went"
                                " out); the fewest pips win the round. After the last round the lowest total wins"
                                " and the highest total is the goat.")})
    return {"title": _("How to read the scoresheet"), "items": items,
            "rules": {"url": reverse("page-rules", args=[ruleset]),
                      "text": _("The rules of %(ruleset)s") % {"ruleset": words.ruleset(ruleset)}}}


#: the heading of an ended game's result, by its status (goat.engine.status ENDED)
RESULT_HEADINGS = {
    "finished": pgettext_lazy("result heading", "The game is finished"),
    "interrupted": pgettext_lazy("result heading", "The game is interrupted"),
    "cancelled": pgettext_lazy("result heading", "The game is cancelled"),
}


def result_model(view: dict[str, Any], events: list[dict[str, Any]], players: list[str | None]
                 ) -> dict[str, Any] | None:
    """An ended game's result box: one heading that agrees with the status, why it ended as a sentence
    (whose clock ran out, who resigned), the winners, the goats and the rating points; None while the
    game runs."""
    status = view["status"]
    if status not in engine_status.ENDED:
        return None
    out: dict[str, Any] = {"status": status, "heading": str(RESULT_HEADINGS.get(status, words.game_status(status)))}
    result = view.get("result")
    if not result:
        out["reason"] = [{"text": _("The game was cancelled before it started.")}] if status == "cancelled" else []
        return out
    reason = result.get("reason")

    def player(seat):
        return players[seat] if isinstance(seat, int) and 0 <= seat < len(players) else None

    ending = next((e for e in reversed(events) if e["type"] in ("timed_out", "resigned")), None)
    if reason == engine_status.REASON_TIMEOUT:
        out["reason"] = (say(_("%(player)s ran out of time."), player=player(ending["seat"])) if ending
                         else [{"text": _("A player ran out of time.")}])
    elif reason == engine_status.REASON_RESIGNED:
        out["reason"] = (say(_("%(player)s resigns."), player=player(ending["seat"])) if ending
                         else [{"text": _("A player resigned.")}])
    elif reason == engine_status.REASON_LIMIT:
        out["reason"] = [{"text": _("A player reached the point limit.")}]
    elif reason == engine_status.REASON_ROUNDS:
        out["reason"] = [{"text": _("All rounds are played.")}]
    else:
        out["reason"] = [{"text": words.word(reason).capitalize()}]
    winners = [player(s) for s in result.get("winners", ())]
    goats = [player(s) for s in result.get("goats", ())]
    pair = result.get("pair")
    if pair:
        out["winners"] = say(_("Winners: %(first)s and %(second)s"), first=player(pair["winners"][0]),
                             second=player(pair["winners"][1]))
        out["goats"] = say(_("Goats: %(first)s and %(second)s"), first=player(pair["goats"][0]),
                           second=player(pair["goats"][1]))
        margin = ngettext("by %(n)s point", "by %(n)s points", pair["margin"]) % {"n": pair["margin"]}
        out["goats"].append({"text": " (" + (_("a dry goat, %(margin)s") % {"margin": margin} if pair["dry"]
                                             else margin) + ")"})
    else:
        out["winners"] = _named_list(ngettext("Winner: %(players)s", "Winners: %(players)s", len(winners)), winners)
        out["goats"] = (_named_list(ngettext("Goat: %(players)s", "Goats: %(players)s", len(goats)), goats)
                        if goats else [])
    if view.get("rated") is False:
        out["rating"] = [{"text": _("Unrated game")}]
    else:
        rating: list[Part] = [{"text": _("Rating points") + ": "}]
        for seat, points in enumerate(result.get("rating_points") or ()):
            if seat:
                rating.append({"text": ", "})
            name = player(seat)
            rating += [_name_part(name) if name else {"text": "–"}, {"text": f" {points:+d}" if points else " 0"}]
        out["rating"] = rating
    return out


def _named_list(template: str, names: list[str | None]) -> list[Part]:
    """``template`` with ``%(players)s`` as the names, each a player's part, joined by ", "."""
    real = [n for n in names if n]
    return parts_of(template % {"players": ", ".join(_mark(i) for i in range(len(real)))}, real)


def _nth(values, index: int):
    """``values[index]``, or None when ``values`` is None or shorter."""
    return values[index] if values is not None and 0 <= index < len(values) else None


def _seat_model(view: dict[str, Any], s: dict[str, Any], hand: list[str] | None = None,
                highlight: str | None = None) -> dict[str, Any]:
    """A seat as the table shows it; ``hand``: its tiles when the table is face up (a replay), with
    ``highlight`` the tile the step's event drew."""
    result = view.get("result") or {}
    tags = []
    team, yours = s.get("team"), view.get("your_seat")
    partner = (team is not None and yours is not None and s["seat"] != yours
               and view["seats"][yours].get("team") == team)
    if team is not None:
        tags.append(_("pair %(number)s") % {"number": team + 1})
    if s["seat"] == yours:
        tags.append(_("you"))
    if partner:
        tags.append(_("your partner"))
    if s.get("computer"):
        tags.append(_("computer"))
    if s.get("bot"):
        tags.append(_("bot"))
    return {
        "seat": s["seat"], "number": words.seat(s["seat"]), "player": s.get("player"),
        "name": [_name_part(s["player"])] if s.get("player") else [{"text": _("free seat")}],
        "tags": ", ".join(str(t) for t in tags), "computer": bool(s.get("computer")), "bot": bool(s.get("bot")),
        "tiles": s.get("tiles", 0), "tiles_text": _tiles_text(s.get("tiles", 0)),
        "points": s.get("points", 0), "points_text": _points_text(s.get("points", 0)),
        "open": bool(s.get("open")), "score": s.get("score", 0), "remembered": s.get("remembered", 0),
        "to_move": view["status"] == "running" and view.get("turn") == s["seat"],
        "goat": s["seat"] in result.get("goats", ()), "winner": s["seat"] in result.get("winners", ()),
        "rating_points": _nth(result.get("rating_points"), s["seat"]),
        "hand": tiles(hand, highlight=highlight) if hand is not None else None,
        # goat-pairs: the seat's pair (0 or 1), and whether it is the viewer's partner
        "team": team, "partner": partner,
    }


def _state_line(view: dict[str, Any], players: list[str | None]) -> list[Part]:
    """Where the game stands, in a line: waiting (how many seats taken) or whose turn; nothing once it
    has ended (the result's heading says so)."""
    status = view["status"]
    if status == "waiting":
        taken = sum(1 for s in view["seats"] if s.get("player"))
        return [{"text": _("Waiting for players") + ": "
                 + _("%(taken)s of %(seats)s seats taken") % {"taken": taken, "seats": len(view["seats"])}}]
    if status in engine_status.ENDED:
        return []  # the result box says it, once
    turn = view.get("turn")
    if turn is None:
        return []
    if turn == view.get("your_seat"):
        return [{"text": _("Your turn")}]
    return say(_("%(player)s to move"), player=players[turn] if turn < len(players) else None)


def _moves(view: dict[str, Any]) -> list[dict[str, Any]]:
    """The viewer's legal moves as buttons: the tile, the end, and what the button says (the end named
    only when the tile fits both)."""
    count: dict[str, int] = {}
    for m in view.get("legal_moves") or ():
        count[m["tile"]] = count.get(m["tile"], 0) + 1
    out = []
    for m in view.get("legal_moves") or ():
        both = count[m["tile"]] > 1
        if both:
            label = (_("Play %(tile)s on the left end") if m["end"] == "left"
                     else _("Play %(tile)s on the right end")) % {"tile": m["tile"]}
        else:
            label = _("Play %(tile)s") % {"tile": m["tile"]}
        out.append({"tile": m["tile"], "end": m["end"], "label": label,
                    "end_text": (pgettext("move button: the end it plays on", "left") if m["end"] == "left"
                                 else pgettext("move button: the end it plays on", "right")) if both else ""})
    return out


def line_model(view: dict[str, Any], highlight: int | None = None) -> dict[str, Any]:
    """The line: its tiles (``highlight``: the index of the tile the step's event placed, in a replay),
    its two ends as numbers and as text."""
    line = view["line"]
    has = bool(line.get("tiles"))
    labels = list(line.get("tiles") or ())
    return {"tiles": labels, "highlight": highlight if has else None,
            "faces": tiles(labels, highlight=labels[highlight] if has and highlight is not None else None),
            "left": line.get("left") if has else None,
            "right": line.get("right") if has else None,
            "ends_text": (_("ends: %(left)s and %(right)s") % {"left": line["left"], "right": line["right"]}
                          if has else ""),
            "empty_text": "" if has else _("No tile played yet.")}


def table_model(*, game: Game, user=None, viewer: Viewer | None = None, state=None,
                view: dict[str, Any] | None = None, step: int | None = None,
                events: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """What ``viewer`` (``user`` at ``game``, resolved here when the caller has not: ``Viewer.of``) sees of
    ``game`` now, computed once for every page that draws a table (see above): the view's version and
    status; the seats with their names, counts and marks; the line with its ends as text; the viewer's
    hand and legal moves; the notes of what just happened; the result; the scoresheet with its legend;
    and the meta line. ``state`` and ``view`` when the caller has them already (the same selectors
    otherwise).

    With ``step`` (0 … version) the table after that event, face up: every seat's ``hand`` and the
    ``bazaar`` in its order, as the replay shows it (``replay_model``); only for a viewer who sees
    everything (``Viewer.sees_everything``), anyone else gets ``PermissionDenied``. ``events``: the
    unredacted log up to ``step`` when the caller has read it."""
    face_up = step is not None
    viewer = viewer if viewer is not None else Viewer.of(game, user)
    if face_up:
        if not viewer.sees_everything(game):
            raise PermissionDenied("the replay shows hidden tiles")
        state = state if state is not None else selectors.game_state(game=game, upto=step)
        view = selectors.game_view(game=game, state=state, seat=None)
        log = events if events is not None else selectors.event_log(game=game)[:step]
        recent = log[-NOTES_EVENTS:]
    else:
        state = state if state is not None else selectors.game_state(game=game)
        view = view if view is not None else selectors.game_view(game=game, state=state, seat=viewer.seat)
        recent = (selectors.events_for(game=game, viewer=viewer, after=max(0, game.version - NOTES_EVENTS))
                  if game.version else [])
    players = [s.get("player") for s in view["seats"]]
    sheet = selectors.scoresheet(game=game, state=state)
    ended_round = view["status"] in engine_status.ENDED and state.table is not None and state.table.ended
    meta = [words.ruleset(view["ruleset"]), words.game_status(view["status"])]
    if view["status"] != "waiting":
        meta.append(_("Round %(round)s") % {"round": view["round"]})
        meta.append(ngettext("bazaar: %(tiles)s tile", "bazaar: %(tiles)s tiles", view["bazaar"])
                    % {"tiles": view["bazaar"]})
    if view.get("rated") is False:
        meta.append(_("Unrated game"))
    last = recent[-1] if face_up and recent else None
    hands = state.hands_str() if face_up else None
    kind = last["type"] if last is not None else None
    drawn = last["data"].get("tile") if last is not None and kind == "tile_drawn" else None
    placed = (0 if last["data"].get("end") == "left" else -1) if last is not None and kind == "tile_played" else None
    model = {
        "model": 1,
        "id": game.pk, "version": view["version"], "status": view["status"], "ruleset": view["ruleset"],
        "round": view["round"], "your_seat": view.get("your_seat"), "turn": view.get("turn"),
        "meta": " · ".join(str(m) for m in meta),
        "state_line": _state_line(view, players),
        "seats": [_seat_model(view, s, hands[s["seat"]] if hands is not None else None,
                              drawn if last is not None and last["seat"] == s["seat"] else None)
                  for s in view["seats"]],
        "line": line_model(view, placed),
        "hand": list(view.get("hand") or ()),
        "moves": _moves(view),
        "no_moves": _("No move for you now."), "no_clock": _("no clock"),
        "notes": notes(recent, players=players, viewer=view.get("your_seat"), rounds=sheet["rounds"],
                       seats=len(view["seats"]), ended_round=ended_round),
        "result": result_model(view, recent, players),
        "scoresheet": scoresheet_model(sheet, options=view["options"], ruleset=view["ruleset"]),
        "fish_pot": view["fish_pot"],
        "fish_pot_text": _("fish pot: %(pot)s") % {"pot": view["fish_pot"]},
        "face_up": face_up,
    }
    if face_up:
        bazaar = tiles_str(state.table.bazaar) if state.table is not None else []
        model["bazaar"] = tiles(bazaar)
        over = state.table is not None and bool(state.table.ended) and bool(sheet["rounds"])
        model["round_over"] = _round_end_note(sheet["rounds"][-1], players, step or 0)["parts"] if over else []
        winners = [players[s] for s in (sheet["rounds"][-1].get("winners") or ())] if over else []
        model["round_winners"] = (
            [{"text": ngettext("round winner:", "round winners:", len(winners)) + " "},
             *_named_list("%(players)s", winners)] if winners else [])
    return model


def replay_model(*, game: Game, step: int, user) -> dict[str, Any]:
    """``game``'s replay at ``step`` (0 … version), for the admin and the game page: where the step is
    (the links around it, where each round was dealt), the event that led there and its caption, and
    the table after it, face up (``table_model`` with ``step``). Only for a ``user`` who sees
    everything (``user`` at ``game``: ``Viewer.of``, resolved once here); anyone else gets ``PermissionDenied``."""
    viewer = Viewer.of(game, user)
    if not viewer.sees_everything(game):
        raise PermissionDenied("the replay shows hidden tiles")
    log = selectors.event_log(game=game)
    out: dict[str, Any] = {
        "step": step, "last": game.version, "prev": max(step - 1, 0), "next": min(step + 1, game.version),
        "rounds": [{"round": e["data"].get("round"), "step": e["seq"]} for e in log
                   if e["type"] == "round_dealt" and not e["data"].get("void")],
        "event": None, "table": None, "caption": [{"text": _("Before the first event.")}],
    }
    if step == 0:
        return out
    event = log[step - 1]
    model = table_model(game=game, viewer=viewer, step=step, events=log[:step])
    out.update(event=event, table=model,
               caption=caption_parts(event, [s["player"] for s in model["seats"]]))
    return out


def game_scoresheet(game: Game) -> dict[str, Any] | None:
    """``game``'s scoresheet model (``scoresheet_model``) as it stands; None before its first event."""
    if game.version == 0:
        return None
    state = selectors.game_state(game=game)
    public = state.public_dict()
    return scoresheet_model(selectors.scoresheet(game=game, state=state), options=public["options"],
                            ruleset=public["ruleset"])
