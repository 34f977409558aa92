"""The words of the API's problem details in the caller's language (``Accept-Language``; docs/api.md).

``title`` is the code in words: each app declares its codes with their titles in its ``errors.py``
(goat.web.errors.ErrorCode); goat.web.errors.WebError declares the ones goat.web answers with itself (HTTP,
parsing, authentication, limits). ``detail`` is the sentence the service or the engine wrote, translated where it
is marked for translation. The ``code`` is never translated. tests/web/test_i18n.py checks that every
code the project raises is declared with a title.
"""

from __future__ import annotations

from goat.web.errors import error_code


def problem_title(code: str) -> str:
    """The title of ``code`` in the active language (a code nobody declares: its words, in English)."""
    declared = error_code(code)
    return str(declared.title) if declared is not None else code.replace("_", " ").capitalize()
