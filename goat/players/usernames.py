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
  django-registration uses it). A name written wholly in one script is allowed (``раса`` in
  Cyrillic, ``paca`` in Latin) unless it looks like a name already taken (``username_skeleton``):
  then the later one is refused, whichever its script.
* ``username_skeleton``: look-alikes within one script, or across scripts written wholly in one
  (``аӏісе`` in Cyrillic for ``alice``, ``ɑlice``, ``caroǀ``, ``admın``). Unicode TR39's skeleton of the
  normal form (NFD, each character replaced by its prototype from Unicode's confusables table, NFD
  again), case-folded: two names with one skeleton look alike, and the second is refused as taken.
  It is stored (``UsernameKey.skeleton``, unique), checked at every door as the fold is.
* ``username_check``: THE username rule, one for every door that makes or renames an account (the
  API's sign-up, the play page's, the admin's user forms, ``createsuperuser``): on the normal form,
  letters, digits and ``@ . + - _`` only (Django's ``UnicodeUsernameValidator``: no markup, spaces,
  control or format characters such as a soft hyphen, a zero-width space or a right-to-left
  override, no ``/``), with at least one letter or digit (``.``, ``..`` and ``_`` would break the
  profile's link), at most ``USERNAME_MAX_LENGTH`` characters in the normal form (``"㌖" * 150`` is
  900 once normal); not beginning with ``=``, ``+``, ``-`` or ``@``, which a spreadsheet reads as
  a formula (CSV injection); not a cross-script look-alike (``username_confusable``). Reserved and
  taken names are the services' and the admin's check, as they depend on the account.
  ``UsernameValidator`` is the rule as a Django validator; goat.players' AppConfig adds it to the
  user model's username field, so Django's own forms and commands apply it.
  ``manage.py usernames_report`` lists existing accounts that break it.
"""

from __future__ import annotations

import functools
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


#: where goat departs from Unicode's confusables table: CYRILLIC SMALL LETTER PALOCHKA is a bare
#: vertical stroke of a capital's height, drawn as ``l`` (the table gives ``i``, from its capital's
#: ``I``); as its capital ``Ӏ``, it maps to ``l``
PROTOTYPE_OVERRIDES = {"\u04cf": "l"}


@functools.cache
def _prototypes() -> dict[str, str]:
    """Unicode's confusables table (TR39, confusables.txt) as source character -> prototype, from the copy
    confusable-homoglyphs ships. That copy holds each pair both ways: a source's entry is its one
    prototype, a prototype's entry lists its sources. A prototype with a single source is told from it
    by the pair's order (either way both map to one character, which is what a skeleton needs)."""
    table = {key.replace("\u200e", ""): [entry["c"].replace("\u200e", "") for entry in entries]
             for key, entries in confusables.confusables_data.items()}
    prototypes = {}
    for source, targets in table.items():
        if len(source) != 1 or len(targets) != 1:
            continue  # a prototype of several sources, or a sequence (prototypes only)
        target = targets[0]
        if table.get(target) == [source] and len(target) == 1 and target > source:
            continue  # a pair alone: the smaller maps to itself, the larger to it
        prototypes[source] = target
    prototypes.update(PROTOTYPE_OVERRIDES)
    return prototypes


def username_skeleton(username: str) -> str:
    """TR39's skeleton of the name's normal form, case-folded (the module's docstring)."""
    prototypes = _prototypes()
    decomposed = unicodedata.normalize("NFD", username_normal(username))
    skeleton = unicodedata.normalize("NFD", "".join(prototypes.get(ch, ch) for ch in decomposed))
    return unicodedata.normalize("NFKC", skeleton.casefold())


@functools.cache
def _computer_skeleton() -> re.Pattern[str]:
    digits = "".join(sorted({username_skeleton(d) for d in "0123456789"}))
    return re.compile(re.escape(username_skeleton("computer-")) + f"[{re.escape(digits)}]+")


def username_reserved(username: str) -> bool:
    """A name of the API's paths, or a computer player's name or a look-alike of one."""
    folded = username_fold(username)
    return (folded in {username_fold(name) for name in RESERVED_USERNAMES} or bool(COMPUTER_USERNAME.fullmatch(folded))
            or bool(_computer_skeleton().fullmatch(username_skeleton(username))))


def username_confusable(username: str) -> bool:
    """Whether the (normal form of the) name mixes scripts with a character confusable across them."""
    return bool(confusables.is_dangerous(username_normal(username)))


#: what a username may not begin with: a spreadsheet reads such a cell as a formula
FORMULA_STARTS = ("=", "+", "-", "@")
#: characters in a username's normal form (the user model's field holds 150)
USERNAME_MAX_LENGTH = 150
USERNAME_CHARACTERS = gettext_lazy(
    "A username may hold letters, digits and the characters @ . + - _ only.")
USERNAME_FORMULA = gettext_lazy("A username may not begin with = + - or @.")
USERNAME_CONFUSABLE = gettext_lazy(
    "This username mixes alphabets with letters that look alike; write it in one alphabet.")
USERNAME_NO_LETTER = gettext_lazy("A username needs at least one letter or digit.")
USERNAME_TOO_LONG = gettext_lazy("A username may have at most 150 characters (counted as stored).")

_characters = UnicodeUsernameValidator(message=USERNAME_CHARACTERS)


def username_shape_check(username: str) -> None:
    """The length and characters of the name's normal form, and how it begins; raises ValidationError
    (``invalid``)."""
    normal = username_normal(username)
    if len(normal) > USERNAME_MAX_LENGTH:
        raise ValidationError(USERNAME_TOO_LONG, code="invalid")
    _characters(normal)
    if normal.startswith(FORMULA_STARTS):
        raise ValidationError(USERNAME_FORMULA, code="invalid")
    if not any(ch.isalnum() for ch in normal):
        raise ValidationError(USERNAME_NO_LETTER, code="invalid")


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
