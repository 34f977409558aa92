"""The game's words: what a page, the admin, the play page and the API's texts call a game's status, a
ruleset, an event, how a game and a round ended, a seat and a game's options, each keyed by the engine's
own names (goat.engine.status, goat.engine.scoring, goat.engine.rulesets), so that a value of the engine
has one word and one home. docs/glossary.md is where each word comes from.

Pages show a stored value (``running``, ``goat-classic``, ``tile_played``) in the visitor's language
with a filter of ``{% load site_words %}`` (goat/games/templatetags/site_words.py). The values stay codes
in the database, the API, URLs and attributes; only their words here are translated, so adding a value
means adding its word (tests/web/test_words.py checks that every status, ruleset, reason and event
type has one). A status agrees with its noun: a game's (партия, feminine). A value without a word is
shown humanised (goat.web.words.humanised), never as a crash.
"""

from __future__ import annotations

from functools import partial

from django.utils.translation import gettext_noop, pgettext_lazy

from goat.engine import status
from goat.engine.rulesets import seat_number
from goat.engine.scoring import END_FISH, END_OUT
from goat.web import words as site_words
from goat.web.words import humanised, said

#: a game's status, as said of a game (партия: feminine)
GAME_STATUSES = {
    status.WAITING: pgettext_lazy("game status", "waiting for players"),
    status.RUNNING: pgettext_lazy("game status", "in play"),
    status.FINISHED: pgettext_lazy("game status", "finished"),
    status.INTERRUPTED: pgettext_lazy("game status", "interrupted"),
    status.CANCELLED: pgettext_lazy("game status", "cancelled"),
}

#: the rulesets of goat.engine.rulesets by name (docs/rules.md §2)
RULESETS = {
    "goat-classic": pgettext_lazy("ruleset", "Goat, classic"),
    "goat-gamesburg": pgettext_lazy("ruleset", "Goat, Gamesburg rules"),
    "domino-3rounds": pgettext_lazy("ruleset", "Domino, three rounds"),
    "goat-pairs": pgettext_lazy("ruleset", "Goat in pairs"),
}

#: the event types of goat.engine.events.HANDLERS as a heading names them
EVENTS = {
    "game_created": pgettext_lazy("event", "game created"),
    "seat_taken": pgettext_lazy("event", "seat taken"),
    "seat_left": pgettext_lazy("event", "seat left"),
    "round_dealt": pgettext_lazy("event", "deal"),
    "tile_played": pgettext_lazy("event", "move"),
    "tile_drawn": pgettext_lazy("event", "draw from the bazaar"),
    "knocked": pgettext_lazy("event", "knock"),
    "timed_out": pgettext_lazy("event", "out of time"),
    "resigned": pgettext_lazy("event", "resignation"),
    "game_cancelled": pgettext_lazy("event", "game cancelled"),
    "seed_revealed": pgettext_lazy("event", "server seed revealed"),
}

#: what was looked at, in the audit record of hidden information (goat.games.audit)
LOOKS = {
    "admin_event_log": pgettext_lazy("hidden view", "event log in the admin"),
    "admin_replay": pgettext_lazy("hidden view", "replay in the admin"),
    "admin_export_events": pgettext_lazy("hidden view", "event export in the admin"),
    "admin_event_detail": pgettext_lazy("hidden view", "an event in the admin"),
    "api_events": pgettext_lazy("hidden view", "events through the API"),
    "api_replay": pgettext_lazy("hidden view", "replay through the API"),
    "api_stream": pgettext_lazy("hidden view", "stream through the API"),
}

#: how a game ended (result reasons), why it was cancelled and how a round ended, keyed by the engine's names
ENDINGS = {
    # how a game ended (goat.engine.status RESULT_REASONS) and why a game was cancelled (CANCEL_REASONS)
    status.REASON_LIMIT: pgettext_lazy("end reason", "point limit reached"),
    status.REASON_ROUNDS: pgettext_lazy("end reason", "all rounds played"),
    status.REASON_TIMEOUT: pgettext_lazy("end reason", "out of time"),
    status.REASON_RESIGNED: pgettext_lazy("end reason", "resigned"),
    status.CANCEL_LEFT: pgettext_lazy("end reason", "every player left"),
    status.CANCEL_EXPIRED: pgettext_lazy("end reason", "nobody joined in time"),
    status.CANCEL_IDLE: pgettext_lazy("end reason", "nothing happened for too long"),
    status.CANCEL_TOURNAMENT: pgettext_lazy("end reason", "the tournament was cancelled"),
    # how a round ended (goat.engine.scoring)
    END_OUT: pgettext_lazy("round end", "domino: a player went out"),
    END_FISH: pgettext_lazy("round end", "fish"),
}


#: the visitor's word for a game's status, a ruleset, an event type
game_status = partial(said, GAME_STATUSES)
ruleset = partial(said, RULESETS)
event = partial(said, EVENTS)
#: the visitor's word for how a game or a round ended, or for a format or a period (goat.web.words)
word = partial(said, {**site_words.WORDS, **ENDINGS})


def seat(value: object) -> str:
    """A seat as people count it, from 1 (the API and the log count from 0): goat.engine.rulesets.seat_number."""
    return str(seat_number(value)) if isinstance(value, int) and not isinstance(value, bool) else humanised(value)


# --- a game's options in words (the rules pages' facts table, the admin) -----------------------------

#: the options a reader is told, as (label, option, how the value reads), in English (marked for the
#: catalog; said in the active language by ``options_words`` and the rules pages)
OPTION_FACTS = [
    (gettext_noop("Tiles dealt to each player"), "hand_size", "number"),
    (gettext_noop("Points limit"), "limit", "number"),
    (gettext_noop("Rounds in a game"), "rounds", "number"),
    (gettext_noop("Opening threshold, points"), "open_threshold", "number"),
    (gettext_noop("Remembered points count"), "remembered_counts", "yes_no"),
    (gettext_noop("Bad hands are dealt again"), "redeal", "yes_no"),
    (gettext_noop("A lone 0-0 in hand counts"), "lone_double_zero", "number"),
    (gettext_noop("Tiles of the bazaar never drawn"), "bazaar_reserve", "number"),
    (gettext_noop("Ante, chips"), "ante", "number"),
    (gettext_noop("Seconds for a move"), "move_time", "number"),
]
YES, NO = gettext_noop("yes"), gettext_noop("no")


def option_facts(options: dict) -> list[tuple[str, str]]:
    """(label, value) in English of the ``options`` OPTION_FACTS names (a null or absent one left out)."""
    rows = []
    for label, key, kind in OPTION_FACTS:
        value = options.get(key)
        if value is None:
            continue
        rows.append((label, (YES if value else NO) if kind == "yes_no" else str(value)))
    return rows


def options_words(options: dict | None) -> str:
    """A game's or a tournament's resolved ``options`` as a reader says them, in the active language:
    "Points limit: 125 · Seconds for a move: 30 · …" (the admin shows them so, never as JSON)."""
    from django.utils.translation import gettext

    return " · ".join(f"{gettext(label)}: {value if value.isdigit() else gettext(value)}"
                      for label, value in option_facts(options or {}))
