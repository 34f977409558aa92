"""manage.py play_bots and rebuild_standings."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from goat.games.models import Game
from tournaments import services
from tournaments.models import Standing

pytestmark = pytest.mark.django_db(transaction=True)


def test_play_bots_moves_only_for_bots_and_respects_max_moves(bots, django_user_model, monkeypatch):
    from goat.engine import computer as players
    from goat.games import services as games

    [bot] = bots(1)
    human = django_user_model.objects.create_user(username="human", password="x")
    game = games.game_create(player=bot, ruleset="goat-classic", seats=2, options={"limit": 25, "move_time": 0}).game
    games.game_join(game_id=game.pk, player=human)
    out = StringIO()
    call_command("play_bots", "--max-moves", "50", "--seed", "1", stdout=out)
    game.refresh_from_db()
    assert out.getvalue().strip() in ("0 moves played", "1 moves played")  # only the bot's own turn
    assert game.turn is None or game.seat_set.get(seat=game.turn).player == human or game.ended

    levels = []
    choose = players.choose
    monkeypatch.setattr(players, "choose", lambda view, level, rng: levels.append(level) or choose(view, level, rng))
    out = StringIO()
    call_command("play_bots", "--all", "--games", str(game.pk), "--until-done", "--seed", "2", "--level", "strong",
                 stdout=out)
    game.refresh_from_db()
    assert game.ended and int(out.getvalue().split()[0]) > 0
    assert levels == ["strong"] * int(out.getvalue().split()[0])  # every move the strong computer's choice

    with pytest.raises(CommandError):
        call_command("play_bots", "--max-moves", "-1")
    with pytest.raises(CommandError):
        call_command("play_bots", "--level", "greedy")  # the bench's baseline is no level


def test_play_bots_runs_a_whole_tournament_and_rebuild_standings_agrees(bots, make_tournament):
    players = bots(6)
    tournament = make_tournament(table_size=3, rounds=2)
    for player in players:
        services.tournament_register(tournament_id=tournament.pk, player=player)
    services.tournaments_start_due()
    call_command("play_bots", "--until-done", "--seed", "3", stdout=StringIO())
    tournament.refresh_from_db()
    assert tournament.status == "finished"
    assert Game.objects.filter(tournament_table__tournament=tournament).count() == 4
    rows = lambda: list(Standing.objects.order_by("rank").values_list("player_id", "points", "games", "rank"))  # noqa: E731
    before = rows()
    out = StringIO()
    call_command("rebuild_standings", stdout=out)
    assert f"tournament {tournament.pk}: 6 standings" in out.getvalue()
    assert rows() == before
