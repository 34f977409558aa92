"""``{% load site_words %}``: ``{{ game.status|word }}`` shows a stored value in the visitor's language."""

from __future__ import annotations

from django import template

from goat.web import words

register = template.Library()


@register.filter
def word(value: object) -> str:
    return words.word(value)
