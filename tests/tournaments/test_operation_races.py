"""The organiser's actions racing the tournament's own life, from threads (on PostgreSQL in CI's second
pass): a withdrawal against the advance that seats the next round, a cancel against a game's end, two
cancels, two withdrawals. Exactly one outcome each time; nothing paid twice; chips conserved."""

from __future__ import annotations

import random
import threading

import pytest
from django.db import close_old_connections, connection
from tournament_helpers import chips_granted, chips_total, play_out

from goat import engine
from goat.engine.tiles import tile_str
from goat.games import services as games
from goat.games.eventstore import state_load
from goat.games.models import Game
from goat.web.errors import ServiceError
from ratings.models import ChipKind, ChipLedgerEntry, RatingEntry
from tournaments import services
from tournaments.models import Bye, Seating, Standing, Table, TournamentRound

pytestmark = [pytest.mark.database, pytest.mark.django_db(transaction=True)]


def race(*fns) -> list:
    """Run each function in its own thread, started together; returns each one's value or its ServiceError."""
    barrier = threading.Barrier(len(fns))
    results: list = [None] * len(fns)
    errors: list = []

    def run(i, fn):
        try:
            barrier.wait()
            results[i] = fn()
        except ServiceError as exc:
            results[i] = exc
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            close_old_connections()
            connection.close()

    threads = [threading.Thread(target=run, args=(i, fn)) for i, fn in enumerate(fns)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    return results


def started(make_tournament, players, **kwargs):
    tournament = make_tournament(**kwargs)
    for p in players:
        services.tournament_register(tournament_id=tournament.pk, player=p)
    services.tournaments_start_due()
    return tournament


@pytest.mark.parametrize("seed", [1, 2])
def test_withdraw_against_the_advance_that_seats_the_next_round(bots, make_tournament, monkeypatch, seed):
    monkeypatch.setattr(services.live, "queue_advance", lambda tournament_id: None)  # the test advances itself
    players = bots(4)
    quitter = players[seed]
    tournament = started(make_tournament, players, table_size=2, rounds=2, entry_fee=10)
    rng = random.Random(seed)
    for table in Table.objects.filter(tournament=tournament):
        play_out(table.game_id, rng)
    assert TournamentRound.objects.filter(tournament=tournament).count() == 1

    withdrawn, _ = race(
        lambda: services.tournament_withdraw_running(tournament_id=tournament.pk, player=quitter, by=quitter),
        lambda: services.tournament_advance(tournament_id=tournament.pk),
    )
    assert not isinstance(withdrawn, ServiceError), withdrawn
    assert TournamentRound.objects.filter(tournament=tournament).count() == 2
    second = Seating.objects.filter(tournament=tournament, round__number=2, player=quitter).select_related("table")
    if second.exists():  # the round was seated first: the quitter's game was then resigned
        game = second.get().table.game
        seat = second.get().seat
        assert game.status == "interrupted" and game.result["reason"] == "resigned"
        assert game.result["goats"] == [seat]
        assert Table.objects.filter(round__number=2).count() == 2 and not Bye.objects.exists()
    else:  # the withdrawal came first: three players, one table and a bye (never to the quitter)
        assert Table.objects.filter(round__number=2).count() == 1
        assert Bye.objects.get().player != quitter
    assert not Game.objects.filter(tournament_table__tournament=tournament, seat_set__player=quitter,
                                   status="running").exists()
    assert Standing.objects.get(tournament=tournament, player=quitter).withdrawn
    assert Seating.objects.filter(tournament=tournament, round__number=2).count() + Bye.objects.count() == 4 - (
        0 if second.exists() else 1)
    assert chips_total() == chips_granted()


@pytest.mark.parametrize("seed", [3, 4])
def test_cancel_against_a_games_end(bots, make_tournament, seed):
    players = bots(2)
    tournament = started(make_tournament, players, table_size=2, rounds=2, entry_fee=25)
    table = Table.objects.get(tournament=tournament)
    rng = random.Random(seed)
    for _ in range(3):  # a few moves in, then the race
        game = Game.objects.get(pk=table.game_id)
        state = state_load(game)
        tile, end = rng.choice(engine.legal_moves(state))
        games.game_play_tile(game_id=game.pk, player=players[0] if state.turn == 0 else players[1],
                             tile=tile_str(tile), end=end)
    resigner = table.seatings.get(seat=0).player

    cancelled, resigned = race(
        lambda: services.tournament_cancel(tournament_id=tournament.pk, reason="race"),
        lambda: games.game_resign(game_id=table.game_id, player=resigner),
    )
    assert not isinstance(cancelled, ServiceError), cancelled
    game = Game.objects.get(pk=table.game_id)
    table.refresh_from_db()
    if isinstance(resigned, ServiceError):  # the cancel came first
        assert resigned.code == "game_not_running"
        assert game.status == "cancelled" and game.result is None
        assert not RatingEntry.objects.filter(game=game).exists() and table.recorded_at is None
    else:  # the game ended first: it keeps its rating points and counts in the standings
        assert game.status == "interrupted" and game.result["reason"] == "resigned"
        assert RatingEntry.objects.filter(game=game).count() == 2 and table.recorded_at is not None
        assert Standing.objects.filter(tournament=tournament, games=1).count() == 2
    assert ChipLedgerEntry.objects.filter(kind=ChipKind.ENTRY_REFUND).count() == 2  # each fee back, once
    assert not ChipLedgerEntry.objects.filter(kind=ChipKind.PRIZE).exists()
    tournament.refresh_from_db()
    assert tournament.status == "cancelled" and tournament.prize_pool == 0
    # Either serial order is valid: the cancel first (nothing more is seated), or the game's end first,
    # whose projection may seat round 2 before the cancel commits; the cancel then cancels that round's
    # games. A round seated after the cancel would leave a game waiting or running.
    rounds = TournamentRound.objects.filter(tournament=tournament).count()
    assert rounds == 1 or (rounds == 2 and not isinstance(resigned, ServiceError)), rounds
    later = Game.objects.filter(tournament_table__tournament=tournament, tournament_table__round__number=2)
    assert all(g.status == "cancelled" and g.result is None for g in later), [(g.pk, g.status) for g in later]
    assert not RatingEntry.objects.filter(game__in=later).exists()
    assert not Game.objects.filter(tournament_table__tournament=tournament, status__in=["waiting", "running"]).exists()
    assert chips_total() == chips_granted()


def test_two_cancels_refund_once(bots, make_tournament):
    players = bots(3)
    tournament = started(make_tournament, players, table_size=3, rounds=1, entry_fee=40)
    results = race(*[lambda: services.tournament_cancel(tournament_id=tournament.pk, reason="twice")] * 3)
    codes = sorted(r.code if isinstance(r, ServiceError) else "ok" for r in results)
    assert codes == ["ok", "tournament_ended", "tournament_ended"]
    assert ChipLedgerEntry.objects.filter(kind=ChipKind.ENTRY_REFUND).count() == 3
    assert chips_total() == chips_granted()


def test_two_withdrawals_resign_once(bots, make_tournament):
    players = bots(2)
    tournament = started(make_tournament, players, table_size=2, rounds=3)
    quitter = players[0]
    results = race(*[lambda: services.tournament_withdraw_running(tournament_id=tournament.pk, player=quitter,
                                                                  by=quitter)] * 2)
    codes = sorted(r.code if isinstance(r, ServiceError) else "ok" for r in results)
    assert codes in (["already_withdrawn", "ok"], ["ok", "tournament_not_running"])  # the second may find it over
    game = Game.objects.get(tournament_table__tournament=tournament)
    assert game.status == "interrupted" and game.result["reason"] == "resigned"
    assert game.events.filter(type="resigned").count() == 1
