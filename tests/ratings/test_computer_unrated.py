"""A game with a computer player is unrated (docs/computer.md, issue 27 item 2): no
rating points, no skill update, no chips and no ante, nothing on the leaderboards; its result,
scoresheet and verification are as any game's. Each check is made beside a rated game of the same
ruleset between people, which does get its rows (so the check can fail)."""

from __future__ import annotations

import pytest

from computer_play import play_out, play_people, queue_catch
from goat.games import projections, services, verification
from goat.games.models import Game, GameStatus, ProjectionRecord
from ratings.leaderboards import leaderboards_refresh
from ratings.models import ChipAccount, ChipLedgerEntry, GameSkillChange, LeaderboardRow, RatingEntry, SkillRating
from ratings.services import PROJECTIONS, ratings_rebuild

pytestmark = pytest.mark.django_db(transaction=True)


def rated_game(players, ruleset: str, seed: int = 1) -> Game:
    """A game between people, played out with random legal moves."""
    game = services.game_create(player=players[0], ruleset=ruleset, seats=2).game
    services.game_join(game_id=game.pk, player=players[1])
    return play_people(game.pk, seed=seed)


@pytest.fixture
def computer_game(make_players, monkeypatch):
    def make(ruleset: str = "goat-gamesburg", seed: int = 3) -> tuple[Game, object]:
        sent = queue_catch(monkeypatch)
        [human] = make_players(f"human{seed}")
        game = services.game_create(player=human, ruleset=ruleset, seats=2, computer_players=1,
                                    computer_level="random").game
        return play_out(game.pk, human, sent, seed=seed), human

    return make


def test_the_ledger_skill_leaderboards_and_chips_stay_empty_for_a_computer_game(make_players, computer_game):
    people = make_players("ann", "ben")
    rated = rated_game(people, "goat-gamesburg")
    game, human = computer_game("goat-gamesburg")
    assert game.status == GameStatus.FINISHED and not game.rated and rated.rated
    # every projection ran (tracked, so the catch-up does not look again) and wrote nothing
    assert projections.projections_apply_game(game_id=game.pk) == []
    assert set(ProjectionRecord.objects.filter(game=game).values_list("projection", flat=True)) >= set(PROJECTIONS)
    assert RatingEntry.objects.filter(game=rated).count() == 2
    assert not RatingEntry.objects.filter(game=game).exists()
    assert GameSkillChange.objects.filter(game_id=rated.pk).count() == 2
    assert not GameSkillChange.objects.filter(game_id=game.pk).exists()
    assert not SkillRating.objects.filter(player=human).exists()
    bot = game.seat_set.get(seat=1).player
    assert LeaderboardRow.objects.filter(player=people[0]).exists()
    assert not LeaderboardRow.objects.filter(player__in=[human, bot]).exists()
    # chips: the gamesburg ante (10) is staked and paid out in a rated game, never in a computer game
    assert ChipLedgerEntry.objects.filter(game_id=rated.pk).exists()
    assert not ChipLedgerEntry.objects.filter(game_id=game.pk).exists()
    assert not ChipAccount.objects.filter(player__in=[human, bot]).exists()
    # the result still carries the rating points the rules give: the game is scored as any game
    assert game.result["rating_points"] and verification.game_verify(game=game).ok


def test_the_rebuilds_and_the_board_refresh_leave_a_computer_game_out(make_players, computer_game):
    people = make_players("ann", "ben")
    rated_game(people, "domino-3rounds")
    game, human = computer_game("domino-3rounds")
    ratings_rebuild()
    leaderboards_refresh(full=True)
    assert not RatingEntry.objects.filter(game=game).exists()
    assert not GameSkillChange.objects.filter(game_id=game.pk).exists()
    assert not LeaderboardRow.objects.filter(player=human).exists()
    assert LeaderboardRow.objects.filter(player=people[0]).exists()
