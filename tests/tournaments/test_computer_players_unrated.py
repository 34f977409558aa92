"""No tournament for computer players (issue 27 item 2): a computer account cannot enter one, and a
game with a computer is never counted in standings."""

from __future__ import annotations

import pytest

from apitest import token_client
from computer_play import play_out, queue_catch
from goat.games import projections, services
from goat.players.services import computer_accounts
from goat.web.errors import ServiceError
from tournaments import services as tournaments
from tournaments.models import Registration, Standing, Table

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_computer_cannot_register_for_a_tournament(make_tournament, bots):
    tournament = make_tournament()
    [bot] = computer_accounts(count=1)
    with pytest.raises(ServiceError) as refused:
        tournaments.tournament_register(tournament_id=tournament.pk, player=bot)
    assert (refused.value.code, refused.value.status) == ("computer_player", 403)
    response = token_client(bot).post(f"/api/tournaments/{tournament.pk}/registration/")
    assert response.status_code == 403 and response.json()["code"] == "computer_player"
    [person] = bots(1)
    tournaments.tournament_register(tournament_id=tournament.pk, player=person)  # a person can
    assert list(Registration.objects.values_list("player", flat=True)) == [person.pk]


def test_a_computer_game_is_not_counted_in_standings_even_if_a_table_pointed_at_it(make_tournament, bots,
                                                                                     monkeypatch):
    tournament = make_tournament(table_size=2)
    people = bots(2)
    for person in people:
        tournaments.tournament_register(tournament_id=tournament.pk, player=person)
    tournaments.tournament_start(tournament_id=tournament.pk)
    table = Table.objects.filter(tournament=tournament).first()
    before = list(Standing.objects.filter(tournament=tournament).values_list("player", "games"))
    sent = queue_catch(monkeypatch)
    game = services.game_create(player=people[0], ruleset="goat-classic", seats=2, computer_players=1,
                                options={"limit": 25, "move_time": 0}).game
    game = play_out(game.pk, people[0], sent)
    Table.objects.filter(pk=table.pk).update(game=game)  # a table pointing at it (never made so) counts nothing
    projections.projections_apply_game(game_id=game.pk)
    assert list(Standing.objects.filter(tournament=tournament).values_list("player", "games")) == before
