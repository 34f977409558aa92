"""The rules for players, per ruleset: the one source of the /rules/ pages and of docs/rules.md's section
"The rules pages" (docs/site.md "Principles": a newcomer understands the page).

Each ruleset's page is its facts, read from the engine's presets (goat.engine.rulesets.PRESETS, so a
number on the page is the number the engine plays by), and short sections of prose in English, marked
for translation here and translated in the catalog (goat/locale). docs/rules.md holds the same text in
English between the markers below; ``python manage.py rules_docs`` writes it there and
tests/pages/test_rules_pages.py fails when the two differ or a sentence has no Russian. The prose
follows docs/rules.md §1–§9 in a player's words, with the glossary's names of things.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.utils.translation import gettext
from django.utils.translation import gettext_noop as _

from goat.engine.rulesets import PRESETS, RULESETS, is_paired
from goat.games import words

DOCS = Path(__file__).resolve().parents[1] / "docs" / "rules.md"
BEGIN = "<!-- rules pages: begin (written by `python manage.py rules_docs` from pages/rules.py) -->"
END = "<!-- rules pages: end -->"

#: what each ruleset is, in a line (the index of /rules/)
SUMMARIES = {
    "goat-classic": _("The classic goat: keep your points low, whoever reaches the limit is the goat; "
                      "remembered points count."),
    "goat-gamesburg": _("Goat as played at Gamesburg: its own limit, only written points count, and an ante "
                        "in chips."),
    "domino-3rounds": _("Three rounds of dominoes: the fewest pips left in hand over three rounds wins."),
    "goat-pairs": _("The yard's goat, two against two: partners sit opposite, all 28 tiles are dealt, and the "
                    "pair that reaches the limit are the goats."),
}

_TILES = (_("Tiles and the line"), [
    _("Goat is played with a double-six set: 28 tiles, from 0-0 to 6-6. A tile is worth the sum of its "
      "pips. Each round the tiles are shuffled and dealt; the tiles left over are the bazaar."),
    _("The first tile of a round starts the line; every later tile goes on one of its two open ends, "
      "matching half to matching half. When a tile fits both ends, you choose the end."),
])
_ROUNDS_TILES = (_TILES[0], [
    _("Three-round domino is played with a double-six set: 28 tiles, from 0-0 to 6-6. A tile is worth the "
      "sum of its pips. Each round the tiles are shuffled and dealt; the tiles left over are the bazaar."),
    _TILES[1][1],
])
_TURN = (_("A turn"), [
    _("If a tile in your hand fits an end, you must play one: you may not pass while you can play. With "
      "nothing that fits you draw from the bazaar until a drawn tile fits, and play it. With nothing to "
      "play and nothing to draw you knock, and the turn passes on."),
    _("Drawing and knocking involve no choice, so the server does them for you. Each move has a time "
      "limit when the game has a clock; whoever runs out of time loses the game."),
])
_GOAT_LEAD = (_("Who leads"), [
    _("In the first round the holder of 1-1 leads with it; without it, the holder of 2-2, then 3-3, up to "
      "6-6, then 0-0. If nobody was dealt a double, the tile with the most pips leads. Later rounds are "
      "led by whoever went out or made the fish, with any tile."),
])
_ROUNDS_LEAD = (_("Who leads"), [
    _("Every round the holder of the smallest double leads with it: 0-0, else 1-1, and so on. If nobody "
      "was dealt a double, the tile with the fewest pips leads."),
])
_GOAT_END = (_("The end of a round"), [
    _("A round ends when a player plays their last tile (domino) or with a fish: nobody can play and "
      "nobody may draw. In goat there is a second fish: both ends show the same number and all six other "
      "tiles with that number are on the table. Then every hand is shown and counted."),
])
_ROUNDS_END = (_("The end of a round"), [
    _("A round ends when a player plays their last tile (domino) or with a fish: nobody can play and "
      "nobody may draw (the last tiles of the bazaar, as many as the table says, are never drawn). Then "
      "every hand is shown and counted."),
])
_GOAT_SCORE = (_("The score"), [
    _("A hand is worth its pips, but a lone 0-0 left in hand counts as the table says. After a domino "
      "every player but the one who went out gets the pips in their hand as the round's points; after a "
      "fish, every player gets the pips in their own hand."),
    _("A player starts with no account open. A small round (up to the opening threshold) is not written "
      "but kept in mind: these remembered points stand in brackets on the scoresheet. A bigger round opens "
      "the account: the round and everything remembered are written together. Once open, every round is "
      "written. A player who goes out before opening loses what was remembered."),
    _("The game ends when someone reaches the limit. Everyone at or above it is the goat; the others are "
      "ranked by their points, fewest first."),
])
_ROUNDS_SCORE = (_("The score"), [
    _("After each round every player adds the pips left in hand to their total; the player who went out "
      "adds nothing. The round is won by whoever has the fewest pips. After the last round the lowest "
      "total wins the game and the highest total is the goat."),
])
_RATING = (_("Ratings"), [
    _("In a rated game the goat earns no rating points and every other player earns some: the fewer "
      "points, the more rating points (at least 1). A rating only grows. Games against the computer are "
      "not rated."),
])

_PAIRS_TILES = (_("Pairs and the deal"), [
    _("Four play, in two pairs: partners sit opposite each other, so play passes from one pair to the other. "
      "You choose your partner by the seat you take."),
    _("All 28 tiles are dealt, seven to each player: there is no bazaar. The first tile of a round starts "
      "the line; every later tile goes on one of its two open ends, matching half to matching half."),
])
_PAIRS_LEAD = (_("Who leads"), [
    _("In the first round the holder of 1-1 leads with it (all the tiles are dealt, so someone has it). "
      "Later rounds are led by whoever went out or made the fish, with any tile."),
])
_PAIRS_TURN = (_("A turn"), [
    _("If a tile in your hand fits an end, you must play one: you may not pass while you can play. With "
      "nothing that fits you knock, and the turn passes on; the server knocks for you."),
    _("Each move has a time limit when the game has a clock; whoever runs out of time loses the game for "
      "their pair."),
])
_PAIRS_SCORE = (_("The score"), [
    _("A pair keeps one account. After a domino the other pair is charged the pips left in both its "
      "hands; the pair that went out is charged nothing. After a fish the pair holding more pips is "
      "charged the pips of all four hands; if both hold the same, nobody is charged and the points go to "
      "the next round. A lone 0-0 left in hand counts as the table says."),
    _("A pair that has not written yet writes only a round above the opening threshold; a smaller round is "
      "kept in brackets and written when the pair opens."),
    _("The pair that reaches the limit are the goats. If the other pair has no points at all, it is a dry "
      "goat. The result shows by how many points the goats lost."),
])
_PAIRS_RATING = (_("Ratings"), [
    _("In a rated game both goats earn no rating points and both winners earn the same: the fewer points "
      "the pair has, the more (at least 1). Whoever resigns or runs out of time loses the game for the "
      "pair. Games against the computer are not rated."),
])

#: what only one ruleset has
_OWN = {
    "goat-classic": (_("Only in these rules"), [
        _("Remembered points count: they are part of a player's points towards the limit and the result."),
        _("A hand with five or more doubles, or six tiles of one number, is void: the round is dealt again."),
    ]),
    "goat-gamesburg": (_("Only in these rules"), [
        _("Only written points count towards the limit and the result; remembered points count only once "
          "the player opens."),
        _("Every player stakes the ante in chips to sit down; the winner takes the pot (a shared win shares "
          "it). Whoever resigns or runs out of time loses the stake to the others."),
    ]),
}

def _sections(ruleset: str) -> list[tuple[str, list[str]]]:
    goat = PRESETS[ruleset]["scoring"] == "goat"
    own = [_OWN[ruleset]] if ruleset in _OWN else []
    if is_paired(ruleset):
        return [_PAIRS_TILES, _PAIRS_LEAD, _PAIRS_TURN, _GOAT_END, _PAIRS_SCORE, *own, _PAIRS_RATING]
    if goat:
        return [_TILES, _GOAT_LEAD, _TURN, _GOAT_END, _GOAT_SCORE, *own, _RATING]
    return [_ROUNDS_TILES, _ROUNDS_LEAD, _TURN, _ROUNDS_END, _ROUNDS_SCORE, *own, _RATING]


def _facts(ruleset: str) -> list[tuple[str, str]]:
    """(label, value) of the preset's options that the ruleset has (a null option is left out)."""
    return words.option_facts(PRESETS[ruleset])


def texts(ruleset: str) -> list[str]:
    """Every English text of ``ruleset``'s page (what the catalog must translate)."""
    out = [SUMMARIES[ruleset]]
    out += [label for label, _value in _facts(ruleset)] + [v for _label, v in _facts(ruleset) if not v.isdigit()]
    for title, paragraphs in _sections(ruleset):
        out += [title, *paragraphs]
    return out


def rules_page(ruleset: str) -> dict[str, Any] | None:
    """``ruleset``'s page in the active language (None for a ruleset that does not exist)."""
    if ruleset not in PRESETS:
        return None
    return {
        "ruleset": ruleset, "summary": gettext(SUMMARIES[ruleset]),
        "facts": [(gettext(label), value if value.isdigit() else gettext(value)) for label, value in _facts(ruleset)],
        "sections": [{"title": gettext(title), "paragraphs": [gettext(p) for p in paragraphs]}
                     for title, paragraphs in _sections(ruleset)],
    }


def rules_index() -> list[dict[str, str]]:
    return [{"ruleset": ruleset, "summary": gettext(SUMMARIES[ruleset])} for ruleset in RULESETS]


def rules_markdown() -> str:
    """The section of docs/rules.md between ``BEGIN`` and ``END``, in English: the sections every
    ruleset's page has, once; then each ruleset's summary, facts and own sections."""
    shared = [section for section in _sections(RULESETS[0]) if all(section in _sections(r) for r in RULESETS)]
    lines = [BEGIN, "", "### Every ruleset", ""]
    for title, paragraphs in shared:
        lines += [f"**{title}.**", "", *(line for paragraph in paragraphs for line in (paragraph, ""))]
    for ruleset in RULESETS:
        lines += [f"### {ruleset}", "", SUMMARIES[ruleset], "", "| | |", "|---|---|"]
        lines += [f"| {label} | {value} |" for label, value in _facts(ruleset)]
        lines.append("")
        for title, paragraphs in _sections(ruleset):
            if (title, paragraphs) not in shared:
                lines += [f"**{title}.**", "", *(line for paragraph in paragraphs for line in (paragraph, ""))]
    lines.append(END)
    return "\n".join(lines)


def docs_section(text: str) -> str:
    """The rules pages' section of docs/rules.md's ``text`` (markers included)."""
    return text[text.index(BEGIN):text.index(END) + len(END)]


def docs_write() -> bool:
    """Write ``rules_markdown()`` into docs/rules.md; whether it changed."""
    text = DOCS.read_text(encoding="utf-8")
    new = text.replace(docs_section(text), rules_markdown())
    if new != text:
        DOCS.write_text(new, encoding="utf-8")
    return new != text
