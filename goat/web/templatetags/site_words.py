"""``{% load site_words %}``: a stored value in the visitor's language (goat/web/words.py):
``{{ game.status|game_status }}``, ``{{ t.status|tournament_status }}``, ``{{ game.ruleset|ruleset }}``,
``{{ event.type|event }}``, ``{{ s.seat|seat }}`` (counted from 1), ``{{ t.format|word }}`` (formats,
periods, reasons)."""

from __future__ import annotations

from django import template

from goat.web import words

register = template.Library()

register.filter("word", words.word)
register.filter("game_status", words.game_status)
register.filter("tournament_status", words.tournament_status)
register.filter("ruleset", words.ruleset)
register.filter("event", words.event)
register.filter("seat", words.seat)
