"""The words of the site for the stored values a page shows that are not the game's: tournament statuses,
formats and leaderboard periods; moments in the reader's form; players' names as pages show them; and
how a code without a word is shown. The game's own words (statuses, rulesets, events, how a game and a
round ended, seat numbers, options) are goat/games/words.py, keyed by the engine's names.
docs/glossary.md is where each word comes from.

Pages show a stored value (``scheduled``, ``swiss``) in the visitor's language with a filter of
``{% load site_words %}`` (goat/games/templatetags/site_words.py). The values stay codes in the
database, the API, URLs and attributes; only their words are translated. A tournament's status agrees
with its noun (турнир, masculine), apart from a game's (партия, feminine). A value without a word (an
unknown ruleset, a newer event type) is shown humanised (``chess-960`` as "chess 960"), never as a crash.
"""

from __future__ import annotations

import re
from functools import partial

from django.utils.translation import pgettext_lazy

#: a tournament's status, as said of a tournament (турнир: masculine)
TOURNAMENT_STATUSES = {
    "scheduled": pgettext_lazy("tournament status", "scheduled"),
    "running": pgettext_lazy("tournament status", "in progress"),
    "finished": pgettext_lazy("tournament status", "finished"),
    "cancelled": pgettext_lazy("tournament status", "cancelled"),
}

WORDS = {
    # tournament formats
    "swiss": pgettext_lazy("tournament format", "swiss"),
    "arena": pgettext_lazy("tournament format", "arena"),
    # leaderboard periods
    "all": pgettext_lazy("period", "all time"),
    "month": pgettext_lazy("period", "this month"),
    "week": pgettext_lazy("period", "this week"),
}


def humanised(value: object) -> str:
    """A code without a word, readable: ``chess-960`` -> "chess 960", ``tile_flipped`` -> "tile flipped"."""
    return "" if value is None else str(value).replace("_", " ").replace("-", " ")


def said(table: dict, value: object) -> str:
    """``value``'s word in ``table`` in the active language, or ``value`` humanised when it has none."""
    label = table.get(str(value)) if value is not None else None
    return str(label) if label is not None else humanised(value)


#: the visitor's word for a stored format or period (humanised when it has none)
word = partial(said, WORDS)
#: the visitor's word for a tournament's status
tournament_status = partial(said, TOURNAMENT_STATUSES)


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
