"""Tournament services: create, register, withdraw, start, advance (seat rounds / arena tables,
record ended games in the standings, finish and pay prizes) and the standings rebuild.

Every write takes the tournament row lock (``SELECT ... FOR UPDATE``) and checks the status first,
so the Celery jobs that call these (tournaments.tasks) can run twice or concurrently: the second
caller finds the work done. The unique constraints of tournaments.models back this up.

docs/tournaments.md describes formats, pairing, byes, tiebreaks and prizes.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import Any

from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.crypto import constant_time_compare, salted_hmac
from django.utils.translation import gettext, gettext_lazy

from goat import engine
from goat.engine.errors import InvalidOptions
from goat.engine.rulesets import is_paired
from goat.games import notify, projections, signals
from goat.games import services as games
from goat.games.models import Game
from goat.games.projections import EndedGame
from goat.live import fanout
from goat.players.services import player_is_bot, player_is_computer
from goat.web.errors import ServiceError
from goat.web.throttling import secret_attempt
from ratings.chips import chips_move
from ratings.models import ChipKind
from ratings.selectors import player_ruleset_stats

from .models import (
    Bye,
    Prize,
    Registration,
    Seating,
    Standing,
    Table,
    Tournament,
    TournamentFormat,
    TournamentRound,
    TournamentStatus,
)

logger = logging.getLogger(__name__)

#: rating points a swiss bye scores (about what a middling non-goat finish earns, docs/rules.md §9)
BYE_POINTS = 5
#: prize shares of the pool for places 1, 2, 3 (percent); what is not given goes to first place
PRIZE_SHARES = (50, 30, 20)
#: how many candidates past the first free one the swiss pairing looks at to avoid repeat opponents
PAIRING_LOOKAHEAD = 6
CENT = Decimal("0.01")
ZERO = Decimal("0.00")

TOURNAMENT_NOT_FOUND = gettext_lazy("No tournament with that id.")
TOURNAMENT_FULL = gettext_lazy("The tournament has {max_players} players already.")
REGISTRATION_CLOSED = gettext_lazy("Registration for this tournament is closed.")
ALREADY_REGISTERED = gettext_lazy("You are already registered for this tournament.")
NOT_REGISTERED = gettext_lazy("You are not registered for this tournament.")
INSUFFICIENT_CHIPS = gettext_lazy("The entry fee is {fee} chips; your balance is {balance}.")
NO_ANTE = gettext_lazy("Tournament games have no ante: the entry fee is the stake.")
#: tournaments seat players one by one; fixed pairs are a plan (docs/tournaments.md), not built
NO_PAIRS = gettext_lazy("Tournaments of goat-pairs are not offered yet: a tournament seats players, not pairs.")
COMPUTER_PLAYER = gettext_lazy("Computer players play unrated games only; they do not enter tournaments.")
INVITE_CODE_REQUIRED = gettext_lazy("This tournament is by invitation: send its invite code.")
INVITE_CODE_WRONG = gettext_lazy("That is not this tournament's invite code.")
ENTRY_MIN_GAMES = gettext_lazy(
    "min_games: this tournament needs {need} games of {ruleset}; you have played {have}.")
ENTRY_MIN_RATING = gettext_lazy(
    "min_rating: this tournament needs a {ruleset} rating of at least {need}; yours is {have}.")
ENTRY_MAX_RATING = gettext_lazy(
    "max_rating: this tournament is for a {ruleset} rating of at most {need}; yours is {have}.")
NOT_SCHEDULED = gettext_lazy("Only a scheduled tournament can be started; this one is {status}.")
TOURNAMENT_ENDED = gettext_lazy("This tournament is {status} already.")
NOT_RUNNING = gettext_lazy("Only a running tournament can be left this way; this one is {status}.")
NOT_RUNNING_SCHEDULED = ("The tournament has not started: withdraw with DELETE /api/tournaments/{id}/registration/ "
                         "(the entry fee is refunded).")
ALREADY_WITHDRAWN = gettext_lazy("{player} has withdrawn from this tournament already.")
PLAYER_NOT_REGISTERED = gettext_lazy("{player} is not registered for this tournament.")
#: the salt of the invite code digests (salted_hmac: HMAC-SHA256 under SECRET_KEY)
INVITE_CODE_SALT = "tournaments.invite_code"
#: the reason of the game_cancelled event of a tournament's games when the tournament is cancelled
CANCEL_REASON = "tournament_cancelled"


def _not_found() -> ServiceError:
    return ServiceError("not_found", TOURNAMENT_NOT_FOUND, status=404)


def _locked(tournament_id: int) -> Tournament:
    try:
        return Tournament.objects.select_for_update().get(pk=tournament_id)
    except (Tournament.DoesNotExist, ValueError, TypeError):
        raise _not_found() from None


# --- create ------------------------------------------------------------------------------------


def tournament_options(*, ruleset: str, table_size: int, options: dict | None) -> dict[str, Any]:
    """The games' options resolved for ``table_size`` seats; raises InvalidOptions (400).

    A tournament's games have no ante (its preset's ante is dropped; an explicit one is refused)."""
    options = dict(options or {})
    if is_paired(ruleset):
        raise InvalidOptions(detail=NO_PAIRS)
    if options.get("ante"):
        raise InvalidOptions(detail=NO_ANTE)
    options["ante"] = 0
    return engine.resolve_options(ruleset, table_size, options).to_dict()


def invite_code_digest(code: str) -> str:
    """The keyed digest a tournament keeps instead of its invite code (HMAC-SHA256 under SECRET_KEY)."""
    return salted_hmac(INVITE_CODE_SALT, code, algorithm="sha256").hexdigest()


@transaction.atomic
def tournament_create(*, created_by, name: str, ruleset: str, format: str, table_size: int, starts_at: datetime,
                      max_players: int, options: dict | None = None, rounds: int = 0, duration_minutes: int = 0,
                      entry_fee: int = 0, entry: dict | None = None, schedule=None) -> Tournament:
    """Schedule a tournament. ``entry`` holds the optional entry conditions ``min_games``, ``min_rating``,
    ``max_rating`` and ``invite_code`` (only its digest is kept; a schedule's template holds the digest
    as ``invite_code_digest``). ``schedule``: the schedule whose occurrence this is."""
    resolved = tournament_options(ruleset=ruleset, table_size=table_size, options=options)
    entry = entry or {}
    code = entry.get("invite_code")
    digest = invite_code_digest(code) if code else entry.get("invite_code_digest") or ""
    return Tournament.objects.create(schedule=schedule,
        name=name, ruleset=ruleset, options=resolved, format=format,
        rounds=rounds if format == TournamentFormat.SWISS else 0, table_size=table_size, starts_at=starts_at,
        duration_minutes=duration_minutes, max_players=max_players, entry_fee=entry_fee, created_by=created_by,
        entry_min_games=entry.get("min_games"), entry_min_rating=entry.get("min_rating"),
        entry_max_rating=entry.get("max_rating"), invite_code_digest=digest,
    )


# --- live: "tournament T changed" -------------------------------------------------------------


def tournament_channel(tournament_id: int) -> str:
    """The live channel of a tournament's streams (tournaments.streams)."""
    return f"tournament:{tournament_id}"


def tournament_changed(*, tournament_id: int) -> None:
    """Tell the tournament's live streams that it changed (a table started or ended, the standings
    moved, a round, the start or the finish, an organiser's action), once the transaction that
    changed it commits (at once outside one). Every service that changes a tournament calls this;
    each stream then reads the tournament again and sends it if it differs from what it last sent."""
    transaction.on_commit(lambda: fanout.publish(tournament_channel(tournament_id), {"changed": True}))


# --- registration and chips --------------------------------------------------------------------


def registration_open(tournament: Tournament, now: datetime | None = None) -> bool:
    """Swiss: until the start. Arena: also while it runs, until its end time (late entries wait for a table)."""
    if tournament.status == TournamentStatus.SCHEDULED:
        return True
    if tournament.status == TournamentStatus.RUNNING and tournament.format == TournamentFormat.ARENA:
        return (now or timezone.now()) < tournament.ends_at
    return False


def _invite_code_check(tournament: Tournament, player, invite_code: str) -> None:
    """403 ``invite_code_wrong`` unless ``invite_code`` is the tournament's. Wrong codes are throttled
    per player (rate ``invite_player``) and per tournament (``invite_tournament``) so that they hold the
    guesser and never the tournament's rightful entrants: past the tournament's rate, a player who has
    not tried a wrong code here still has one attempt (goat.web.throttling.secret_attempt). The counts
    are outside the database transaction: a refusal's rollback keeps them."""
    right = constant_time_compare(invite_code_digest(invite_code), tournament.invite_code_digest)
    secret_attempt(guesser=("invite_player", str(player.pk)), target=("invite_tournament", str(tournament.pk)),
                   right=right)
    if not right:
        raise ServiceError("invite_code_wrong", INVITE_CODE_WRONG, status=403)


def entry_check(tournament: Tournament, player, invite_code: str | None) -> None:
    """The entry conditions (docs/tournaments.md): the invite code first (403
    ``invite_code_required`` / ``invite_code_wrong``, compared as digests in constant time; wrong codes
    throttled: ``_invite_code_check``), then games
    and rating on the tournament ruleset's all-time board (422 ``entry_condition_not_met`` naming it)."""
    if tournament.invite_code_digest:
        if not invite_code:
            raise ServiceError("invite_code_required", INVITE_CODE_REQUIRED, status=403)
        _invite_code_check(tournament, player, invite_code)
    conditions = (tournament.entry_min_games, tournament.entry_min_rating, tournament.entry_max_rating)
    if all(c is None for c in conditions):
        return
    stats = player_ruleset_stats(player=player, ruleset=tournament.ruleset)
    if tournament.entry_min_games is not None and stats["games"] < tournament.entry_min_games:
        raise ServiceError("entry_condition_not_met", ENTRY_MIN_GAMES.format(
            need=tournament.entry_min_games, ruleset=tournament.ruleset, have=stats["games"]))
    if tournament.entry_min_rating is not None and stats["rating"] < tournament.entry_min_rating:
        raise ServiceError("entry_condition_not_met", ENTRY_MIN_RATING.format(
            need=tournament.entry_min_rating, ruleset=tournament.ruleset, have=stats["rating"]))
    if tournament.entry_max_rating is not None and stats["rating"] > tournament.entry_max_rating:
        raise ServiceError("entry_condition_not_met", ENTRY_MAX_RATING.format(
            need=tournament.entry_max_rating, ruleset=tournament.ruleset, have=stats["rating"]))


@transaction.atomic
def tournament_register(*, tournament_id: int, player, now: datetime | None = None,
                        invite_code: str | None = None) -> Registration:
    now = now or timezone.now()
    if player_is_computer(player=player):  # computer players play unrated games only
        raise ServiceError("computer_player", COMPUTER_PLAYER, status=403)
    if player_is_bot(player=player):  # a bot plays through challenges only
        raise ServiceError("bot_account", games.BOT_ACCOUNT, status=403)
    tournament = _locked(tournament_id)
    if not registration_open(tournament, now):
        raise ServiceError("registration_closed", REGISTRATION_CLOSED)
    if Registration.objects.filter(tournament=tournament, player=player).exists():
        raise ServiceError("already_registered", ALREADY_REGISTERED, status=409)
    entry_check(tournament, player, invite_code)
    if Registration.objects.filter(tournament=tournament).count() >= tournament.max_players:
        raise ServiceError("tournament_full", TOURNAMENT_FULL.format(max_players=tournament.max_players))
    fee = tournament.entry_fee
    if fee > 0:  # through ratings' public chip service (the account lock, the balance check, the ledger)
        chips_move(player=player, amount=-fee, kind=ChipKind.ENTRY_FEE, at=now, refusal=INSUFFICIENT_CHIPS)
        Tournament.objects.filter(pk=tournament.pk).update(prize_pool=F("prize_pool") + fee)
    registration = Registration.objects.create(tournament=tournament, player=player, registered_at=now, fee_paid=fee)
    if tournament.status == TournamentStatus.RUNNING:  # a late arena entry gets a line at once
        _standings_add(tournament, [registration])
        _rank(tournament)
        _arena_seat(tournament, now)
    tournament_changed(tournament_id=tournament.pk)
    return registration


@transaction.atomic
def tournament_withdraw(*, tournament_id: int, player, now: datetime | None = None) -> None:
    """Withdraw before the start (DELETE registration); the entry fee is refunded."""
    now = now or timezone.now()
    tournament = _locked(tournament_id)
    registration = Registration.objects.filter(tournament=tournament, player=player).first()
    if registration is None:
        raise ServiceError("not_registered", NOT_REGISTERED, status=404)
    if tournament.status != TournamentStatus.SCHEDULED:
        raise ServiceError("registration_closed", REGISTRATION_CLOSED)
    if registration.fee_paid > 0:
        chips_move(player=player, amount=registration.fee_paid, kind=ChipKind.ENTRY_REFUND, at=now)
        Tournament.objects.filter(pk=tournament.pk).update(prize_pool=F("prize_pool") - registration.fee_paid)
    registration.delete()
    tournament_changed(tournament_id=tournament.pk)


# --- tables ------------------------------------------------------------------------------------


def table_sizes(players: int, table_size: int) -> list[int]:
    """Split ``players`` into as few tables of at most ``table_size`` as possible, as evenly as possible
    (sizes differ by at most one; larger tables first). A "table" of 1 is a bye (at most one)."""
    if players <= 0:
        return []
    tables = -(-players // table_size)
    base, extra = divmod(players, tables)
    return [base + 1] * extra + [base] * (tables - extra)


def _open_table(tournament: Tournament, round_: TournamentRound | None, number: int, players: Sequence,
                now: datetime) -> Table:
    """Create the table's game with the tournament's options and seat ``players`` in order (the game
    starts when the last one sits down)."""
    first, *others = players
    game = games.game_create(player=first, ruleset=tournament.ruleset, seats=len(players),
                             options=tournament.options).game
    for player in others:
        games.game_join(game_id=game.pk, player=player)
    table = Table.objects.create(tournament=tournament, round=round_, number=number, game=game, created_at=now)
    Seating.objects.bulk_create([Seating(tournament=tournament, round=round_, table=table, player=p, seat=i)
                                 for i, p in enumerate(players)])
    seated = {"tournament": tournament.pk, "game": game.pk}
    transaction.on_commit(lambda: notify.feed_publish([p.pk for p in players], "tournament_table", seated))
    return table


def _opponents(tournament: Tournament) -> dict[int, set[int]]:
    """Player id -> ids of everyone they already sat with in this tournament."""
    by_table: dict[int, list[int]] = defaultdict(list)
    for table_id, player_id in Seating.objects.filter(tournament=tournament).values_list("table_id", "player_id"):
        by_table[table_id].append(player_id)
    met: dict[int, set[int]] = defaultdict(set)
    for players in by_table.values():
        for p in players:
            met[p].update(q for q in players if q != p)
    return met


def swiss_pairing(order: Sequence[int], sizes: Sequence[int], met: dict[int, set[int]],
                  lookahead: int = PAIRING_LOOKAHEAD) -> list[list[int]]:
    """Fill tables in standings order: each table takes the best-placed free player, then, seat by seat,
    the free player among the next ``lookahead + 1`` who has met the fewest of those already seated
    (ties: the better placed). Neighbours in the standings meet, repeats are avoided where the
    window allows."""
    free = list(order)
    tables = []
    for size in sizes:
        table = [free.pop(0)]
        while len(table) < size:
            window = free[:lookahead + 1]
            best = min(window, key=lambda p: (sum(q in met.get(p, ()) for q in table), window.index(p)))
            free.remove(best)
            table.append(best)
        tables.append(table)
    return tables


def _start_swiss_round(tournament: Tournament, number: int, now: datetime) -> TournamentRound:
    round_ = TournamentRound.objects.create(tournament=tournament, number=number, started_at=now)
    standings = list(Standing.objects.filter(tournament=tournament, withdrawn=False).order_by("rank")
                     .select_related("player"))  # a withdrawn player is seated no more
    players = {s.player_id: s.player for s in standings}
    order = [s.player_id for s in standings]
    sizes = table_sizes(len(order), tournament.table_size)
    if sizes and sizes[-1] == 1:
        # The bye goes to the lowest-placed player who has had none yet (else the lowest-placed).
        had = set(Bye.objects.filter(tournament=tournament).values_list("player_id", flat=True))
        byed = next((p for p in reversed(order) if p not in had), order[-1])
        order.remove(byed)
        sizes = sizes[:-1]
        Bye.objects.create(tournament=tournament, round=round_, player=players[byed], points=BYE_POINTS)
        Standing.objects.filter(tournament=tournament, player_id=byed).update(
            points=F("points") + BYE_POINTS, byes=F("byes") + 1)
    for number_, table in enumerate(swiss_pairing(order, sizes, _opponents(tournament)), start=1):
        _open_table(tournament, round_, number_, [players[p] for p in table], now)
    logger.info("tournament %s: round %s seated %s tables", tournament.pk, number, len(sizes))
    return round_


def _arena_waiting(tournament: Tournament) -> list:
    """Registered players without an active seat, longest waiting first (registration or last release)."""
    seated = set(Seating.objects.filter(tournament=tournament, active=True).values_list("player_id", flat=True))
    released: dict[int, datetime] = {}
    for player_id, at in (Seating.objects.filter(tournament=tournament, active=False)
                          .values_list("player_id", "released_at")):
        if at is not None and (player_id not in released or at > released[player_id]):
            released[player_id] = at
    registrations = [r for r in Registration.objects.filter(tournament=tournament, withdrawn_at__isnull=True)
                     .select_related("player").order_by("registered_at", "id") if r.player_id not in seated]
    registrations.sort(key=lambda r: (released.get(r.player_id, r.registered_at), r.registered_at, r.id))
    return [r.player for r in registrations]


def _arena_seat(tournament: Tournament, now: datetime) -> int:
    waiting = _arena_waiting(tournament)
    size = tournament.table_size
    number = (Table.objects.filter(tournament=tournament).order_by("-number").values_list("number", flat=True)
              .first() or 0)
    opened = 0
    while len(waiting) >= size:
        group, waiting = waiting[:size], waiting[size:]
        number += 1
        _open_table(tournament, None, number, group, now)
        opened += 1
    return opened


# --- standings ---------------------------------------------------------------------------------


def _standings_add(tournament: Tournament, registrations: Iterable[Registration]) -> None:
    base = Registration.objects.filter(tournament=tournament).order_by("registered_at", "id")
    order = {pk: i for i, pk in enumerate(base.values_list("pk", flat=True), start=1)}
    Standing.objects.bulk_create([
        Standing(tournament=tournament, player=r.player, username=r.player.get_username(),
                 registration_order=order[r.pk], withdrawn=r.withdrawn_at is not None) for r in registrations
    ])


def standings_key(s: Standing) -> tuple:
    """Rating points (more is better), then fewer goats, higher opponents_points, lower total game points,
    earlier registration (docs/tournaments.md)."""
    return (-s.points, s.goats, -s.opponents_points, s.game_points, s.registration_order)


def opponents_points(*, points: dict[int, int], tables: Iterable[Sequence[int]]) -> dict[int, Decimal]:
    """Buchholz for tables: for each player, over their ``tables`` (the player ids at each recorded
    table), Σ the mean of the others' standings ``points``; rounded half up to two places.

    With 1 to 3 others at a table every term is a multiple of 1/6, so two sums that differ differ by
    at least 1/6 and the rounded values order the players exactly as the exact ones would."""
    exact: dict[int, Fraction] = defaultdict(Fraction)
    for players in tables:
        for p in players:
            others = [points.get(q, 0) for q in players if q != p]
            if others:
                exact[p] += Fraction(sum(others), len(others))
    return {p: (Decimal(v.numerator) / Decimal(v.denominator)).quantize(CENT, rounding=ROUND_HALF_UP)
            for p, v in exact.items()}


def _rank(tournament: Tournament) -> None:
    """Recompute every line's opponents_points (from the lines' points and the recorded tables) and rank.
    The live projection and the rebuild both end here, so both compute the tiebreak the same way."""
    rows = list(Standing.objects.filter(tournament=tournament))
    by_table: dict[int, list[int]] = defaultdict(list)
    for table_id, player_id in (Seating.objects.filter(tournament=tournament, table__recorded_at__isnull=False)
                                .values_list("table_id", "player_id")):
        by_table[table_id].append(player_id)
    buchholz = opponents_points(points={r.player_id: r.points for r in rows}, tables=by_table.values())
    changed: dict[int, Standing] = {}
    for row in rows:
        value = buchholz.get(row.player_id, ZERO)
        if row.opponents_points != value:
            row.opponents_points = value
            changed[row.pk] = row
    rows.sort(key=standings_key)
    for rank, row in enumerate(rows, start=1):
        if row.rank != rank:
            row.rank = rank
            changed[row.pk] = row
    Standing.objects.bulk_update(list(changed.values()), ["rank", "opponents_points"])


STANDINGS = "tournaments.standings"


def table_outcome(ended: EndedGame) -> list[tuple[int, int, bool, int]]:
    """Per seat of an ended game: ``(player id, rating points, goat, game points)``."""
    result, state = ended.state.result, ended.state
    goats = set(result.goats)
    return [(ended.players[seat].pk, result.rating_points[seat], seat in goats, state.points[seat])
            for seat in range(state.seats)]


def _apply_outcome(tournament: Tournament, outcome) -> None:
    for player_id, points, goat, game_points in outcome:
        Standing.objects.filter(tournament=tournament, player_id=player_id).update(
            points=F("points") + points, games=F("games") + 1, goats=F("goats") + int(goat),
            game_points=F("game_points") + game_points)


def standings_project(ended: EndedGame) -> None:
    """Projection ``tournaments.standings``: count a tournament table's ended game in the standings and
    free its players (under the tournament's lock, which every standings writer takes), then advance
    the tournament on commit (seat the next round or waiting players, or finish)."""
    table = Table.objects.filter(game_id=ended.game.pk).first() if ended.game.rated else None
    if table is None:  # not a tournament table (a game with a computer player never is one)
        return
    tournament = _locked(table.tournament_id)
    outcome = table_outcome(ended)
    _apply_outcome(tournament, outcome)
    table.recorded_at = timezone.now()
    table.save(update_fields=["recorded_at"])
    Seating.objects.filter(table=table).update(active=False, released_at=ended.game.ended_at)
    for player_id, points, goat, game_points in outcome:
        Seating.objects.filter(table=table, player_id=player_id).update(
            rating_points=points, goat=goat, game_points=game_points)
    _rank(tournament)
    tournament_changed(tournament_id=tournament.pk)
    transaction.on_commit(lambda: _queue_advance(tournament.pk))


#: looked up by name in the Celery app's registry: the tasks module imports this one, not the other way round
ADVANCE_TASK = "tournaments.tasks.tournament_advance"


def _queue_advance(tournament_id: int) -> None:
    from kombu.exceptions import OperationalError as BrokerError

    from goat.celery import app

    try:
        app.tasks[ADVANCE_TASK].delay(tournament_id)
    except BrokerError:  # the periodic tournaments_arena_tick advances every running tournament
        logger.exception("tournaments: could not queue tournament_advance for tournament %s", tournament_id)


def tournaments_register() -> None:
    """Register the standings projection and connect the feed's catch-up of tables (TournamentsConfig.ready)."""
    projections.register(STANDINGS, standings_project, order=50)
    signals.feed_catch_up.connect(tournament_tables_owed, sender=Game, dispatch_uid="tournaments_tables_owed")


def tournament_tables_owed(*, user, since: datetime, limit: int = 200, **_signal) -> list[dict[str, Any]]:
    """The ``tournament_table`` feed messages of the tables ``user`` was seated at since ``since``
    (a feed that missed them catches up: a receiver of goat.games.signals.feed_catch_up)."""
    tables = (Table.objects.filter(seatings__player=user, created_at__gte=since).order_by("-id")
              .values("tournament_id", "game_id")[:limit])
    return [notify.feed_message("tournament_table", {"tournament": t["tournament_id"], "game": t["game_id"]})
            for t in tables]


def _record_ended_tables(tournament: Tournament, now: datetime) -> int:
    """Count every ended table that the standings projection has not counted yet (the caller holds
    the lock): the projection itself, tracked, so a table is counted once whoever gets there first."""
    tables = list(Table.objects.filter(tournament=tournament, recorded_at__isnull=True, game__ended_at__isnull=False)
                  .order_by("game__ended_at", "id").values_list("game_id", flat=True))
    return sum(projections.projection_apply(name=STANDINGS, game_id=game_id) for game_id in tables)


@transaction.atomic
def standings_rebuild(*, tournament_id: int) -> int:
    """Recompute the standings of a tournament from its registrations, byes and ended tables alone: the
    standings projection runs again on every ended table (its tracking rows forgotten first)."""
    tournament = _locked(tournament_id)
    Standing.objects.filter(tournament=tournament).delete()
    if tournament.started_at is None:  # scheduled, or cancelled before the start: no lines
        return 0
    _standings_add(tournament, Registration.objects.filter(tournament=tournament).select_related("player"))
    for bye in Bye.objects.filter(tournament=tournament):
        Standing.objects.filter(tournament=tournament, player_id=bye.player_id).update(
            points=F("points") + bye.points, byes=F("byes") + 1)
    games_ = list(Table.objects.filter(tournament=tournament, game__ended_at__isnull=False)
                  .order_by("game__ended_at", "id").values_list("game_id", flat=True))
    projections.projection_records_forget(names=[STANDINGS], game_ids=games_)
    for game_id in games_:
        projections.projection_apply(name=STANDINGS, game_id=game_id)
    _rank(tournament)
    tournament_changed(tournament_id=tournament.pk)
    return Standing.objects.filter(tournament=tournament).count()


# --- start, advance, finish --------------------------------------------------------------------


@transaction.atomic
def tournament_start(*, tournament_id: int, now: datetime | None = None) -> bool:
    """Start a scheduled tournament whose time has come (a no-op otherwise): standings lines for every
    registered player, then the first round (swiss) or the first tables (arena)."""
    now = now or timezone.now()
    tournament = _locked(tournament_id)
    if tournament.status != TournamentStatus.SCHEDULED or tournament.starts_at > now:
        return False
    _start_locked(tournament, now)
    return True


@transaction.atomic
def tournament_start_now(*, tournament_id: int, now: datetime | None = None) -> Tournament:
    """Staff: start a scheduled tournament now, as its scheduled start would (``starts_at`` keeps the
    announced time; ``started_at`` says when it started). 409 ``tournament_not_scheduled`` otherwise."""
    now = now or timezone.now()
    tournament = _locked(tournament_id)
    if tournament.status != TournamentStatus.SCHEDULED:
        raise ServiceError("tournament_not_scheduled", NOT_SCHEDULED.format(status=tournament.status), status=409)
    _start_locked(tournament, now)  # which tells the tournament's streams
    return tournament


def _start_locked(tournament: Tournament, now: datetime) -> None:
    tournament.status = TournamentStatus.RUNNING
    tournament.started_at = now
    tournament.save(update_fields=["status", "started_at"])
    _standings_add(tournament, Registration.objects.filter(tournament=tournament).select_related("player"))
    _rank(tournament)
    logger.info("tournament %s started", tournament.pk)
    _advance_locked(tournament, now)
    tournament_changed(tournament_id=tournament.pk)


def tournaments_start_due(*, now: datetime | None = None) -> list[int]:
    """Start every scheduled tournament whose ``starts_at`` has passed; returns the ids started."""
    now = now or timezone.now()
    due = Tournament.objects.filter(status=TournamentStatus.SCHEDULED, starts_at__lte=now).values_list("pk", flat=True)
    return [pk for pk in list(due) if tournament_start(tournament_id=pk, now=now)]


@transaction.atomic
def tournament_advance(*, tournament_id: int, now: datetime | None = None) -> bool:
    """Record ended games; start the next swiss round when every table of the round has ended, seat
    waiting arena players; finish the tournament when it is over. Idempotent. Returns whether the
    tournament is (now) finished."""
    now = now or timezone.now()
    try:
        tournament = _locked(tournament_id)
    except ServiceError:
        return False
    if tournament.status != TournamentStatus.RUNNING:
        return tournament.status == TournamentStatus.FINISHED
    tournament_changed(tournament_id=tournament.pk)
    return _advance_locked(tournament, now)


def _advance_locked(tournament: Tournament, now: datetime) -> bool:
    _record_ended_tables(tournament, now)
    if tournament.format == TournamentFormat.SWISS:
        while True:
            current = TournamentRound.objects.filter(tournament=tournament).order_by("-number").first()
            if current is not None:
                if Table.objects.filter(round=current, recorded_at__isnull=True).exists():
                    break
                if current.finished_at is None:
                    current.finished_at = now
                    current.save(update_fields=["finished_at"])
                _rank(tournament)
            number = current.number if current else 0
            if number >= tournament.rounds or not Standing.objects.filter(tournament=tournament,
                                                                           withdrawn=False).exists():
                _finish(tournament, now)
                break
            _start_swiss_round(tournament, number + 1, now)
    else:
        if now < tournament.ends_at:
            _arena_seat(tournament, now)
        elif not Table.objects.filter(tournament=tournament, recorded_at__isnull=True).exists():
            _finish(tournament, now)
    _rank(tournament)
    return tournament.status == TournamentStatus.FINISHED


def prize_amounts(pool: int, places: int) -> list[int]:
    """Shares of ``pool`` for the first ``min(places, 3)`` places: 50/30/20 % rounded down; whatever is
    left (rounding, and the shares of places nobody holds) goes to first place."""
    shares = [pool * pct // 100 for pct in PRIZE_SHARES[:max(0, min(places, len(PRIZE_SHARES)))]]
    if shares:
        shares[0] += pool - sum(shares)
    return shares


def _finish(tournament: Tournament, now: datetime) -> None:
    _rank(tournament)
    tournament.status = TournamentStatus.FINISHED
    tournament.finished_at = now
    fields = ["status", "finished_at"]
    if tournament.prizes_paid_at is None:
        top = list(Standing.objects.filter(tournament=tournament).order_by("rank").select_related("player")[:3])
        amounts = prize_amounts(tournament.prize_pool, len(top))
        winners = sorted(zip(top, amounts, strict=True), key=lambda pair: pair[0].player_id)  # lock order: player id
        for standing, amount in winners:
            Prize.objects.create(tournament=tournament, player=standing.player, place=standing.rank, amount=amount)
            if amount > 0:
                chips_move(player=standing.player, amount=amount, kind=ChipKind.PRIZE, at=now)
        tournament.prizes_paid_at = now
        fields.append("prizes_paid_at")
    tournament.save(update_fields=fields)
    logger.info("tournament %s finished", tournament.pk)


# --- organiser actions: cancel, withdraw a player ----------------------------------------------------


@transaction.atomic
def tournament_cancel(*, tournament_id: int, reason: str, now: datetime | None = None) -> Tournament:
    """Staff: cancel a scheduled or running tournament. Status ``cancelled`` with the reason; every
    entry fee paid is refunded (``entry_refund``, the pool emptied); every game still waiting or
    running is cancelled (``game_cancelled`` reason ``tournament_cancelled``: no rating points, stakes
    back); games already ended keep their rating points (a game that ended but is not recorded yet is
    recorded); no prizes. 409 ``tournament_ended`` once finished or cancelled.

    Under the tournament lock, so it runs once; a game's last move racing the cancel either lands
    first (the game ends and counts) or finds the game cancelled (``game_cancel`` appends with the
    version it read): exactly one of the two."""
    now = now or timezone.now()
    tournament = _locked(tournament_id)
    if tournament.status not in (TournamentStatus.SCHEDULED, TournamentStatus.RUNNING):
        raise ServiceError("tournament_ended", TOURNAMENT_ENDED.format(status=tournament.status), status=409)
    for game_id in (Table.objects.filter(tournament=tournament, game__ended_at__isnull=True)
                    .order_by("id").values_list("game_id", flat=True)):
        games.game_cancel(game_id=game_id, reason=CANCEL_REASON)
    if tournament.status == TournamentStatus.RUNNING:
        _record_ended_tables(tournament, now)  # ended before the cancel: they count
    refunds = Registration.objects.filter(tournament=tournament, fee_paid__gt=0).select_related("player")
    refunded = 0
    for registration in sorted(refunds, key=lambda r: r.player_id):  # lock order: player id
        chips_move(player=registration.player, amount=registration.fee_paid, kind=ChipKind.ENTRY_REFUND, at=now)
        refunded += registration.fee_paid
    Seating.objects.filter(tournament=tournament, active=True).update(active=False, released_at=now)
    TournamentRound.objects.filter(tournament=tournament, finished_at__isnull=True).update(finished_at=now)
    tournament.refresh_from_db(fields=["prize_pool"])
    tournament.prize_pool -= refunded
    tournament.status = TournamentStatus.CANCELLED
    tournament.cancelled_at = now
    tournament.cancel_reason = reason
    tournament.save(update_fields=["prize_pool", "status", "cancelled_at", "cancel_reason"])
    logger.info("tournament %s cancelled: %s", tournament.pk, reason)
    tournament_changed(tournament_id=tournament.pk)
    return tournament


@transaction.atomic
def tournament_withdraw_running(*, tournament_id: int, player, by, now: datetime | None = None) -> Registration:
    """Withdraw ``player`` from a running tournament (``by`` the player themself or staff). A seat in a
    running game resigns it (docs/rules.md D-12); they are seated no more (swiss rounds, arena tables);
    their standings line stays, marked withdrawn; the entry fee is not refunded. 409
    ``tournament_not_running`` before the start or after the end, ``already_withdrawn`` the second time;
    404 ``not_registered``.

    Under the tournament lock, as advance: a withdrawal and the seating of the next round are ordered,
    so the player is either not seated or seated and then resigned. The resignation is a game command
    like any: if the game's last move lands first the game ends normally and counts."""
    now = now or timezone.now()
    tournament = _locked(tournament_id)
    registration = Registration.objects.filter(tournament=tournament, player=player).first()
    if registration is None:
        detail = (gettext("You are not registered for this tournament.") if by == player else
                  gettext("%(player)s is not registered for this tournament.") % {"player": player.get_username()})
        raise ServiceError("not_registered", detail, status=404)
    if tournament.status == TournamentStatus.SCHEDULED:
        raise ServiceError("tournament_not_running", NOT_RUNNING_SCHEDULED.replace("{id}", str(tournament.pk)),
                           status=409)
    if tournament.status != TournamentStatus.RUNNING:
        raise ServiceError("tournament_not_running", NOT_RUNNING.format(status=tournament.status), status=409)
    if registration.withdrawn_at is not None:
        raise ServiceError("already_withdrawn", ALREADY_WITHDRAWN.format(player=player.get_username()), status=409)
    registration.withdrawn_at = now
    registration.withdrawn_by = by
    registration.save(update_fields=["withdrawn_at", "withdrawn_by"])
    Standing.objects.filter(tournament=tournament, player=player).update(withdrawn=True)
    seating = (Seating.objects.filter(tournament=tournament, player=player, active=True)
               .select_related("table__game").first())
    if seating is not None and not seating.table.game.ended:
        try:
            games.game_resign(game_id=seating.table.game_id, player=player)
        except ServiceError as exc:  # the game ended meanwhile: its result stands
            if exc.code != "game_not_running":
                raise
    logger.info("tournament %s: player %s withdrawn", tournament.pk, player.pk)
    _advance_locked(tournament, now)  # an arena or swiss left without enough players moves on
    tournament_changed(tournament_id=tournament.pk)
    return registration


def tournaments_tick(*, now: datetime | None = None) -> int:
    """Advance every running tournament (arena: seat waiting players, finish after the end time; swiss:
    a safety net for a lost advance task). Returns how many finished."""
    running = list(Tournament.objects.filter(status=TournamentStatus.RUNNING).values_list("pk", flat=True))
    return sum(tournament_advance(tournament_id=pk, now=now) for pk in running)
