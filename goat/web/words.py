"""The words of the site for the stored values a page shows: statuses, rulesets, event types, formats,
periods, reasons, and seat numbers. docs/glossary.md is where each word comes from.

Pages show a stored value (``running``, ``goat-classic``, ``tile_played``) in the visitor's language
with a filter of ``{% load site_words %}`` (goat/web/templatetags/site_words.py). The values stay codes
in the database, the API, URLs and attributes; only their words here are translated, so adding a value
means adding its word (tests/web/test_i18n.py checks that every status, format and event type has
one). A status agrees with its noun: a game's (партия, feminine) and a tournament's (турнир,
masculine) are separate words. A value without a word (an unknown ruleset, a newer event type) is shown
humanised (``chess-960`` as "chess 960"), never as a crash.
"""

from __future__ import annotations

import re
from functools import partial

from django.utils.translation import gettext_noop, pgettext_lazy

#: a game's status, as said of a game (партия: feminine)
GAME_STATUSES = {
    "waiting": pgettext_lazy("game status", "waiting for players"),
    "running": pgettext_lazy("game status", "in play"),
    "finished": pgettext_lazy("game status", "finished"),
    "interrupted": pgettext_lazy("game status", "interrupted"),
    "cancelled": pgettext_lazy("game status", "cancelled"),
}

#: a tournament's status, as said of a tournament (турнир: masculine)
TOURNAMENT_STATUSES = {
    "scheduled": pgettext_lazy("tournament status", "scheduled"),
    "running": pgettext_lazy("tournament status", "in progress"),
    "finished": pgettext_lazy("tournament status", "finished"),
    "cancelled": pgettext_lazy("tournament status", "cancelled"),
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

WORDS = {
    # tournament formats
    "swiss": pgettext_lazy("tournament format", "swiss"),
    "arena": pgettext_lazy("tournament format", "arena"),
    # leaderboard periods
    "all": pgettext_lazy("period", "all time"),
    "month": pgettext_lazy("period", "this month"),
    "week": pgettext_lazy("period", "this week"),
    # how a game ended (result reason) and why a game was cancelled
    "limit": pgettext_lazy("end reason", "point limit reached"),
    "rounds": pgettext_lazy("end reason", "all rounds played"),
    "timeout": pgettext_lazy("end reason", "out of time"),
    "resigned": pgettext_lazy("end reason", "resigned"),
    "left": pgettext_lazy("end reason", "every player left"),
    "expired": pgettext_lazy("end reason", "nobody joined in time"),
    "idle": pgettext_lazy("end reason", "nothing happened for too long"),
    "tournament_cancelled": pgettext_lazy("end reason", "the tournament was cancelled"),
    # how a round ended (goat.engine.scoring END_OUT, END_FISH)
    "out": pgettext_lazy("round end", "domino: a player went out"),
    "fish": pgettext_lazy("round end", "fish"),
}


def humanised(value: object) -> str:
    """A code without a word, readable: ``chess-960`` -> "chess 960", ``tile_flipped`` -> "tile flipped"."""
    return "" if value is None else str(value).replace("_", " ").replace("-", " ")


def _said(table: dict, value: object) -> str:
    label = table.get(str(value)) if value is not None else None
    return str(label) if label is not None else humanised(value)


#: the visitor's word for a stored format, period or reason (humanised when it has none)
word = partial(_said, WORDS)


#: the visitor's word for a stored status (of a game, of a tournament), ruleset, event type
game_status = partial(_said, GAME_STATUSES)
tournament_status = partial(_said, TOURNAMENT_STATUSES)
ruleset = partial(_said, RULESETS)
event = partial(_said, EVENTS)


def seat(value: object) -> str:
    """A seat as people count it, from 1 (the API and the log count from 0)."""
    return str(value + 1) if isinstance(value, int) and not isinstance(value, bool) else humanised(value)


#: a moment as a reader says it: «6 декабря 2026, 07:17» / "6 December 2026, 07:17" (``E``: the month
#: in the form a date takes, the genitive in Russian), and a day alone
MOMENT_FORMAT = "j E Y, H:i"
DAY_FORMAT = "j E Y"


def moment(value, *, with_time: bool = True) -> str:
    """``value`` (an aware datetime) in the reader's form and time zone (goat.web.timezones activates
    it); "" for None."""
    from django.utils import dateformat, timezone

    if value is None:
        return ""
    if timezone.is_aware(value):
        value = timezone.localtime(value)
    return dateformat.format(value, MOMENT_FORMAT if with_time else DAY_FORMAT)


#: the names of the built-in computer players (goat.players.services.computer_accounts): nobody else
#: signs up with one (goat.players.usernames), so a name like ``computer-2`` is always a computer's
COMPUTER_USERNAME = re.compile(r"computer-[0-9]+")


def player_name(username: object) -> str:
    """A player as pages name them: their username, but a built-in computer player (``computer-2``) is
    «Компьютер 2» / "Computer 2" (its account name stays in links, the API and the admin's search)."""
    from django.utils.translation import gettext

    name = "" if username is None else str(username)
    if COMPUTER_USERNAME.fullmatch(name):
        return gettext("Computer %(number)s") % {"number": name.split("-", 1)[1]}
    return name


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
