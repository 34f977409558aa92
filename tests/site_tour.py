"""A small world with something on every page (importable as ``site_tour``: tests/ is on the path), and
the addresses of every page of it: the site, the play page and the admin (every changelist, the game's
change page and its replay at each kind of step).

Made through the services (the real write path, tests/factories.py): finished games of each ruleset,
one with a computer player, a running game and a waiting one, tournaments finished, running, scheduled
and cancelled. Tests that read every page in both languages (tests/web/test_words.py) crawl it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

import factories
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.urls import reverse

from goat.engine.rulesets import RULESETS
from goat.games import services as games
from goat.games.models import Game, GameEvent, Seat

FAST = factories.FAST


@dataclass
class Tour:
    """The world's objects and the pages to read: ``public`` (anyone), ``player`` (signed in as
    ``player``), ``staff`` (a superuser's admin)."""

    player: object
    staff: object
    games: dict[str, Game] = field(default_factory=dict)
    public: list[str] = field(default_factory=list)
    signed_in: list[str] = field(default_factory=list)
    admin: list[str] = field(default_factory=list)


def build_tour() -> Tour:
    User = get_user_model()
    ann, ben, cat, dan = factories.make_players("ann", "ben", "cat", "dan")
    staff = User.objects.create_superuser(username="judge", password="x" * 12)
    tour = Tour(player=ann, staff=staff)
    tour.games["classic"] = factories.finished_game([ann, ben], options=dict(FAST), seed=1)
    tour.games["four"] = factories.finished_game([ann, ben, cat, dan], options=dict(FAST), seed=2)
    tour.games["rounds"] = factories.finished_game([ann, ben], ruleset="domino-3rounds",
                                                   options={"move_time": 0}, seed=3)
    with factories.committed():
        computer = games.game_create(player=cat, ruleset="goat-classic", seats=2, options=dict(FAST),
                                     computer_players=1, computer_level="random").game
    tour.games["computer"] = factories.play(computer, [cat, None], seed=4)
    tour.games["running"] = factories.play(factories.start_game([ann, dan]), [ann, dan], seed=5, max_moves=3)
    with factories.committed():
        tour.games["waiting"] = games.game_create(player=ann, ruleset="goat-classic", seats=3, options=dict(FAST)).game
    with factories.committed():
        cancelled = games.game_create(player=dan, ruleset="domino-3rounds", seats=2).game
        games.game_leave(game_id=cancelled.pk, player=dan)
    tour.games["cancelled"] = cancelled

    from tournaments import services as tournaments

    done = factories.make_tournament(name="Autumn cup", players=[ann, ben, cat, dan], rounds=2)
    for game in Game.objects.filter(status="running"):
        if game.pk != tour.games["running"].pk:
            factories.play(game, _seated(game), seed=game.pk)
    for _ in range(4):  # the next rounds start as the tables end
        for game in Game.objects.filter(status="running").exclude(pk=tour.games["running"].pk):
            factories.play(game, _seated(game), seed=game.pk)
    done.refresh_from_db()
    running = factories.make_tournament(name="Winter cup", players=[ben, cat], rounds=3)
    scheduled = factories.make_tournament(name="Spring cup", players=[ann], start=False,
                                          starts_in=timedelta(days=2), entry_fee=10)
    cancelled_cup = factories.make_tournament(name="Summer cup", players=[], start=False,
                                              starts_in=timedelta(days=3))
    with factories.committed():
        tournaments.tournament_cancel(tournament_id=cancelled_cup.pk, reason="Rain.")

    game_pages = [reverse("page-game", args=[g.pk]) for g in tour.games.values()]
    tour.public = [
        "/", "/tournaments/", *(f"/tournaments/?status={s}" for s in ("scheduled", "running", "finished",
                                                                        "cancelled")),
        *(reverse("page-tournament", args=[t.pk]) for t in (done, running, scheduled, cancelled_cup)),
        "/leaderboards/", "/leaderboards/?board=skill", "/leaderboards/?ruleset=domino-3rounds",
        "/leaderboards/?period=week",
        *(reverse("page-player", args=[name]) for name in ("ann", "ben", "cat", "dan")),
        *game_pages, *(f"{reverse('page-game', args=[tour.games['classic'].pk])}?step={n}" for n in (1, 3, 8)),
        "/play/", "/no-such-page/", "/rules/", *(reverse("page-rules", args=[name]) for name in RULESETS),
    ]
    tour.signed_in = ["/play/", *(reverse("page-play-table", args=[g.pk]) for g in tour.games.values()),
                      *game_pages]
    tour.admin = ["/admin/"]
    for model, model_admin in admin.site._registry.items():
        opts = model._meta
        tour.admin.append(reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist"))
        first = model_admin.get_queryset(_request(staff)).first()
        if first is not None:
            tour.admin.append(reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[first.pk]))
    for game in tour.games.values():
        tour.admin.append(reverse("admin:goat_game_change", args=[game.pk]))
    classic = tour.games["classic"]
    steps = {e.type: e.seq for e in GameEvent.objects.filter(game=classic).order_by("-seq")}
    tour.admin += [f"{reverse('admin:goat_game_replay', args=[classic.pk])}?step={seq}"
                   for seq in sorted({0, *steps.values()})]
    rounds = tour.games["rounds"]
    last = GameEvent.objects.filter(game=rounds).order_by("-seq").first()
    tour.admin.append(f"{reverse('admin:goat_game_replay', args=[rounds.pk])}?step={last.seq}")
    return tour


def _seated(game: Game) -> list:
    return [seat.player for seat in Seat.objects.filter(game=game).select_related("player").order_by("seat")]


def _request(user):
    from django.test import RequestFactory

    request = RequestFactory().get("/admin/")
    request.user = user
    return request
