"""goat-pairs in the ratings (docs/rules.md §12, D-31, D-32): a pair's result counts for both partners:
the same rating points each, the skill rating as a team game of two teams of two, the leaderboards
of the ruleset; a tournament of pairs is refused (not offered yet)."""

from __future__ import annotations

import pytest
from openskill.models import PlackettLuce
from ratings_play import play_game

from apitest import assert_problem, token_client
from ratings.models import GameSkillChange, RatingEntry, SkillRating
from ratings.skill import skill_ranks

NO_CLOCK = {"move_time": 0, "limit": 40}


@pytest.mark.django_db
@pytest.mark.parametrize("resign_after", [None, 7])
def test_both_partners_earn_the_pairs_rating_points_and_are_rated_as_a_team(make_players, resign_after):
    players = make_players("masha", "alex", "olya", "kolyan")
    game = play_game(players, ruleset="goat-pairs", options=NO_CLOCK, seed=2, resign_after=resign_after)
    result = game.result
    assert sorted(result["goats"]) in ([0, 2], [1, 3])
    earned = {e.seat: e.points for e in RatingEntry.objects.filter(game=game)}
    assert earned[0] == earned[2] and earned[1] == earned[3]
    for seat in result["goats"]:
        assert earned[seat] == 0
    for seat in result["winners"]:
        assert earned[seat] >= 1
    changes = {c.player_id: c for c in GameSkillChange.objects.filter(game=game)}
    # the whole game as openskill rates it: two teams of two, by the pair's place
    model = PlackettLuce()
    fresh = model.rating()
    winners = sorted(result["winners"])
    goats = sorted(result["goats"])
    expected = model.rate([[model.rating() for _ in winners], [model.rating() for _ in goats]], ranks=[1, 2])
    for seats, team in ((winners, expected[0]), (goats, expected[1])):
        for seat, after in zip(seats, team, strict=True):
            change = changes[players[seat].pk]
            assert (change.mu_before, change.sigma_before) == (fresh.mu, fresh.sigma)
            assert change.mu_after == pytest.approx(after.mu) and change.sigma_after == pytest.approx(after.sigma)
            row = SkillRating.objects.get(player=players[seat], ruleset="goat-pairs")
            assert row.games == 1
    assert changes[players[winners[0]].pk].mu_after > fresh.mu > changes[players[goats[0]].pk].mu_after


def test_partners_share_a_rank():
    assert skill_ranks(points=[10, 104, 10, 104], winners=[0, 2], goats=[1, 3]) == [1, 2, 1, 2]


@pytest.mark.django_db
def test_a_pairs_game_is_on_its_rulesets_leaderboard(make_players, client):
    players = make_players("masha", "alex", "olya", "kolyan")
    play_game(players, ruleset="goat-pairs", options=NO_CLOCK, seed=2)
    for kind in ("ratings", "skill"):
        board = client.get(f"/api/leaderboards/{kind}/", {"ruleset": "goat-pairs"})
        assert board.status_code == 200, board.content
        assert {row["player"] for row in board.json()["results"]} == {"masha", "alex", "olya", "kolyan"}


@pytest.mark.django_db
def test_a_tournament_of_pairs_is_refused(django_user_model):
    director = django_user_model.objects.create_user(username="director", password="x", is_staff=True)
    response = token_client(director).post("/api/tournaments/", {
        "name": "pairs", "ruleset": "goat-pairs", "format": "swiss", "rounds": 2, "table_size": 4,
        "starts_at": "2030-01-01T12:00:00Z", "max_players": 8}, format="json")
    assert_problem(response, 400, "invalid_options")
