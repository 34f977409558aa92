"""``{% load site_words %}``: a stored value in the visitor's language (the game's words:
goat/games/words.py; the site's others: goat/web/words.py):
``{{ game.status|game_status }}``, ``{{ t.status|tournament_status }}``, ``{{ game.ruleset|ruleset }}``,
``{{ event.type|event }}``, ``{{ s.seat|seat }}`` (counted from 1), ``{{ t.format|word }}`` (formats,
periods, reasons)."""

from __future__ import annotations

from datetime import UTC

from django import template

from goat.games import words
from goat.web import words as site_words

register = template.Library()

register.filter("word", words.word)
register.filter("game_status", words.game_status)
register.filter("tournament_status", site_words.tournament_status)
register.filter("ruleset", words.ruleset)
register.filter("event", words.event)
register.filter("seat", words.seat)


@register.filter
def when(value, arg: str = "") -> str:
    """``{{ at|when }}``: ``<time datetime="ISO">6 декабря 2026, 07:17</time>`` in the reader's time zone
    (``{{ at|when:"day" }}`` the day alone); the attribute stays UTC ISO for machines."""
    from django.utils.html import format_html

    if value is None:
        return ""
    iso = value.isoformat() if not hasattr(value, "astimezone") else value.astimezone(UTC).isoformat()
    return format_html('<time datetime="{}">{}</time>', iso.replace("+00:00", "Z"),
                       site_words.moment(value, with_time=arg != "day"))


@register.filter
def moment_text(value, arg: str = "") -> str:
    """``{{ at|moment_text }}``: the same words as ``when`` without the element (an SVG title, an attribute)."""
    return site_words.moment(value, with_time=arg != "day")
