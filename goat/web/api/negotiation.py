"""Content negotiation for views that answer their own media type (a CSV file, a game record)."""

from __future__ import annotations


class JSONForErrors:
    """Content negotiation that ignores ``Accept``: the view answers its own media type itself and every
    problem is JSON (a client asking for ``text/csv`` still gets a readable 404)."""

    def select_parser(self, request, parsers):
        return parsers[0]

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type
