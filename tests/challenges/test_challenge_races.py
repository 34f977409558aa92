"""Answers to one challenge at once (PostgreSQL's row locks): of two accepts of the last seat exactly
one starts the game, and nobody sits twice."""

from __future__ import annotations

import pytest
from factories import make_players

from apitest import token_client
from challenges import services
from challenges.models import Challenge, ChallengeEntry
from goat.games.models import Game, Seat
from testkit import run_together

pytestmark = [pytest.mark.database]  # threads on their own connections: PostgreSQL's row locks

FAST = {"limit": 25, "move_time": 0}


@pytest.mark.django_db(transaction=True)
def test_two_link_holders_take_the_last_seat_at_once_exactly_one_game_starts():
    masha, petya, vasya = make_players("masha", "petya", "vasya")
    challenge = services.challenge_create(challenger=masha, opponents=[], ruleset="goat-classic", seats=2,
                                          options=FAST)
    code = challenge.code
    clients = [token_client(petya), token_client(vasya)]

    def accept(i):
        answer = clients[i].post(f"/api/challenges/{challenge.pk}/accept/", {"code": code}, format="json")
        return answer.status_code, answer.json().get("code"), answer.json().get("game")

    for _round in range(3):  # a race lost once proves little: again on fresh challenges
        results = run_together(2, accept)
        assert not [r for r in results if isinstance(r, BaseException)], results
        assert sorted(status for status, _code, _game in results) == [200, 409], results
        assert [code for status, code, _game in results if status == 409] == ["challenge_not_open"]
        game = Game.objects.get(pk=next(game for status, _code, game in results if status == 200))
        assert game.status == "running" and game.private
        assert Seat.objects.filter(game=game).count() == 2
        assert Game.objects.filter(pk__in=Challenge.objects.values("game_id")).count() == _round + 1
        assert ChallengeEntry.objects.filter(challenge=challenge).count() == 1
        challenge = services.challenge_create(challenger=masha, opponents=[], ruleset="goat-classic", seats=2,
                                              options=FAST)
        code = challenge.code
    assert Game.objects.count() == 3


@pytest.mark.django_db(transaction=True)
def test_the_same_player_accepting_twice_at_once_sits_once():
    masha, petya = make_players("masha", "petya")
    challenge = services.challenge_create(challenger=masha, opponents=["petya"], ruleset="goat-classic",
                                          options=FAST)
    client = token_client(petya)

    def accept(_i):
        answer = client.post(f"/api/challenges/{challenge.pk}/accept/", {}, format="json")
        return answer.status_code, answer.json().get("code")

    results = run_together(4, accept)
    assert sorted(status for status, _code in results) == [200, 409, 409, 409], results
    assert Game.objects.count() == 1
    assert Seat.objects.filter(player=petya).count() == 1


@pytest.mark.django_db(transaction=True)
def test_an_accept_and_a_cancel_at_once_one_of_them_lands():
    masha, petya = make_players("masha", "petya")
    challenge = services.challenge_create(challenger=masha, opponents=["petya"], ruleset="goat-classic",
                                          options=FAST)
    accept_client, cancel_client = token_client(petya), token_client(masha)

    def act(i):
        if i == 0:
            return accept_client.post(f"/api/challenges/{challenge.pk}/accept/", {}, format="json").status_code
        return cancel_client.post(f"/api/challenges/{challenge.pk}/cancel/").status_code

    results = run_together(2, act)
    assert sorted(results) == [200, 409], results
    challenge.refresh_from_db()
    assert (challenge.status == "accepted") == (Game.objects.count() == 1)


@pytest.mark.django_db(transaction=True)
def test_challenges_at_once_keep_the_cap():
    from django.conf import settings

    players = make_players("masha", "petya", "vasya", "olga", "ira", "gleb")
    limit = settings.GOAT_CHALLENGES_OPEN_OUT
    masha = players[0]

    def make(i):
        try:
            services.challenge_create(challenger=masha, opponents=[players[1 + i % 5].username],
                                      ruleset="goat-classic", options=FAST)
            return "made"
        except Exception as exc:  # noqa: BLE001 - reported by the test
            return getattr(exc, "code", repr(exc))

    results = run_together(limit + 4, make)
    assert results.count("made") == limit, results
    assert set(results) == {"made", "too_many_challenges"}, results


@pytest.mark.django_db(transaction=True)
def test_an_upgrade_to_a_bot_and_a_join_of_a_lobby_game_at_once_never_make_a_seated_bot():
    from challenges.bots import bot_upgrade
    from goat.games import services as games
    from goat.players.models import BotAccount
    from goat.web.errors import ServiceError

    for round_ in range(4):  # a race lost once proves little
        host, joiner = make_players(f"host{round_}", f"joiner{round_}")
        game = games.game_create(player=host, ruleset="goat-classic", seats=2, options=FAST)

        def act(i, joiner=joiner, game=game):
            try:
                if i == 0:
                    return bot_upgrade(player=joiner) and "bot"
                return games.game_join(game_id=game.game.pk, player=joiner) and "seated"
            except ServiceError as error:
                return error.code

        results = run_together(2, act)
        bot = BotAccount.objects.filter(user=joiner).exists()
        seated = Seat.objects.filter(player=joiner).exists()
        assert not (bot and seated), results
        assert sorted(results) in (["account_has_games", "seated"], ["bot", "bot_account"]), results
