"""Skill ratings (openskill Plackett-Luce) per ruleset, and the per-game change."""

from __future__ import annotations

import pytest
from openskill.models import PlackettLuce
from ratings_play import play_game

from ratings.models import GameSkillChange, SkillRating
from ratings.skill import skill_ranks

NO_CLOCK = {"move_time": 0}


def test_ranks_put_winners_first_goats_last_and_the_others_by_points():
    assert skill_ranks(points=[20, 110, 40, 35], winners=[0], goats=[1]) == [1, 4, 3, 2]


def test_tied_points_share_a_rank():
    assert skill_ranks(points=[10, 130, 30, 30], winners=[0], goats=[1]) == [1, 3, 2, 2]
    assert skill_ranks(points=[10, 10, 130, 125], winners=[0, 1], goats=[2, 3]) == [1, 1, 2, 2]


def test_everyone_equal_is_one_rank():
    assert skill_ranks(points=[5, 5, 5], winners=[0, 1, 2], goats=[]) == [1, 1, 1]


@pytest.mark.django_db
def test_a_game_moves_winners_up_and_goats_down(make_players):
    players = make_players("masha", "alex", "olya")
    game = play_game(players, options=NO_CLOCK, seed=1)
    changes = {c.player_id: c for c in GameSkillChange.objects.filter(game=game)}
    assert len(changes) == 3
    fresh = PlackettLuce().rating()
    for seat, player in enumerate(players):
        change = changes[player.pk]
        assert (change.mu_before, change.sigma_before) == (fresh.mu, fresh.sigma)
        if seat in game.result["winners"]:
            assert change.rank == 1 and change.mu_after > change.mu_before
        if seat in game.result["goats"]:
            assert change.mu_after < change.mu_before
        row = SkillRating.objects.get(player=player, ruleset="goat-classic")
        assert (row.mu, row.sigma, row.games) == (change.mu_after, change.sigma_after, 1)
        assert row.ordinal == pytest.approx(row.mu - 3 * row.sigma)


@pytest.mark.django_db
def test_changes_chain_from_game_to_game_per_ruleset(make_players):
    players = make_players("masha", "alex")
    first = play_game(players, options=NO_CLOCK, seed=1, resign_after=3)
    play_game(players, ruleset="domino-3rounds", options=NO_CLOCK, seed=2)
    second = play_game(players, options=NO_CLOCK, seed=3, resign_after=5)
    for player in players:
        a = GameSkillChange.objects.get(game=first, player=player)
        b = GameSkillChange.objects.get(game=second, player=player)
        assert (b.mu_before, b.sigma_before) == (a.mu_after, a.sigma_after)  # the 3rounds game is elsewhere
        assert SkillRating.objects.get(player=player, ruleset="goat-classic").games == 2
        assert SkillRating.objects.get(player=player, ruleset="domino-3rounds").games == 1
