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
* ``username_check``: THE username rule, one for every door that makes or renames an account (the
  API's sign-up, the play page's, the admin's user forms, ``createsuperuser``): on the normal form,
  letters, digits and ``@ . + - _`` only (Django's ``UnicodeUsernameValidator``: no markup, spaces,
  control or format characters such as a soft hyphen, a zero-width space or a right-to-left
  override, no ``/``); not beginning with ``=``, ``+``, ``-`` or ``@``, which a spreadsheet reads as
  a formula (CSV injection); not a cross-script look-alike (``username_confusable``). Reserved and
  taken names are the services' and the admin's check, as they depend on the account.
  ``UsernameValidator`` is the rule as a Django validator; goat.players' AppConfig adds it to the
  user model's username field, so Django's own forms and commands apply it.
  ``manage.py usernames_report`` lists existing accounts that break it.
"""

from __future__ import annotations

import re
import unicodedata

from confusable_homoglyphs import confusables
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.utils.deconstruct import deconstructible
from django.utils.translation import gettext_lazy

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


#: what a username may not begin with: a spreadsheet reads such a cell as a formula
FORMULA_STARTS = ("=", "+", "-", "@")
USERNAME_CHARACTERS = gettext_lazy(
    "A username may hold letters, digits and the characters @ . + - _ only.")
USERNAME_FORMULA = gettext_lazy("A username may not begin with = + - or @.")
USERNAME_CONFUSABLE = gettext_lazy(
    "This username mixes alphabets with letters that look alike; write it in one alphabet.")

_characters = UnicodeUsernameValidator(message=USERNAME_CHARACTERS)


def username_shape_check(username: str) -> None:
    """The characters of the name's normal form, and how it begins; raises ValidationError (``invalid``)."""
    normal = username_normal(username)
    _characters(normal)
    if normal.startswith(FORMULA_STARTS):
        raise ValidationError(USERNAME_FORMULA, code="invalid")


def username_check(username: str) -> None:
    """The whole username rule (the module's docstring); raises ValidationError with code ``invalid``
    or ``username_confusable``."""
    username_shape_check(username)
    if username_confusable(username):
        raise ValidationError(USERNAME_CONFUSABLE, code="username_confusable")


def username_breaks_rule(username: str) -> str | None:
    """Why ``username`` breaks the rule (the first message), or None when it keeps it."""
    try:
        username_check(username)
    except ValidationError as error:
        return str(error.messages[0])
    return None


@deconstructible(path="goat.players.usernames.UsernameValidator")
class UsernameValidator:
    """``username_check`` as a Django validator (model and form fields)."""

    def __call__(self, value: str) -> None:
        username_check(value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, UsernameValidator)

    def __hash__(self) -> int:
        return hash(UsernameValidator)


def username_field_install(user_model) -> None:
    """Add ``UsernameValidator`` to ``user_model``'s username field (idempotent). Only the field's
    validator list of this process changes, not its definition: no migration."""
    field = user_model._meta.get_field(user_model.USERNAME_FIELD)
    if not any(isinstance(v, UsernameValidator) for v in field.validators):
        field.validators.append(UsernameValidator())
