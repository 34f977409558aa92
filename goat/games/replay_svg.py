"""The replay view's model: the table after event N laid out for a server-rendered SVG.

Everything here is geometry and words; the template (admin/goat/game/replay.html) only loops over
it. A tile ``a-b`` is two squares with pip dots, drawn lengthwise in the line (doubles across) and
upright in the hands and the bazaar. The event just applied is highlighted.
"""

from __future__ import annotations

import json
from typing import Any

from django.utils.translation import gettext

from goat.engine.tiles import tile_str
from goat.games import eventstore
from goat.games.captions import caption, player_of
from goat.games.models import Game, GameEvent
from goat.web import words

HALF = 22  # side of one half of a tile, in SVG units
GAP = 4
WIDTH = 1000
MARGIN = 12
#: pip positions on a 3x3 grid (column, row) for 0..6
PIP_GRID = {
    0: (),
    1: ((1, 1),),
    2: ((0, 0), (2, 2)),
    3: ((0, 0), (1, 1), (2, 2)),
    4: ((0, 0), (2, 0), (0, 2), (2, 2)),
    5: ((0, 0), (2, 0), (1, 1), (0, 2), (2, 2)),
    6: ((0, 0), (0, 1), (0, 2), (2, 0), (2, 1), (2, 2)),
}


def _pips(value: int, x: float, y: float) -> list[dict[str, float]]:
    step = HALF / 4
    return [{"cx": x + step * (1 + c), "cy": y + step * (1 + r)} for c, r in PIP_GRID[value]]


def tile_shape(first: int, second: int, x: float, y: float, *, vertical: bool, label: str,
               highlight: bool = False) -> dict[str, Any]:
    """A tile with its top-left corner at ``(x, y)``: ``first`` is the left (or top) half."""
    w, h = (HALF, 2 * HALF) if vertical else (2 * HALF, HALF)
    x2, y2 = (x, y + HALF) if vertical else (x + HALF, y)
    divider = ((x + 3, y + HALF, x + HALF - 3, y + HALF) if vertical
               else (x + HALF, y + 3, x + HALF, y + HALF - 3))
    return {
        "label": label, "x": x, "y": y, "w": w, "h": h, "highlight": highlight,
        "divider": {"x1": divider[0], "y1": divider[1], "x2": divider[2], "y2": divider[3]},
        "pips": _pips(first, x, y) + _pips(second, x2, y2),
    }


def line_layout(line: tuple[tuple[int, int], ...], *, top: float, highlight: int | None
                ) -> tuple[list[dict[str, Any]], float]:
    """The line of play left to right, wrapping into rows; returns the shapes and the bottom y."""
    shapes = []
    x, row_top = MARGIN, top
    row_height = 2 * HALF + GAP * 2
    for index, (a, b) in enumerate(line):
        double = a == b
        width = HALF if double else 2 * HALF
        if x + width > WIDTH - MARGIN:
            x, row_top = MARGIN, row_top + row_height
        y = row_top if double else row_top + HALF / 2
        shapes.append(tile_shape(a, b, x, y, vertical=double, label=f"{a}-{b}", highlight=index == highlight))
        x += width + GAP
    bottom = row_top + (row_height if line else 0)
    return shapes, bottom


def row_layout(tiles, *, top: float, left: float = MARGIN, highlight: str | None = None
               ) -> tuple[list[dict[str, Any]], float]:
    """Upright tiles in a row (a hand or the bazaar), wrapping; returns the shapes and the bottom y."""
    shapes = []
    x, y = left, top
    for tile in tiles:
        if x + HALF > WIDTH - MARGIN:
            x, y = left, y + 2 * HALF + GAP
        label = tile_str(tile)
        shapes.append(tile_shape(tile[0], tile[1], x, y, vertical=True, label=label, highlight=label == highlight))
        x += HALF + GAP
    return shapes, y + (2 * HALF + GAP if tiles else 0)


def describe(event: dict[str, Any] | None, players: list[str | None]) -> str:
    """The caption of a replay step in the active language: ``#seq``, the event's name, then what
    happened (goat.games.captions). The stored type stays in the page's attributes, not its text."""
    if event is None:
        return gettext("Step 0: nothing has happened yet.")
    return f"#{event['seq']} {words.event(event['type'])}: {caption(event, players)}"


def replay_context(game: Game, step: int) -> dict[str, Any]:
    """Everything the replay template needs for the table after event ``step`` (0..version)."""
    events = list(GameEvent.objects.filter(game=game).order_by("seq").values("seq", "type", "data"))
    rounds = [{"round": e["data"].get("round"), "seq": e["seq"]} for e in events
              if e["type"] == "round_dealt" and not e["data"].get("void")]
    context: dict[str, Any] = {
        "step": step, "version": game.version, "prev_step": max(step - 1, 0), "next_step": min(step + 1, game.version),
        "rounds": rounds, "svg_width": WIDTH, "half": HALF,
    }
    if step == 0:
        context.update(state=None, caption=describe(None, []), svg_height=60, line=[], hands=[], bazaar=[],
                       event=None, event_json="")
        return context
    state = eventstore.state_rebuild(game, upto=step)
    current = eventstore.event_dict(GameEvent.objects.get(game=game, seq=step))
    players = list(state.players)
    table = state.table
    highlight_line = None
    drawn = None
    if table is not None and current["type"] == "tile_played" and table.line:
        highlight_line = 0 if current["data"].get("end") == "left" else len(table.line) - 1
    if current["type"] == "tile_drawn":
        drawn = current["data"].get("tile")

    y = 34.0
    line_shapes, y = line_layout(table.line if table else (), top=y, highlight=highlight_line)
    y = max(y, 34.0 + 2 * HALF + 2 * GAP) + 14
    hands = []
    points = state.points
    for seat in range(state.seats):
        score = state.scores[seat] if seat < len(state.scores) else None
        hand = table.hands[seat] if table is not None else ()
        label_y = y + 14
        shapes, bottom = row_layout(hand, top=label_y + 8,
                                    highlight=drawn if current["seat"] == seat else None)
        hands.append({
            "seat": seat, "player": player_of(seat, players), "label_y": label_y,
            "turn": state.turn == seat, "open": score.open if score else False,
            "score": score.score if score else 0, "remembered": score.remembered if score else 0,
            "points": points[seat] if score else 0, "tiles": shapes,
            "count": len(hand),
            "box_y": y, "box_h": max(bottom, label_y + 8) - y + 6,
        })
        y = max(bottom, label_y + 8) + 14
    bazaar = table.bazaar if table is not None else ()
    bazaar_label_y = y + 14
    bazaar_shapes, bottom = row_layout(bazaar, top=bazaar_label_y + 8)
    context.update(
        state=state, caption=describe(current, players), event=current,
        event_json=json.dumps(current["data"], ensure_ascii=False),
        line=line_shapes, line_ends=(table.left, table.right) if table is not None and table.line else None,
        hands=hands, bazaar=bazaar_shapes, bazaar_count=len(bazaar), bazaar_label_y=bazaar_label_y,
        svg_height=max(bottom, bazaar_label_y + 8) + 12, turn=state.turn,
        turn_player=players[state.turn] if state.turn is not None else None,
        round_no=state.round_no, fish_pot=state.fish_pot, status=state.status,
        round_ended=table.ended if table is not None else None,
        round_winners=_round_winners(state, players),
    )
    return context


def _round_winners(state, players: list) -> list[str] | None:
    """The winners of the round just ended, when its record names them (domino-3rounds, docs/rules.md §8)."""
    table = state.table
    if table is None or table.ended is None or not state.rounds or state.rounds[-1].round != table.number:
        return None
    winners = state.rounds[-1].winners
    if winners is None:
        return None
    return [player_of(s, players) for s in winners]
