"""Game services: the one write path per command.

A command loads the game (head, snapshot and the caller's seat: ``eventstore.game_load``, no lock),
runs the engine, and commits what it decided through ``_commit``: the command's event and every
forced draw, knock, deal and reveal the engine performs up to the next real choice are appended with
the version they were decided on, in the statement that moves the head and updates the read model
and snapshot. Concurrency is optimistic: if another writer appended first the append is refused
(``StreamConflict``); a client that named the version (``If-Match``) gets 412 ``version_mismatch``,
any other command is loaded and decided again, at most ``MAX_TRIES`` times (a move that has become
illegal then gets its normal 422). Views, tasks and commands all come through here.
"""

from __future__ import annotations

import logging
import unicodedata
from collections.abc import Callable
from dataclasses import replace
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import OuterRef, Subquery
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy

from goat import engine
from goat.engine import deal as dealing
from goat.engine.computer import LEVELS as COMPUTER_LEVELS
from goat.engine.errors import ALREADY_SEATED, NOT_SEATED
from goat.engine.rules import PLAY, pending
from goat.engine.state import GameState
from goat.engine.status import PLAYED
from goat.games import eventstore, notify, projections, selectors, signals
from goat.games.errors import GAME_NOT_ENDED, PRECONDITIONS, GameError, RulesRefusal, refusal
from goat.games.eventstore import LoadedGame, StoredEvent, StreamConflict
from goat.games.models import Game, GameEvent, GameStatus, Seat
from goat.games.rules_texts import rules_detail
from goat.players.errors import PlayerError
from goat.players.models import BotAccount
from goat.players.services import computer_accounts, player_is_bot, player_is_computer
from goat.web.errors import ServiceError, WebError
from goat.web.observe import metrics
from goat.web.observe.logs import game_context

logger = logging.getLogger(__name__)

#: how often a command without an expected version is decided again after losing a race
MAX_TRIES = 3

GAME_NOT_FOUND = gettext_lazy("No game with that id.")
GAME_FULL = gettext_lazy("Every seat of this game is taken.")
COMPUTER_SEAT = gettext_lazy("This seat is a computer player's: only the computer moves for it.")
COMPUTER_PLAYER = gettext_lazy("A computer player takes seats only in the games that ask for it.")
TOO_MANY_COMPUTER_GAMES = gettext_lazy(
    "You already hold the limit of open games against the computer ({limit}); finish or leave one first.")
COMPUTER_ANTE = gettext_lazy("A game with computer players is unrated and has no ante: leave out 'ante' or make it 0.")
BOT_ACCOUNT = gettext_lazy("A bot plays through challenges only: it creates and joins no game of the lobby.")
CASUAL_ANTE = gettext_lazy("An unrated game has no ante: leave out 'ante' or make it 0.")


def _release_seat(game: Game, player, seat: int, options) -> None:
    signals.seat_freed.send(sender=Game, game=game, player=player, seat=seat, options=options)


def _decide_or_refuse(state: GameState | None, command) -> tuple[GameState, list[dict[str, Any]]]:
    """``engine.decide``, its refusals of a precondition (goat.games.errors.PRECONDITIONS) as ServiceErrors; a
    rule's refusal stays the engine's error (422, rendered as problem details as it is). Either way its
    detail is said in the caller's language (goat/games/rules_texts.py)."""
    try:
        return engine.decide(state, command)
    except engine.IllegalMove as error:
        if error.code not in PRECONDITIONS:
            raise
        raise refusal(error, rules_detail(error)) from None


def _not_found() -> ServiceError:
    return WebError.NOT_FOUND(GAME_NOT_FOUND)


def _version_mismatch(version: int, expected: int) -> ServiceError:
    return GameError.VERSION_MISMATCH(
        gettext("The game is at version %(version)s, not %(expected)s; reload it and try again.")
        % {"version": version, "expected": expected})


def _load(game_id: int, player=None) -> LoadedGame:
    """The game as a command finds it (no lock), with ``player``'s seat; 404 if there is no such game."""
    try:
        game_id = int(game_id)
    except (ValueError, TypeError):
        raise _not_found() from None
    if not 0 < game_id < 2**63:  # no such id (and beyond bigint PostgreSQL would compare as numeric: a scan)
        raise _not_found()
    loaded = eventstore.game_load(game_id=game_id, player=player)
    if loaded is None:
        raise _not_found()
    game_context(game_id)  # every log record of this request or task now carries game_id
    return loaded


def _seat_of(loaded: LoadedGame, *, computer: bool = False) -> int:
    """The caller's seat (403 ``not_seated`` without one). A computer player's seat is moved for only
    by the computer's own task (``computer``): anyone else gets 403 ``computer_seat``."""
    # By the Seat table, not by the username in the events: a username can be changed by staff.
    if loaded.seat is None:
        raise GameError.NOT_SEATED(gettext(NOT_SEATED))
    if not computer and loaded.game.computer_seat(loaded.seat):
        raise GameError.COMPUTER_SEAT(COMPUTER_SEAT)
    return loaded.seat


#: the columns a command changes on the game row (saving only these keeps the UPDATE small)
_COMMAND_FIELDS = ["status", "round", "turn", "deadline", "result", "ended_at", "snapshot", "snapshot_version",
                   "version", "last_hash", "updated_at"]


def _sync_read_model(game: Game, state: GameState, now) -> None:
    """Copy what the API filters and shows from the engine state onto the game row."""
    game.status = state.status
    game.round = state.round_no
    kind, seat = pending(state)
    game.turn = seat if kind == PLAY else None
    move_time = state.options.move_time
    game.deadline = now + timedelta(seconds=move_time) if (kind == PLAY and move_time > 0) else None
    game.result = state.result.to_dict() if state.result is not None else None
    if state.ended and game.ended_at is None:
        game.ended_at = now
    game.snapshot = eventstore.snapshot_dump(state)
    game.snapshot_version = state.version


def _commit(loaded: LoadedGame, state: GameState, events: list[dict[str, Any]], actor
            ) -> tuple[LoadedGame, list[StoredEvent]]:
    """Commit a decided command: the events, the new head, read model and snapshot, in one statement
    that lands only if the game is still at the version ``loaded`` was read at (else StreamConflict).

    This is the commit point of every command: what must happen once a command is decided and
    stored (the projections of a game that just ended, queued on commit) is registered here.

    ``loaded.players``: who holds each seat once the command has committed (a command that takes or
    frees a seat says so; None: not known). With them the command publishes its update's content,
    built once for every stream of the game; without, the streams read.
    """
    game = loaded.game
    was_ended = loaded.state.ended
    was_status, was_version = game.status, game.version
    now = timezone.now()
    _sync_read_model(game, state, now)
    stored = eventstore.events_append(game=game, events=events, actor=actor, at=now, update_fields=_COMMAND_FIELDS)
    content = selectors.stream_content(game=game, state=state, stored=stored) if loaded.players is not None else None
    transaction.on_commit(notify.command_committed(game, was_status, was_version, content, loaded.players))
    if game.computer_seat(game.turn):  # a computer's turn: its move, queued once this version is stored
        transaction.on_commit(computer_move_queue(game_id=game.pk, version=game.version))
    if state.ended and not was_ended and state.result is not None:  # (a cancelled game has nothing to project)
        game_id = game.pk
        transaction.on_commit(lambda: projections.projections_queue(game_id=game_id))
    return LoadedGame(game=game, state=state, seat=loaded.seat, players=loaded.players, update=content), stored


#: the Celery task of a computer's move (goat.games.tasks), looked up by name: the tasks import this module
COMPUTER_MOVE_TASK = "goat.tasks.computer_move"


def computer_move_queue(*, game_id: int, version: int) -> Callable[[], None]:
    """What queues the computer's move of ``game_id`` at ``version`` once the command that made it the
    computer's turn commits: one task, run after ``GOAT_COMPUTER_THINK_SECONDS``. A broker that is down
    loses the move; the clock then times the computer out, as anyone who does not move."""

    def send() -> None:
        from kombu.exceptions import OperationalError as BrokerError

        from goat.celery import app

        try:
            app.tasks[COMPUTER_MOVE_TASK].apply_async((game_id, version),
                                                      countdown=settings.GOAT_COMPUTER_THINK_SECONDS)
        except BrokerError:
            logger.exception("game %s: the computer's move at version %s was not queued", game_id, version)

    return send


def _command_run(game_id: int, actor, expected_version: int | None, build: Callable[[LoadedGame], Any]
            ) -> tuple[LoadedGame, list[StoredEvent]]:
    """Load, decide ``build(loaded)`` and commit; on a lost race decide again (without an expected version)."""
    for attempt in range(1, MAX_TRIES + 1):
        loaded = _load(game_id, actor)
        if expected_version is not None and loaded.game.version != expected_version:
            raise _version_mismatch(loaded.game.version, expected_version)
        state, events = _decide_or_refuse(loaded.state, build(loaded))
        try:
            return _commit(loaded, state, events, actor)
        except StreamConflict:
            if expected_version is not None or attempt == MAX_TRIES:
                raise
            metrics.APPEND_RETRIES.inc()
            logger.info("game %s moved on during a command (try %s of %s): deciding again", game_id, attempt,
                        MAX_TRIES)
    raise AssertionError("unreachable")


@metrics.command_counted("create")
@transaction.atomic
def game_create(*, player, ruleset: str, seats: int, options: dict | None = None, client_seed: str = "",
                computer_players: int = 0, computer_level: str = "strong", private: bool = False,
                casual: bool = False, bots: int | None = None) -> LoadedGame:
    """Create a game; the creator takes seat 0 and ``computer_players`` built-in computer players
    (goat.games.computer) take seats 1..N at once, playing at ``computer_level``. A game with a
    computer, or ``casual`` (unrated by its players' choice), is unrated and has no ante (the preset's
    ante is left out; an ``ante`` > 0 asked for is 400 ``invalid_options``). ``private``: a private
    table, never listed (docs/api.md "Challenges"). Returns the game as committed, loaded for the
    creator (seat 0). A bot account creates no game here (403 ``bot_account``): it plays through
    challenges, whose games ``game_create_seated`` creates with ``bots``, the seats bots hold."""
    _computers_check(seats, computer_players, computer_level)
    client_seed_check(client_seed)
    if player_is_computer(player=player):
        raise PlayerError.COMPUTER_PLAYER(COMPUTER_PLAYER)
    if bots is None:
        _bot_refused(player)
    if computer_players:
        _computer_games_check(player)
    unrated = bool(computer_players) or casual
    if unrated and isinstance(options, dict) and "ante" not in options:
        options = {**options, "ante": 0}
    elif unrated and options is None:
        options = {"ante": 0}
    server_seed = dealing.new_server_seed()
    state, events = engine.decide(None, engine.CreateGame(ruleset=ruleset, seats=seats,
                                                          server_seed_hex=server_seed, options=options))
    if computer_players and state.options.ante > 0:
        raise RulesRefusal.INVALID_OPTIONS(COMPUTER_ANTE)
    if casual and state.options.ante > 0:
        raise RulesRefusal.INVALID_OPTIONS(CASUAL_ANTE)
    game = Game.objects.create(
        ruleset=ruleset, options=state.options.to_dict(), seats=seats, status=GameStatus.WAITING,
        server_seed=server_seed, server_seed_commitment=state.commitment, created_by=player,
        computers=sum(1 << seat for seat in range(1, computer_players + 1)),
        computer_level=computer_level if computer_players else "", private=private, casual=casual, bots=bots or 0,
    )
    game_context(game.pk)
    loaded = _take_seat(LoadedGame(game=game, state=state, players=(None,) * seats), events, player, client_seed)
    for computer in computer_accounts(count=computer_players):
        loaded = _take_seat(LoadedGame(game=game, state=loaded.state, players=loaded.players), [], computer, "")
    return LoadedGame(game=game, state=loaded.state, seat=0, players=loaded.players)


@transaction.atomic
def game_create_seated(*, players: list, ruleset: str, seats: int, options: dict | None = None,
                       private: bool = False, casual: bool = False) -> LoadedGame:
    """Create a game with exactly ``players`` seated, ``players[i]`` in seat i (a challenge that every
    seat accepted: goat's challenges app): the first creates it, the others take their seats in
    order, and the last seat taken deals the first round, as in any game. One transaction (a
    savepoint inside the caller's): every seat, stake and event, or nothing. Returns the game loaded
    for ``players[0]``."""
    if len(players) != seats or len({player.pk for player in players}) != seats:
        raise ValueError("game_create_seated: one distinct player per seat")
    bots = set(BotAccount.objects.filter(user_id__in=[player.pk for player in players]).values_list("user_id",
                                                                                                      flat=True))
    mask = sum(1 << seat for seat, player in enumerate(players) if player.pk in bots)
    created = game_create(player=players[0], ruleset=ruleset, seats=seats, options=options, private=private,
                          casual=casual, bots=mask)
    loaded = created
    for player in players[1:]:
        if player_is_computer(player=player):
            raise PlayerError.COMPUTER_PLAYER(COMPUTER_PLAYER)
        loaded = _take_seat(LoadedGame(game=created.game, state=loaded.state, players=loaded.players), [], player, "")
    return LoadedGame(game=created.game, state=loaded.state, seat=0, players=loaded.players)


#: the punctuation a client seed may hold besides letters, marks, digits (any script) and spaces: no
#: markup (``< > & "``), no ``|`` (the deal key's separator, docs/rules.md §3), no control or format
#: character (a right-to-left override would turn the fairness panel's text around)
CLIENT_SEED_PUNCTUATION = frozenset(" -_.,:;!?+=#@*~()[]'/")
CLIENT_SEED_CHARACTERS = gettext_lazy(
    "client_seed may hold letters, digits, spaces and the characters - _ . , : ; ! ? + = # @ * ~ ( ) [ ] ' / only.")


def client_seed_check(client_seed) -> None:
    """400 ``invalid_client_seed`` for a client seed with a character outside the documented set
    (``CLIENT_SEED_PUNCTUATION`` and letters, marks and digits); its length is the engine's rule."""
    if not isinstance(client_seed, str):
        return  # the engine refuses what is not text, with its own words
    for ch in client_seed:
        if ch not in CLIENT_SEED_PUNCTUATION and unicodedata.category(ch)[0] not in "LMN":
            raise GameError.INVALID_CLIENT_SEED(gettext(CLIENT_SEED_CHARACTERS),
                               errors={"client_seed": [gettext(CLIENT_SEED_CHARACTERS)]})


def _bot_refused(player) -> None:
    """403 ``bot_account`` for a bot's account. Its row is locked to the end of the caller's transaction
    first: an upgrade to a bot (challenges.bots.bot_upgrade) locks it too and then checks that the
    account holds no seat, so the two cannot both pass."""
    list(get_user_model()._default_manager.select_for_update(no_key=True).filter(pk=player.pk)
         .values_list("pk", flat=True))
    if player_is_bot(player=player):
        raise PlayerError.BOT_ACCOUNT(BOT_ACCOUNT)


def _computer_games_check(player) -> None:
    """409 ``too_many_computer_games`` when ``player`` already holds a seat in
    ``GOAT_COMPUTER_GAMES_PER_PLAYER`` open (waiting or running) games with a computer player. The
    player's row is locked first, so two of their requests at once cannot both take the last place."""
    limit = settings.GOAT_COMPUTER_GAMES_PER_PLAYER
    list(get_user_model()._default_manager.select_for_update().filter(pk=player.pk).values_list("pk", flat=True))
    held = Seat.objects.filter(player=player, game__computers__gt=0,
                               game__status__in=(GameStatus.WAITING, GameStatus.RUNNING)).count()
    if held >= limit:
        raise GameError.TOO_MANY_COMPUTER_GAMES(TOO_MANY_COMPUTER_GAMES.format(limit=limit))


def _computers_check(seats: int, computer_players: int, computer_level: str) -> None:
    """400 naming the field when the computers asked for do not fit the table or their level is unknown."""
    if isinstance(computer_players, bool) or not isinstance(computer_players, int) \
            or not 0 <= computer_players < max(seats, 1):
        message = f"Ensure this value is from 0 to {seats - 1} (the seats but yours)."
        raise WebError.INVALID(f"computer_players: {message}",
                           errors={"computer_players": [message]})
    if computer_level not in COMPUTER_LEVELS:
        message = f"{computer_level!r} is not a computer level; choose one of: {', '.join(COMPUTER_LEVELS)}."
        raise WebError.INVALID(f"computer_level: {message}", errors={"computer_level": [message]})


class _SeatTaken(Exception):
    """Another joiner took the seat first (the unique (game, seat) constraint refused ours)."""


def _take_seat(loaded: LoadedGame, events: list, player, client_seed: str, seat: int | None = None) -> LoadedGame:
    """Seat ``player`` at ``seat``, or the next free seat (inside the caller's transaction)."""
    game, state = loaded.game, loaded.state
    # the engine refuses a game that is not waiting (a waiting game has a free seat), a chosen seat
    # that is taken or that the game does not have ...
    state, more = _decide_or_refuse(state, engine.TakeSeat(player=player.get_username(), client_seed=client_seed,
                                                           seat=seat))
    if loaded.seat is not None:  # ... and the Seat table says who is seated (a username can change)
        raise GameError.ALREADY_SEATED(gettext(ALREADY_SEATED))
    seat: int = more[0]["seat"]
    signals.seat_taking.send(sender=Game, game=game, player=player, seat=seat, options=state.options)
    try:
        with transaction.atomic():
            Seat.objects.create(game=game, seat=seat, player=player, client_seed=client_seed)
    except IntegrityError:
        raise _SeatTaken from None
    # the seats once this commits: the append lands only on the version whose seats ``loaded`` read
    held = None if loaded.players is None else tuple(
        player.pk if taken_seat == seat else holder for taken_seat, holder in enumerate(loaded.players))
    taken, _stored = _commit(LoadedGame(game=game, state=loaded.state, seat=seat, players=held), state,
                             [*events, *more], player)
    return taken


@metrics.command_counted("join")
def game_join(*, game_id: int, player, client_seed: str = "", seat: int | None = None) -> LoadedGame:
    """Take ``seat``, or the next free seat; the last seat taken deals the first round. Returns the game
    as the joiner left it: the row, the engine state and the seat taken. A chosen seat someone holds is
    409 ``seat_taken`` (a goat-pairs table: the seat chooses the partner, docs/rules.md §12).

    Each try is one transaction (a savepoint inside a caller's): the seat row, the stake and the events
    are kept together or not at all. A joiner who loses the race for a seat (the seat's unique
    constraint, or the append's version check) tries again on the reloaded game.
    """
    client_seed_check(client_seed)
    if player_is_computer(player=player):
        raise PlayerError.COMPUTER_PLAYER(COMPUTER_PLAYER)
    for attempt in range(1, MAX_TRIES + 1):
        try:
            with transaction.atomic():
                _bot_refused(player)
                loaded = _load(game_id, player)
                if loaded.game.computers and loaded.seat is None:
                    _computer_games_check(player)
                return _take_seat(loaded, [], player, client_seed, seat)
        except (_SeatTaken, StreamConflict):
            if attempt == MAX_TRIES:
                raise GameError.GAME_FULL(GAME_FULL) from None
            metrics.APPEND_RETRIES.inc()
    raise AssertionError("unreachable")


@metrics.command_counted("leave")
def game_leave(*, game_id: int, player) -> tuple[LoadedGame, list[StoredEvent]]:
    """Leave a game that has not started: ``seat_left`` frees the seat (later seats do not move; the
    next joiner may take it), and the last player out cancels the game (``game_cancelled`` reason
    ``left``, then the seed is revealed). The seat row, the refund of the stake and the events are one
    transaction; a leave that loses a race is decided again on the reloaded game (and then finds no
    seat, or a started game: a repeat refunds nothing twice)."""
    for attempt in range(1, MAX_TRIES + 1):
        try:
            with transaction.atomic():
                loaded = _load(game_id, player)
                seat = _seat_of(loaded)
                # by the name in the events (the Seat table said whose seat it is)
                name: str = loaded.state.players[seat]  # type: ignore[assignment]
                state, events = _decide_or_refuse(loaded.state, engine.LeaveSeat(player=name))
                deleted, _ = Seat.objects.filter(game=loaded.game, seat=seat, player=player).delete()
                if not deleted:  # the same player's other leave freed it first (it waited on the row)
                    raise GameError.NOT_SEATED(gettext(NOT_SEATED))
                _release_seat(loaded.game, player, seat, loaded.state.options)
                state, events = _computers_leave_alone(loaded.game, state, events)
                # the seats once this commits: those the state still names (the computers may have left too)
                held = None if loaded.players is None else tuple(
                    holder if name is not None else None
                    for holder, name in zip(loaded.players, state.players, strict=True))
                left, stored = _commit(replace(loaded, players=held), state, events, player)
                return LoadedGame(game=left.game, state=state, seat=None, players=held), stored
        except StreamConflict:
            if attempt == MAX_TRIES:
                raise
            metrics.APPEND_RETRIES.inc()
    raise AssertionError("unreachable")


def _computers_leave_alone(game: Game, state: GameState, events: list) -> tuple[GameState, list]:
    """When only computer players are left at a waiting game, they leave too (the last one out cancels
    it, reason ``left``): nobody would come to play with them."""
    if not game.computers:
        return state, events
    taken = [seat for seat, name in enumerate(state.players) if name is not None]
    if not taken or not all(game.computer_seat(seat) for seat in taken):
        return state, events
    for seat in taken:
        state, more = engine.decide(state, engine.LeaveSeat(player=state.players[seat]))  # type: ignore[arg-type]
        events = [*events, *more]
    Seat.objects.filter(game=game, seat__in=taken).delete()
    return state, events


def _cancel(loaded: LoadedGame, reason: str) -> None:
    """Cancel ``loaded``'s game for ``reason`` (the engine's CancelGame) and return every seated
    player's stake, in the caller's transaction (StreamConflict if the game moved on)."""
    state, events = _decide_or_refuse(loaded.state, engine.CancelGame(reason=reason))
    for seat in Seat.objects.filter(game=loaded.game).select_related("player").order_by("seat"):
        _release_seat(loaded.game, seat.player, seat.seat, loaded.state.options)
    _commit(loaded, state, events, None)


def game_expire(*, game_id: int, created_before) -> bool:
    """Cancel a game still waiting for players that was created before ``created_before``
    (``game_cancelled`` reason ``expired``), returning every seated player's stake in the same
    transaction. Idempotent: a game that started, was cancelled or moved on meanwhile is left alone."""
    try:
        with transaction.atomic():
            loaded = _load(game_id)
            game = loaded.game
            if game.created_at >= created_before:
                return False
            _cancel(loaded, "expired")
    except (ServiceError, StreamConflict):  # gone, or a join/leave landed first: the next run looks again
        return False
    logger.info("game %s: cancelled, not filled in time", game_id)
    return True


def game_cancel(*, game_id: int, reason: str) -> bool:
    """Cancel a waiting or running game for ``reason`` (``tournament_cancelled``: its tournament was
    cancelled): ``game_cancelled`` then the seed's reveal, no result and so no rating points, every
    seated player's stake returned in the same transaction. A game that ended meanwhile (its last move
    landed first) is left alone: of a cancel and a game's end exactly one lands. Returns whether it
    cancelled the game."""
    for attempt in range(1, MAX_TRIES + 1):
        try:
            with transaction.atomic():
                loaded = _load(game_id)
                game = loaded.game
                if game.ended:
                    return False
                state, events = engine.decide(loaded.state, engine.CancelGame(reason=reason))
                for seat in Seat.objects.filter(game=game).select_related("player").order_by("seat"):
                    _release_seat(game, seat.player, seat.seat, loaded.state.options)
                _commit(loaded, state, events, None)
        except StreamConflict:
            if attempt == MAX_TRIES:
                raise
            continue
        logger.info("game %s: cancelled (%s)", game_id, reason)
        return True
    raise AssertionError("unreachable")


def games_expire_waiting(*, older_than: timedelta | None = None, now=None, limit: int = 500) -> int:
    """Cancel the games waiting for players longer than ``older_than`` (``GOAT_WAITING_GAME_HOURS``);
    how many were cancelled. Run by the periodic task ``goat.tasks.games_expire_waiting``."""
    if older_than is None:
        older_than = timedelta(hours=settings.GOAT_WAITING_GAME_HOURS)
    cutoff = (now or timezone.now()) - older_than
    due = list(Game.objects.waiting().filter(created_at__lt=cutoff).order_by("id")
               .values_list("pk", flat=True)[:limit])
    return sum(game_expire(game_id=game_id, created_before=cutoff) for game_id in due)


@metrics.command_counted("play_tile")
def game_play_tile(*, game_id: int, player, tile: str, end: str | None = None,
                   expected_version: int | None = None, computer: bool = False) -> tuple[LoadedGame, list[StoredEvent]]:
    """Play ``tile`` on ``end``; returns the game as it now is and every event appended (the play and
    what it forced). With ``expected_version`` the game must still be at that version (else 412).
    ``computer``: the computer player's own task moves for its seat (goat.games.computer); for anyone
    else a computer's seat is 403 ``computer_seat``."""

    def build(loaded: LoadedGame):
        return engine.PlayTile(seat=_seat_of(loaded, computer=computer), tile=tile, end=end)

    return _command_run(game_id, player, expected_version, build)


@metrics.command_counted("resign")
def game_resign(*, game_id: int, player) -> tuple[LoadedGame, list[StoredEvent]]:
    """Resign (docs/rules.md D-12: treated as a timeout of the resigning player)."""

    def build(loaded: LoadedGame):
        return engine.Resign(seat=_seat_of(loaded))

    return _command_run(game_id, player, None, build)


def game_time_out(*, game_id: int, expected_version: int, now=None) -> bool:
    """Time out the player to move if the game is still at ``expected_version`` and the deadline has passed.

    Idempotent: a repeat, a late tick or a race with a move finds another version and does nothing
    (the append names ``expected_version``, so of a move and a timeout exactly one lands).
    """
    now = now or timezone.now()
    try:
        loaded = _load(game_id)
    except ServiceError:
        return False
    game = loaded.game
    if game.version != expected_version or game.deadline is None or game.deadline > now or game.turn is None:
        return False
    seat, deadline = game.turn, game.deadline
    state, events = engine.decide(loaded.state, engine.TimeOut(seat=seat))
    try:
        _commit(loaded, state, events, None)
    except StreamConflict:
        return False
    metrics.COMMANDS.labels("time_out", "committed").inc()
    metrics.TICKER_LATENESS.observe(max(0.0, (timezone.now() - deadline).total_seconds()))
    logger.info("game %s: seat %s timed out at version %s", game_id, seat, expected_version)
    return True


def game_end_idle(*, game_id: int, idle_before) -> bool:
    """Cancel (``game_cancelled`` reason ``idle``: no result, so unrated, stakes returned; the engine's
    CancelGame, as a cancelled tournament's games) an unclocked running game with a computer player in
    which nothing was committed since ``idle_before``. Idempotent: a game that moved on (a command
    landed after ``idle_before``, or races this: the append names the version read), ended, or has a
    clock is left alone."""
    try:
        with transaction.atomic():
            loaded = _load(game_id)
            game = loaded.game
            if (game.status != GameStatus.RUNNING or not game.computers or game.options.get("move_time")
                    or game.updated_at >= idle_before):
                return False
            _cancel(loaded, "idle")
    except (ServiceError, StreamConflict):
        return False
    logger.info("game %s: cancelled, idle since before %s", game_id, idle_before.isoformat())
    return True


def games_end_idle(*, idle: timedelta | None = None, now=None, limit: int = 500) -> int:
    """Cancel the unclocked games with a computer player idle longer than ``idle``
    (``GOAT_COMPUTER_GAME_IDLE_HOURS``): how many. Run by the periodic task ``goat.tasks.games_end_idle``."""
    if idle is None:
        idle = timedelta(hours=settings.GOAT_COMPUTER_GAME_IDLE_HOURS)
    cutoff = (now or timezone.now()) - idle
    due = list(Game.objects.running().filter(computers__gt=0, deadline__isnull=True, updated_at__lt=cutoff)
               .order_by("id").values_list("pk", flat=True)[:limit])
    return sum(game_end_idle(game_id=game_id, idle_before=cutoff) for game_id in due)


def game_rebuild_read_model(*, game_id: int) -> Game:
    """Recompute the snapshot and read model of one game from its events alone.

    Optimistic like a command: the row is written only if no command moved it meanwhile (else again).
    """
    for _ in range(MAX_TRIES):
        game = _load(game_id).game
        read_version = game.version
        state = eventstore.state_rebuild(game)
        last = GameEvent.objects.filter(game=game).order_by("-seq").first()
        game.version = state.version
        game.last_hash = last.hash if last else ""
        _sync_read_model(game, state, last.at if last else timezone.now())
        fields = {name: getattr(game, name) for name in _COMMAND_FIELDS} | {"updated_at": timezone.now()}
        if Game.objects.filter(pk=game.pk, version=read_version).update(**fields):
            return game
    raise StreamConflict(int(game_id), read_version)


@transaction.atomic
def game_rematch(*, game_id: int, player) -> tuple[LoadedGame, bool]:
    """Offer a rematch of an ended game: a new game with the same ruleset, options and seats, the
    offerer in seat 0, the others told on their feeds. A repeat by any player of the old game
    returns the same new game. Returns (the new game loaded for ``player``, whether this call
    created it).

    Two offers racing are settled by the unique ``rematch_of`` column: the one that loses rolls its
    new game back and returns the winner's."""
    loaded = _load(game_id, player)
    old = loaded.game
    seat = _seat_of(loaded)
    if old.status not in PLAYED:
        raise GameError.GAME_NOT_ENDED(GAME_NOT_ENDED)
    existing = _rematch_of(old, player)
    if existing is not None and existing.status != GameStatus.CANCELLED:
        return _for_caller(existing), False
    try:
        with transaction.atomic():
            if existing is not None:  # its offer was cancelled (everyone left it): it is no rematch any more
                Game.objects.filter(pk=existing.pk, status=GameStatus.CANCELLED).update(rematch_of=None)
            offered = game_create(player=player, ruleset=old.ruleset, seats=old.seats, options=old.options,
                                  computer_players=old.computers.bit_count(),
                                  computer_level=old.computer_level or "strong")
            Game.objects.filter(pk=offered.game.pk).update(rematch_of=old)
    except IntegrityError:  # another player's offer of this rematch committed first
        return _for_caller(_rematch_of(old, player)), False
    game = offered.game
    game.rematch_of_id = old.pk
    held = loaded.players if loaded.players is not None else ()
    others = [pid for s, pid in enumerate(held) if pid is not None and s != seat and not old.computer_seat(s)]
    offer = {"game": game.pk, "from": player.get_username(), "rematch_of": old.pk}
    transaction.on_commit(lambda: notify.feed_publish(others, "rematch_offered", offer))
    return offered, True


def _rematch_of(old: Game, player) -> Game | None:
    """The rematch offered of ``old`` (None: none), with ``caller_seat``: ``player``'s seat at it (None:
    not seated), read in the same query."""
    return (Game.objects.filter(rematch_of=old)
            .annotate(caller_seat=Subquery(Seat.objects.filter(game=OuterRef("pk"), player=player)
                                           .order_by().values("seat")[:1]))
            .first())


def _for_caller(game: Game) -> LoadedGame:
    """``game`` (from ``_rematch_of``) loaded for the caller."""
    return LoadedGame(game=game, state=eventstore.state_load(game), seat=game.caller_seat)
