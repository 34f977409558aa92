"""``{% load table_words %}``: what the table model (goat.games.table) says, drawn. ``{{ note.parts|parts }}``
is a sentence of the model as HTML, each name a link to its player's page; ``{{ label|tile_face }}`` a
tile's name (``"3-5"``) as ``table/_tile.html`` draws it."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString

from goat.games.table import parts_html, tile

register = template.Library()


@register.filter
def parts(value: object) -> SafeString:
    return parts_html(value if isinstance(value, list) else None)


@register.filter
def tile_face(label: object) -> dict:
    return tile(str(label))
