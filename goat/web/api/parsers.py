"""The API's JSON parser: DRF's, plus two refusals that would otherwise end in a 500.

- Text that no database column can hold: NUL (``\\u0000``, which PostgreSQL refuses in text and
  jsonb) and lone surrogates (``\\ud800``, valid JSON escapes but not encodable as UTF-8). They are
  refused wherever they appear, keys included: 400 ``invalid_characters``.
- Nesting so deep that the decoder runs out of stack (``[[[[...]]]]``): 400 ``malformed_json``.
"""

from __future__ import annotations

import re

from django.utils.translation import gettext_lazy
from rest_framework import exceptions
from rest_framework.parsers import JSONParser

INVALID_CHARACTERS = gettext_lazy("Strings must not contain NUL characters (\\u0000) or unpaired surrogates.")
TOO_DEEP = gettext_lazy("JSON parse error - the document is nested too deeply.")

_BAD = re.compile("[\x00\ud800-\udfff]")


class InvalidCharacters(exceptions.ParseError):
    default_detail = INVALID_CHARACTERS
    default_code = "invalid_characters"


def has_invalid_characters(text: str) -> bool:
    return _BAD.search(text) is not None


def _check(value) -> None:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _BAD.search(item):
                raise InvalidCharacters()
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


class StrictJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise exceptions.ParseError(TOO_DEEP) from None
        _check(data)
        return data
