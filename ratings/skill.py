"""Skill ratings: the openskill (Plackett-Luce) rating of each player per ruleset.

``skill_project`` is the projection ``ratings.skill`` of an ended game: every player of the game is
rated by their place in it (``skill_ranks``), and each change is kept as a ``GameSkillChange``. A game
of pairs (goat-pairs) is rated as a team game: openskill rates the two pairs, each a team of its two
partners, by the pair's place (docs/decisions.md, D-32).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.db import IntegrityError, transaction
from openskill.models import PlackettLuce

from goat.engine.rulesets import parties
from goat.games.projections import EndedGame

from .models import GameSkillChange, SkillRating

_skill_model = PlackettLuce()


def skill_ranks(*, points: Sequence[int], winners: Iterable[int], goats: Iterable[int]) -> list[int]:
    """Per seat rank for openskill: winners 1, goats last, the others by points ascending; ties share."""
    winners, goats = set(winners), set(goats)

    def key(seat: int) -> tuple[int, int]:
        if seat in winners:
            return (0, 0)
        if seat in goats:
            return (2, 0)
        return (1, points[seat])

    keys = [key(seat) for seat in range(len(points))]
    order = sorted(set(keys))
    return [order.index(k) + 1 for k in keys]


def _apply_skill(game_id: int, ruleset: str, ranks: Sequence[int], seat_players: dict[int, Any]) -> None:
    players = sorted(seat_players.values(), key=lambda p: p.pk)
    # Lock (or create) the players' rows in player id order so that concurrent games never deadlock.
    ratings: dict[int, SkillRating] = {}
    for player in players:
        row = SkillRating.objects.select_for_update().filter(player=player, ruleset=ruleset).first()
        if row is None:
            fresh = _skill_model.rating()
            try:
                with transaction.atomic():
                    row = SkillRating.objects.create(
                        player=player, ruleset=ruleset, mu=fresh.mu, sigma=fresh.sigma, ordinal=fresh.ordinal(),
                        games=0, username=player.get_username(),
                    )
            except IntegrityError:
                row = SkillRating.objects.select_for_update().get(player=player, ruleset=ruleset)
        ratings[player.pk] = row
    # the teams openskill rates: each seat alone, or in a game of pairs each pair (its seats' party)
    party_of = parties(ruleset, len(ranks))
    groups: dict[int, list[int]] = {}
    for s in sorted(seat_players):
        groups.setdefault(party_of[s], []).append(s)
    teams = [[_skill_model.rating(mu=ratings[seat_players[s].pk].mu, sigma=ratings[seat_players[s].pk].sigma)
              for s in members] for members in groups.values()]
    new = _skill_model.rate(teams, ranks=[ranks[members[0]] for members in groups.values()])
    changes = []
    rated = [(s, after) for members, team in zip(groups.values(), new, strict=True)
             for s, after in zip(members, team, strict=True)]
    for s, after in rated:
        row = ratings[seat_players[s].pk]
        changes.append(GameSkillChange(game_id=game_id, player=seat_players[s], ruleset=ruleset, rank=ranks[s],
                                       mu_before=row.mu, sigma_before=row.sigma, mu_after=after.mu,
                                       sigma_after=after.sigma))
        row.mu, row.sigma, row.ordinal = after.mu, after.sigma, after.ordinal()
        row.games += 1
        row.save(update_fields=["mu", "sigma", "ordinal", "games"])
    GameSkillChange.objects.bulk_create(changes)



def skill_project(ended: EndedGame) -> None:
    """Projection ``ratings.skill``: the openskill update of every player of the game."""
    if not ended.game.rated:  # a game with a computer player counts for nothing here
        return
    state, result = ended.state, ended.state.result
    ranks = skill_ranks(points=state.points, winners=result.winners, goats=result.goats)
    _apply_skill(ended.game.pk, state.ruleset, ranks, ended.players)

