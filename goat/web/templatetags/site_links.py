"""``{% load site_links %}``: every name is a link (docs/site.md). ``{{ name|player_link }}`` is the player's
name linking to their page, safe to pass into ``{% blocktranslate with player=name|player_link %}`` so a
sentence keeps its words and its translation while the name in it links."""

from __future__ import annotations

from django import template
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from goat.web import words

register = template.Library()


@register.filter
def player_link(name: object) -> SafeString | str:
    """``<a href="/players/{name}/">{name}</a>``; an empty name (a free seat) stays as it is."""
    if not name:
        return "" if name is None else str(name)
    shown = words.player_name(name)
    kind = "player-link" if shown == str(name) else "player-link computer"
    return format_html('<a class="{}" href="{}">{}</a>', kind, reverse("page-player", args=[str(name)]), shown)


@register.filter
def game_link(game_id: object) -> SafeString | str:
    """The game's number linking to its page."""
    if game_id is None:
        return ""
    return format_html('<a class="game-link" href="{}">{}</a>', reverse("page-game", args=[game_id]), game_id)

