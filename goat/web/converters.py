"""Path converters shared by every app's URLs."""

from __future__ import annotations

from django.urls import register_converter


class IdConverter:
    """A row id in a path: digits that fit a 64-bit primary key (longer ones are simply not found)."""

    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(IdConverter, "id")
