"""Players: sign-up, tokens and profiles (services write, selectors read).

``player_profile`` is the single place where a profile is put together. Its numbers come from
projections of apps above this one (ratings), which contribute them as receivers of
``goat.players.signals.profile_sections``, so this module never imports them.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import authenticate, get_user_model, password_validation
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.http import HttpRequest
from django.utils.translation import gettext, gettext_lazy
from rest_framework.authtoken.models import Token

from goat.players import signals
from goat.players.backends import user_by_username
from goat.players.errors import PlayerError
from goat.players.lockout import LOCKED_OUT, lockout_retry_after, login_locked_out
from goat.players.models import BotAccount, ComputerAccount, UsernameKey
from goat.players.usernames import (
    USERNAME_CONFUSABLE,
    username_confusable,
    username_fold,
    username_normal,
    username_reserved,
    username_shape_check,
    username_skeleton,
)
from goat.web.errors import WebError

SIGNUP_CLOSED = gettext_lazy("Sign-up is closed on this server.")
USERNAME_TAKEN = gettext_lazy("This username is taken.")
INVALID_CREDENTIALS = gettext_lazy("Unable to log in with the given username and password.")


def player_create(*, username: str, password: str) -> AbstractBaseUser:
    """Create a player account: the one door of the API's and the play page's sign-up. The name keeps
    the username rule (goat.players.usernames.username_check: 400 ``invalid``, or ``username_confusable``
    for a look-alike), is stored in its normal form (NFKC) and is unique by its fold and its skeleton:
    ``Ａｄｍｉｎ`` and ``admın`` are taken when ``admin`` exists, ``ｍｅ`` is reserved (400 ``username_taken``)."""
    if not settings.GOAT_SIGNUP_OPEN:
        raise PlayerError.SIGNUP_CLOSED(SIGNUP_CLOSED)
    User = get_user_model()
    username = username_normal(username)
    try:
        username_shape_check(username)  # the username rule (goat.players.usernames); look-alikes below
    except DjangoValidationError as error:
        messages = list(error.messages)
        raise WebError.INVALID(f"username: {messages[0]}", errors={"username": messages}) from None
    if username_reserved(username) or username_key_taken(username):
        raise PlayerError.USERNAME_TAKEN(USERNAME_TAKEN, errors={"username": [USERNAME_TAKEN]})
    if username_confusable(username):
        raise PlayerError.USERNAME_CONFUSABLE(USERNAME_CONFUSABLE,
                           errors={"username": [USERNAME_CONFUSABLE]})
    try:
        password_validation.validate_password(password, user=User(username=username))
    except DjangoValidationError as error:
        messages = list(error.messages)
        raise WebError.INVALID(f"password: {messages[0]}", errors={"password": messages}) from None
    try:
        with transaction.atomic():
            return User.objects.create_user(username=username, password=password)
    except IntegrityError:  # lost a race with a concurrent sign-up of the same name
        raise PlayerError.USERNAME_TAKEN(USERNAME_TAKEN,
                           errors={"username": [USERNAME_TAKEN]}) from None


def username_key_taken(username: str, *, besides=None) -> bool:
    """Whether another account (than ``besides``) has ``username``'s fold or its skeleton: the same name,
    or one that looks like it (goat.players.usernames)."""
    taken = UsernameKey.objects.filter(Q(folded=username_fold(username)) | Q(skeleton=username_skeleton(username)))
    if besides is not None:
        taken = taken.exclude(user_id=besides.pk)
    return taken.exists()


def player_authenticate(*, request: HttpRequest, username: str, password: str) -> AbstractBaseUser:
    """The player with these credentials, through Django's authentication backends: the failed-login
    lockout (goat.players.lockout) first, which counts ``request``'s client address, then the
    password. The one check of a login, for a token (``token_obtain``) and a session (the play page)
    alike: 429 ``login_locked_out`` (with ``Retry-After``) or 400 ``invalid_credentials``."""
    user = authenticate(request, username=username, password=password)
    if user is None and login_locked_out(request):
        raise PlayerError.LOGIN_LOCKED_OUT(LOCKED_OUT,
                           headers={"Retry-After": str(lockout_retry_after(request, {"username": username}))})
    if user is None or not user.is_active:
        raise PlayerError.INVALID_CREDENTIALS(INVALID_CREDENTIALS)
    return user


def token_obtain(*, request: HttpRequest, username: str, password: str) -> str:
    """The API token of the player with these credentials (created on first use; ``player_authenticate``
    checks them)."""
    user = player_authenticate(request=request, username=username, password=password)
    token, _ = Token.objects.get_or_create(user=user)
    return token.key


def computer_accounts(*, count: int) -> list[AbstractBaseUser]:
    """The built-in computer players 1..``count`` (accounts ``computer-1``, ``computer-2``, ...), created
    on first use with no usable password: they cannot sign in. Idempotent, and safe against a concurrent
    first use (the unique ``number`` keeps one account per place; the loser reads the winner's)."""
    if count <= 0:
        return []
    found = {c.number: c.user for c in ComputerAccount.objects.filter(number__lte=count).select_related("user")}
    for number in range(1, count + 1):
        if number not in found:
            found[number] = _computer_account_create(number)
    return [found[number] for number in range(1, count + 1)]


def _computer_account_create(number: int) -> AbstractBaseUser:
    User = get_user_model()
    name = f"computer-{number}"
    if username_key_taken(name):
        # a person's account of that name or a look-alike, made before such names were reserved: another
        # free one
        name = f"computer-{number}0{User.objects.count()}"
    try:
        with transaction.atomic():
            user = User(username=name)
            user.set_unusable_password()
            user.save()
            ComputerAccount.objects.create(user=user, number=number)
            return user
    except IntegrityError:  # created concurrently
        return ComputerAccount.objects.select_related("user").get(number=number).user


def player_is_computer(*, player) -> bool:
    """Whether ``player`` is one of the built-in computer players."""
    return ComputerAccount.objects.filter(user_id=player.pk).exists()


def player_is_bot(*, player) -> bool:
    """Whether ``player``'s account is a bot's (docs/api.md "Bots")."""
    return BotAccount.objects.filter(user_id=player.pk).exists()


def bots_among(*, usernames: list[str]) -> set[str]:
    """Which of ``usernames`` are bots' accounts (one query: a page of a list)."""
    if not usernames:
        return set()
    return set(BotAccount.objects.filter(user__username__in=usernames).values_list("user__username", flat=True))


def bot_declines(*, player, ruleset: str) -> bool:
    """Whether ``player`` is a bot that does not play ``ruleset`` (its ``rulesets``; empty: it plays all)."""
    rulesets = BotAccount.objects.filter(user_id=player.pk).values_list("rulesets", flat=True).first()
    return rulesets is not None and bool(rulesets) and ruleset not in rulesets


def player_get(*, username: str) -> AbstractBaseUser:
    """The active player with this name, compared in its normal form (``ALICE`` finds ``alice``)."""
    user = user_by_username(username)
    if user is None or not user.is_active:
        raise WebError.NOT_FOUND(gettext("No player with this username."))
    return user


def player_profile(*, user: AbstractBaseUser, include_private: bool) -> dict[str, Any]:
    """A player's profile: the username and the fields every receiver of ``signals.profile_sections``
    answers, in the order they were connected. A section shows private fields (``chips``) only when
    ``include_private`` (the player's own view)."""
    profile: dict[str, Any] = {"username": user.get_username(), "bot": player_is_bot(player=user)}
    for _receiver, fields in signals.profile_sections.send(sender=None, player=user, include_private=include_private):
        profile.update(fields)
    return profile


def player_setting_save(*, player, time_zone: str) -> None:
    """``player``'s time zone (an IANA name this system knows, or "" for their language's default);
    400 ``invalid_time_zone`` for any other name."""
    from goat.players.models import PlayerSetting
    from goat.web import timezones

    if time_zone and not timezones.valid(time_zone):
        raise PlayerError.INVALID_TIME_ZONE(gettext("No such time zone: %(zone)s.") % {"zone": time_zone[:64]})
    PlayerSetting.objects.update_or_create(user=player, defaults={"time_zone": time_zone})


def player_time_zone(*, player) -> str:
    """``player``'s own time zone (one query), "" if they chose none."""
    from goat.players.models import PlayerSetting

    return PlayerSetting.objects.filter(user=player).values_list("time_zone", flat=True).first() or ""


def time_zone_on_login(sender, request, user, **kwargs) -> None:
    """A player who signs in gets their chosen zone in the session (``user_logged_in``; goat.web.timezones)."""
    from goat.web import timezones

    if request is not None:
        timezones.remember(request, player_time_zone(player=user))
