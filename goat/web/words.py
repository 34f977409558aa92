"""The words of the site for the stored values a page shows: statuses, formats, periods, reasons.

Pages show a stored value (``running``, ``swiss``) in the visitor's language with ``{{ value|word }}``
(goat/web/templatetags/site_words.py). The values stay English in the database and the API; only their
words here are translated, so adding a value means adding its word (tests/web/test_i18n.py checks that
every status and format of the models has one).
"""

from __future__ import annotations

from django.utils.translation import pgettext_lazy

WORDS = {
    # game and tournament statuses
    "waiting": pgettext_lazy("status", "waiting"),
    "scheduled": pgettext_lazy("status", "scheduled"),
    "running": pgettext_lazy("status", "running"),
    "finished": pgettext_lazy("status", "finished"),
    "interrupted": pgettext_lazy("status", "interrupted"),
    "cancelled": pgettext_lazy("status", "cancelled"),
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
}


def word(value: object) -> str:
    """The visitor's word for a stored value; the value itself when it has none (a name, a number)."""
    label = WORDS.get(str(value)) if value is not None else None
    return str(label) if label is not None else ("" if value is None else str(value))
