"""The one normal form of usernames (issue 19 item 3).

* ``username_normal``: NFKC, as Django stores a username (``AbstractBaseUser.normalize_username``):
  fullwidth ``Ａｄｍｉｎ`` is stored as ``Admin``, the ligature ``ﬁ`` as ``fi``.
* ``username_fold``: the normal form case-folded (Unicode full case folding, then NFKC again, which
  is Unicode's NFKC_Casefold up to default-ignorable characters). Two names with the same fold are
  the same name: ``Admin``/``admin``, ``МАША``/``маша``, ``Straße``/``STRASSE``. The fold is
  computed here in Python and stored (goat.players.models.UsernameKey, unique), because SQLite's
  ``lower()`` folds ASCII only.
* ``username_confusable``: look-alikes across scripts. A name that mixes scripts and uses a
  character that is confusable with one of another script (``раul`` with Cyrillic р and а beside
  Latin u and l, ``аdmin``) is refused at sign-up (the test of confusable-homoglyphs, as
  django-registration uses it). A name written wholly in one script is allowed even when it looks
  like a name in another script (``раса`` in Cyrillic, ``paca`` in Latin): refusing those would
  refuse ordinary Russian names.
"""

from __future__ import annotations

import re
import unicodedata

from confusable_homoglyphs import confusables

#: names that collide with API paths (/api/players/me/), compared by their fold
RESERVED_USERNAMES = frozenset({"me"})
#: the names of the built-in computer players (goat.players.services.computer_accounts): nobody else
#: signs up with one, so a name like ``computer-2`` is always a computer's
COMPUTER_USERNAME = re.compile(r"computer-[0-9]+")


def username_normal(username: str) -> str:
    return unicodedata.normalize("NFKC", username)


def username_fold(username: str) -> str:
    return unicodedata.normalize("NFKC", username_normal(username).casefold())


def username_reserved(username: str) -> bool:
    folded = username_fold(username)
    return folded in {username_fold(name) for name in RESERVED_USERNAMES} or bool(COMPUTER_USERNAME.fullmatch(folded))


def username_confusable(username: str) -> bool:
    """Whether the (normal form of the) name mixes scripts with a character confusable across them."""
    return bool(confusables.is_dangerous(username_normal(username)))
