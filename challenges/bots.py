"""Bots (docs/api.md "Bots"): an account turned into a bot's plays through challenges only, and
hears of them, and of its games' starts and ends, on its own stream (challenges.streams).

``bot_upgrade`` is the one way in: only for an account that has never held a seat at a game (it
has played no game); irreversible (nothing deletes a ``BotAccount``). A bot's ``rulesets`` are the
rulesets it accepts challenges for (empty: every one): a challenge naming it for another is 422
``bot_declines_ruleset`` before anything is created. The games app refuses a bot at a game of the
lobby (``bot_account``); the tournaments app refuses its registration.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils.translation import gettext_lazy

from challenges.errors import ChallengeError
from goat.games.models import Seat
from goat.players.errors import PlayerError
from goat.players.models import BotAccount
from goat.players.services import player_is_computer

HAS_GAMES = gettext_lazy("Only an account that has played no game can become a bot.")
COMPUTER = gettext_lazy("A computer player cannot become a bot.")
NOT_A_BOT = gettext_lazy("This is for bot accounts: upgrade the account first (POST /api/bot/account/upgrade/).")


@transaction.atomic
def bot_upgrade(*, player, rulesets: list[str] | None = None) -> BotAccount:
    """Make ``player``'s account a bot's (irreversible); a repeat answers the bot as it is, its
    ``rulesets`` replaced when given. 409 ``account_has_games`` when the account ever held a seat. The
    account's row is locked: two upgrades at once make one bot."""
    User = get_user_model()
    list(User._default_manager.select_for_update().filter(pk=player.pk).values_list("pk", flat=True))
    bot = BotAccount.objects.filter(user_id=player.pk).first()
    if bot is not None:
        if rulesets is not None:
            bot.rulesets = rulesets
            bot.save(update_fields=["rulesets"])
        return bot
    if player_is_computer(player=player):
        raise PlayerError.COMPUTER_PLAYER(COMPUTER)
    if Seat.objects.filter(player=player).exists():
        raise ChallengeError.ACCOUNT_HAS_GAMES(HAS_GAMES)
    try:
        with transaction.atomic():
            return BotAccount.objects.create(user=player, rulesets=rulesets or [])
    except IntegrityError:  # the same account's other upgrade landed first
        return BotAccount.objects.get(user_id=player.pk)


def bot_view(bot: BotAccount) -> dict[str, Any]:
    return {"username": bot.user.get_username(), "bot": True, "rulesets": list(bot.rulesets),
            "upgraded_at": bot.upgraded_at}


def bot_required(player) -> BotAccount:
    """``player``'s bot account, else 403 ``not_a_bot``."""
    bot = BotAccount.objects.filter(user_id=player.pk).select_related("user").first()
    if bot is None:
        raise ChallengeError.NOT_A_BOT(NOT_A_BOT)
    return bot
