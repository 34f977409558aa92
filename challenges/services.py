"""Challenge services: the one write path of each command on a challenge (docs/api.md "Challenges").

Every command that changes a challenge locks its row first (``SELECT … FOR UPDATE``) and decides on
what it reads under the lock, so two answers at once are taken one after the other: of two accepts
of the last seat exactly one starts the game (through ``goat.games.services.game_create_seated``,
inside the same transaction), the other finds the challenge accepted (409 ``challenge_not_open``),
and nobody sits twice (``ChallengeEntry``'s unique (challenge, player)). A challenge's feed events
(``challenge``: created, accepted, declined, cancelled, started) are published on commit to everyone
it names (``challenges.notify``).

Expiry is lazy and written by the beat: a challenge past ``expires_at`` reads as ``expired`` at once
everywhere (``challenge_status``) and refuses every answer (409 ``challenge_expired``); the beat's
``challenges.tasks.challenges_expire`` writes the status every minute and tells the feeds.
"""

from __future__ import annotations

import secrets
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.crypto import constant_time_compare
from django.utils.translation import gettext_lazy

from challenges.errors import ChallengeError
from goat import engine
from goat.engine import deal as dealing
from goat.engine.rulesets import is_paired
from goat.games import services as games
from goat.games.errors import GameError, RulesRefusal
from goat.games.models import Game
from goat.players.backends import user_by_username
from goat.players.errors import PlayerError
from goat.players.services import player_is_computer
from goat.web.api.rates import rate_refund
from goat.web.api.throttling import rate_limit, secret_attempt
from goat.web.errors import WebError

from . import notify
from .models import Answer, Challenge, ChallengeEntry, ChallengeStatus, DeclineReason, Seating
from .selectors import challenge_not_found as _not_found
from .selectors import challenge_status

NOT_OPEN = gettext_lazy("This challenge is no longer open: it was accepted, declined or cancelled.")
EXPIRED = gettext_lazy("This challenge has expired.")
SELF = gettext_lazy("You cannot challenge yourself or accept your own challenge.")
UNKNOWN_PLAYER = gettext_lazy("No player named {name}.")
CLOSED_ACCOUNT = gettext_lazy("The account {name} is closed.")
COMPUTER = gettext_lazy("{name} is a computer player: start a game against the computer instead.")
PARTNER_PAIRS_ONLY = gettext_lazy("A partner is named only in goat-pairs.")
PARTNER_TWO_OPPONENTS = gettext_lazy("With a partner, name both players of the other pair.")
TOO_MANY_OPPONENTS = gettext_lazy("A game of {seats} seats has room for {room} opponents, not {count}.")
DUPLICATE = gettext_lazy("Each opponent may be named once.")
TOO_MANY_OUT = gettext_lazy("You already have {limit} open challenges; wait for answers or cancel one first.")
TOO_MANY_IN = gettext_lazy("{name} already has {limit} open challenges to answer; try again later.")
NOT_CHALLENGER = gettext_lazy("Only the challenger may cancel a challenge.")
NOT_NAMED = gettext_lazy("Only a named opponent may decline a challenge.")
CODE_WRONG = gettext_lazy("That is not this challenge's link code.")
FULL = gettext_lazy("Every seat of this challenge is taken; the named players have yet to answer.")
NOT_AGAIN = gettext_lazy("You held no seat at that game, or it has not ended.")

#: length in bytes of a link code's randomness (URL-safe base64: 32 characters, 192 bits)
CODE_BYTES = 24


def _open_check(challenge: Challenge) -> None:
    """409 ``challenge_expired`` / ``challenge_not_open`` unless ``challenge`` is open."""
    status = challenge_status(challenge)
    if status == ChallengeStatus.EXPIRED:
        raise ChallengeError.CHALLENGE_EXPIRED(EXPIRED)
    if status != ChallengeStatus.OPEN:
        raise ChallengeError.CHALLENGE_NOT_OPEN(NOT_OPEN)


def _opponent(name: str, challenger):
    """The account ``name`` names, fit to be challenged (the refusals name the field ``opponents``)."""
    user = user_by_username(name)
    if user is None:
        message = UNKNOWN_PLAYER.format(name=name)
        raise ChallengeError.UNKNOWN_PLAYER(message, errors={"opponents": [message]})
    if user.pk == challenger.pk:
        raise ChallengeError.CANNOT_CHALLENGE_SELF(SELF, errors={"opponents": [str(SELF)]})
    if not user.is_active:
        message = CLOSED_ACCOUNT.format(name=user.get_username())
        raise ChallengeError.ACCOUNT_CLOSED(message, errors={"opponents": [message]})
    if player_is_computer(player=user):
        message = COMPUTER.format(name=user.get_username())
        raise PlayerError.COMPUTER_PLAYER(message, errors={"opponents": [message]}, status=422)
    return user


def _with_partner(partner: str, names: list[str], ruleset: str | None) -> list[str]:
    """The names in seat order for a goat-pairs challenge that names the partner: the first opponent,
    the partner (opposite the challenger), the second opponent (docs/api.md "Pairs")."""
    if ruleset is None or not is_paired(ruleset):
        message = str(PARTNER_PAIRS_ONLY)
        raise WebError.INVALID(f"partner: {message}", errors={"partner": [message]})
    if len(names) != 2:
        message = str(PARTNER_TWO_OPPONENTS)
        raise WebError.INVALID(f"opponents: {message}", errors={"opponents": [message]})
    return [names[0], partner, names[1]]


def _open_challenges():
    return Challenge.objects.filter(status=ChallengeStatus.OPEN, expires_at__gt=timezone.now())


def _caps_check(challenger, opponents: list) -> None:
    """409 ``too_many_challenges`` when the challenger already has ``GOAT_CHALLENGES_OPEN_OUT`` open
    challenges, or an opponent ``GOAT_CHALLENGES_OPEN_IN`` open ones to answer. The players' rows are
    locked first (in id order), so two challenges at once cannot both take the last place."""
    users = sorted([challenger, *opponents], key=lambda user: user.pk)
    User = get_user_model()
    list(User._default_manager.select_for_update().filter(pk__in=[u.pk for u in users]).order_by("pk")
         .values_list("pk", flat=True))
    limit_out = settings.GOAT_CHALLENGES_OPEN_OUT
    if _open_challenges().filter(challenger=challenger).count() >= limit_out:
        raise ChallengeError.TOO_MANY_CHALLENGES(TOO_MANY_OUT.format(limit=limit_out))
    limit_in = settings.GOAT_CHALLENGES_OPEN_IN
    for opponent in opponents:
        waiting = _open_challenges().filter(entries__player=opponent, entries__answer=Answer.PENDING).count()
        if waiting >= limit_in:
            raise ChallengeError.TOO_MANY_CHALLENGES(TOO_MANY_IN.format(name=opponent.get_username(), limit=limit_in))


def _again(game_id: int, challenger) -> tuple[Game, list]:
    """The ended game ``game_id`` that ``challenger`` played in, and its other players (not computers)."""
    game = Game.objects.filter(pk=game_id, status__in=("finished", "interrupted")).first()
    seats = list(game.seat_set.select_related("player").order_by("seat")) if game is not None else []
    if game is None or challenger.pk not in {seat.player_id for seat in seats}:
        raise GameError.NOT_SEATED(NOT_AGAIN)
    others = [seat.player for seat in seats if seat.player_id != challenger.pk and not game.computer_seat(seat.seat)]
    return game, others


@transaction.atomic
def challenge_create(*, challenger, opponents: list[str] | None = None, ruleset: str | None = None,
                     seats: int | None = None, options: dict | None = None, rated: bool = True,
                     seating: str = Seating.RANDOM, again_of: int | None = None,
                     private: bool = False, partner: str | None = None) -> Challenge:
    """Challenge the players named in ``opponents`` (none: an open challenge, its seats taken by
    whoever holds its link) to a game of ``ruleset`` with ``seats`` seats (default: one for each
    named player and the challenger). Seats beyond the named players are open to the link's holders.
    ``again_of``: play an ended game again with the same people: its ruleset, seats and options, its
    other players named (what is given explicitly wins). ``private``: its game is a private table
    (always so with seats by link, and when played again from a private one). ``partner`` (goat-pairs):
    the challenger's partner, seated opposite (seat 2), the two ``opponents`` at seats 1 and 3. Every
    refusal leaves nothing behind."""
    if player_is_computer(player=challenger):
        raise PlayerError.COMPUTER_PLAYER(games.COMPUTER_PLAYER)
    names = list(opponents or [])
    again = None
    if again_of is not None:
        again, others = _again(again_of, challenger)
        ruleset = ruleset or again.ruleset
        seats = seats or again.seats
        options = again.options if options is None else options
        private = private or again.private
        users = others if not names else None
    else:
        users = None
    if partner is not None:
        names, seating, users = _with_partner(partner, names, ruleset), Seating.FIXED, None
    if users is None:
        folded = [name.casefold() for name in names]
        if len(set(folded)) != len(folded):
            raise WebError.INVALID(f"opponents: {DUPLICATE}", errors={"opponents": [str(DUPLICATE)]})
        users = [_opponent(name, challenger) for name in names]
    if ruleset is None:
        message = "This field is required."
        raise WebError.INVALID(f"ruleset: {message}", errors={"ruleset": [message]})
    seats = seats or max(2, len(users) + 1)
    if len(users) > seats - 1:
        message = TOO_MANY_OPPONENTS.format(seats=seats, room=seats - 1, count=len(users))
        raise ChallengeError.TOO_MANY_OPPONENTS(message, errors={"opponents": [message]})
    if not rated and isinstance(options, dict) and "ante" not in options:
        options = {**options, "ante": 0}
    elif not rated and options is None:
        options = {"ante": 0}
    # the engine resolves and checks the options (400 unknown_ruleset / invalid_options), as a game's create
    state, _events = engine.decide(None, engine.CreateGame(ruleset=ruleset, seats=seats,
                                                           server_seed_hex=dealing.new_server_seed(), options=options))
    if not rated and state.options.ante > 0:
        raise RulesRefusal.INVALID_OPTIONS(games.CASUAL_ANTE)
    _bots_check(users, ruleset, rated)
    _caps_check(challenger, users)
    now = timezone.now()
    by_link = len(users) < seats - 1
    challenge = Challenge.objects.create(
        challenger=challenger, ruleset=ruleset, seats=seats, options=state.options.to_dict(), rated=rated,
        seating=seating, expires_at=now + timedelta(minutes=settings.GOAT_CHALLENGE_MINUTES),
        code=secrets.token_urlsafe(CODE_BYTES) if by_link else None, again_of=again, private=private or by_link,
    )
    ChallengeEntry.objects.bulk_create([ChallengeEntry(challenge=challenge, player=user) for user in users])
    notify.challenge_told(challenge, "created")
    return challenge


def challenge_again(*, player, game_id: int) -> tuple[Challenge, bool]:
    """"Play again with the same people" after ``game_id`` ended (the play page's button): the open
    challenge to play it again that another of its players made and names ``player`` is accepted
    (so a repeat by anyone at the old table answers the same challenge), or ``player``'s own is
    returned, or a new one is made (``challenge_create`` with ``again_of``). Returns (the challenge,
    whether this call created it)."""
    _again(game_id, player)  # 403 not_seated unless they played it and it ended
    found = (Challenge.objects.filter(again_of_id=game_id, status=ChallengeStatus.OPEN, expires_at__gt=timezone.now())
             .filter(Q(challenger=player) | Q(entries__player=player, entries__named=True)).order_by("id").first())
    if found is None:
        return challenge_create(challenger=player, again_of=game_id), True
    if found.challenger_id != player.pk:
        found = challenge_accept(challenge_id=found.pk, player=player)
    return found, False


def _bots_check(users: list, ruleset: str, rated: bool) -> None:
    """422 ``bot_declines_ruleset`` when a named bot does not play ``ruleset`` (the bots' own choice,
    goat.players: ``BotAccount.rulesets``)."""
    from goat.players.services import bot_declines

    for user in users:
        if bot_declines(player=user, ruleset=ruleset):
            message = gettext_lazy("{name} is a bot that does not play {ruleset}.").format(
                name=user.get_username(), ruleset=ruleset)
            raise ChallengeError.BOT_DECLINES_RULESET(message, errors={"opponents": [message]})


def _locked(challenge_id: int) -> Challenge:
    challenge = Challenge.objects.select_for_update().filter(pk=challenge_id).first()
    if challenge is None:
        raise _not_found()
    return challenge


@transaction.atomic
def challenge_accept(*, challenge_id: int, player, code: str | None = None) -> Challenge:
    """Accept ``challenge_id``: a named opponent's answer, or a seat taken with the link's ``code``.
    When every seat is accepted the game starts with exactly these players (the challenge's seating)
    and the challenge is ``accepted``. A repeat of one's own accept changes nothing. The row lock
    orders concurrent answers: of two accepts of the last seat one starts the game, the other gets
    409 ``challenge_not_open``."""
    challenge = _locked(challenge_id)
    entry = ChallengeEntry.objects.filter(challenge=challenge, player=player).first()
    if entry is None and player.pk != challenge.challenger_id and not code:
        raise _not_found()  # neither named nor holding the link: nothing to see here
    if entry is None and player.pk != challenge.challenger_id:
        _code_check(challenge, player, code)
    _open_check(challenge)
    if player.pk == challenge.challenger_id:
        raise ChallengeError.CANNOT_CHALLENGE_SELF(SELF)
    if entry is not None and entry.answer == Answer.ACCEPTED:
        return challenge
    _bots_check([player], challenge.ruleset, challenge.rated)
    now = timezone.now()
    if entry is None and not _link_seat_free(challenge):
        raise ChallengeError.CHALLENGE_FULL(FULL)
    if entry is None:
        entry = ChallengeEntry.objects.create(challenge=challenge, player=player, named=False,
                                              answer=Answer.ACCEPTED, answered_at=now)
    else:
        entry.answer, entry.answered_at = Answer.ACCEPTED, now
        entry.save(update_fields=["answer", "answered_at"])
    entries = list(challenge.entries.select_related("player").order_by("id"))
    if len(entries) == challenge.seats - 1 and all(e.answer == Answer.ACCEPTED for e in entries):
        _start(challenge, entries, now)
        notify.challenge_told(challenge, "started")
    else:
        notify.challenge_told(challenge, "accepted", player=player)
    return challenge


def _link_seat_free(challenge: Challenge) -> bool:
    """Whether a seat of ``challenge`` is left for a holder of its link (the named ones keep theirs)."""
    return ChallengeEntry.objects.filter(challenge=challenge).count() < challenge.seats - 1


def _code_check(challenge: Challenge, player, code: str) -> None:
    """403 ``challenge_code_wrong`` unless ``code`` is the challenge's link code; wrong codes are
    throttled per player (rate ``challenge_code_player``) and per challenge (``challenge_code``) by
    the tournaments' invite codes' mechanism (goat.web.api.throttling.secret_attempt): it holds the
    guesser, never the link's rightful holders."""
    right = bool(challenge.code) and constant_time_compare(code, challenge.code or "")
    secret_attempt(guesser=("challenge_code_player", str(player.pk)), target=("challenge_code", str(challenge.pk)),
                   right=right)
    if not right:
        raise ChallengeError.CHALLENGE_CODE_WRONG(CODE_WRONG)


def challenge_by_code(*, code: str, player) -> Challenge | None:
    """The challenge whose link code is ``code`` (the play page's ``/play/c/<code>/``), every lookup
    counted on the player's wrong-code rate (429 ``throttled`` over it; a found code is taken back)."""
    hit = rate_limit("challenge_code_player", str(player.pk))
    found = Challenge.objects.filter(code=code).select_related("challenger", "game").first()
    if found is not None:
        rate_refund(hit)
    return found


def _start(challenge: Challenge, entries: list[ChallengeEntry], now) -> None:
    """Start the game of ``challenge`` with its challenger and every accepted entry, seated as the
    challenge says (random: drawn by the system's randomness)."""
    players = [challenge.challenger, *(entry.player for entry in entries)]
    if challenge.seating == Seating.RANDOM:
        secrets.SystemRandom().shuffle(players)
    started = games.game_create_seated(players=players, ruleset=challenge.ruleset, seats=challenge.seats,
                                       options=challenge.options, private=challenge.private,
                                       casual=not challenge.rated)
    challenge.game = started.game
    challenge.status, challenge.closed_at = ChallengeStatus.ACCEPTED, now
    challenge.save(update_fields=["game", "status", "closed_at"])


@transaction.atomic
def challenge_decline(*, challenge_id: int, player, reason: str = DeclineReason.GENERIC) -> Challenge:
    """A named opponent declines ``challenge_id`` for ``reason``: the challenge is ``declined`` for
    everyone (the game it asked for cannot be played without them)."""
    challenge = _locked(challenge_id)
    entry = ChallengeEntry.objects.filter(challenge=challenge, player=player).first()
    if entry is None and player.pk != challenge.challenger_id:
        raise _not_found()
    if entry is None or not entry.named:
        raise WebError.PERMISSION_DENIED(NOT_NAMED)
    _open_check(challenge)
    now = timezone.now()
    entry.answer, entry.reason, entry.answered_at = Answer.DECLINED, reason, now
    entry.save(update_fields=["answer", "reason", "answered_at"])
    challenge.status, challenge.closed_at = ChallengeStatus.DECLINED, now
    challenge.save(update_fields=["status", "closed_at"])
    notify.challenge_told(challenge, "declined", player=player)
    return challenge


@transaction.atomic
def challenge_cancel(*, challenge_id: int, player) -> Challenge:
    """The challenger withdraws an open challenge: ``cancelled``."""
    challenge = _locked(challenge_id)
    if player.pk != challenge.challenger_id:
        if not ChallengeEntry.objects.filter(challenge=challenge, player=player).exists():
            raise _not_found()
        raise WebError.PERMISSION_DENIED(NOT_CHALLENGER)
    _open_check(challenge)
    challenge.status, challenge.closed_at = ChallengeStatus.CANCELLED, timezone.now()
    challenge.save(update_fields=["status", "closed_at"])
    notify.challenge_told(challenge, "cancelled")
    return challenge


def challenges_expire(*, now=None, limit: int = 500) -> int:
    """Write ``expired`` on the open challenges past their time, each under its row lock (an answer
    that got there first wins), and tell everyone they name; how many. The beat's job."""
    now = now or timezone.now()
    due = list(Challenge.objects.filter(status=ChallengeStatus.OPEN, expires_at__lte=now).order_by("id")
               .values_list("pk", flat=True)[:limit])
    expired = 0
    for challenge_id in due:
        with transaction.atomic():
            challenge = Challenge.objects.select_for_update().filter(
                Q(pk=challenge_id), Q(status=ChallengeStatus.OPEN), Q(expires_at__lte=now)).first()
            if challenge is None:
                continue
            challenge.status, challenge.closed_at = ChallengeStatus.EXPIRED, now
            challenge.save(update_fields=["status", "closed_at"])
            notify.challenge_told(challenge, "expired")
            expired += 1
    return expired
