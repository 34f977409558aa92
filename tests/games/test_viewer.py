"""Who looks at a game (goat.games.viewer.Viewer), resolved once from the user and the game: a seat with its
number, a spectator, or an auditor (``goat.audit_game``, no seat there); and what each is shown."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser, Permission
from factories import finished_game, make_players, start_game

from goat.games import selectors
from goat.games.viewer import Viewer

pytestmark = pytest.mark.django_db


@pytest.fixture
def auditor(django_user_model):
    user = django_user_model.objects.create_user(username="audrey", password="x" * 12)
    user.user_permissions.add(Permission.objects.get(codename="audit_game", content_type__app_label="goat"))
    return django_user_model.objects.get(pk=user.pk)  # a fresh object: no permission cache


def _dealt(events):
    return next(e for e in events if e["type"] == "round_dealt")["data"]


def test_the_three_kinds_of_viewer_of_a_running_game(auditor, django_assert_num_queries):
    masha, alex, olya = make_players("masha", "alex", "olya")
    game = start_game([masha, alex])
    assert Viewer.of(game, masha) == Viewer.seated(0) and Viewer.of(game, alex) == Viewer.seated(1)
    assert Viewer.of(game, olya) == Viewer.spectator() == Viewer.of(game, AnonymousUser()) == Viewer.of(game, None)
    assert Viewer.of(game, auditor) == Viewer.auditing()
    with django_assert_num_queries(0):  # the seat known: no lookup, and a seat never asks for permissions
        assert Viewer.at(game, auditor, 1) == Viewer.seated(1)
        assert Viewer.at(game, AnonymousUser(), None) == Viewer.spectator()
    assert [v.sees_everything(game) for v in (Viewer.seated(0), Viewer.spectator(), Viewer.auditing())] == [
        False, False, True]


def test_a_seated_auditor_is_a_seat(auditor):
    (masha,) = make_players("masha")
    game = start_game([masha, auditor])
    assert Viewer.of(game, auditor) == Viewer.seated(1)
    assert not Viewer.of(game, auditor).sees_everything(game)


def test_an_ended_game_is_seen_whole_by_everyone_without_asking_permissions(auditor, django_assert_num_queries):
    masha, alex, olya = make_players("masha", "alex", "olya")
    game = finished_game([masha, alex], options={"limit": 25, "move_time": 0})
    with django_assert_num_queries(1):  # the seat, and no permission query
        viewer = Viewer.of(game, auditor)
    assert viewer == Viewer.spectator() and viewer.sees_everything(game)
    assert Viewer.of(game, olya).sees_everything(game) and Viewer.seated(0).sees_everything(game)


def test_each_viewer_is_shown_what_it_may_see(auditor):
    masha, alex, olya = make_players("masha", "alex", "olya")
    game = start_game([masha, alex])
    seat0 = _dealt(selectors.events_for(game=game, viewer=Viewer.of(game, masha)))
    spectator = _dealt(selectors.events_for(game=game, viewer=Viewer.of(game, olya)))
    audit = _dealt(selectors.events_for(game=game, viewer=Viewer.of(game, auditor)))
    assert isinstance(seat0["hands"][0], list) and isinstance(seat0["hands"][1], int)
    assert all(isinstance(hand, int) for hand in spectator["hands"]) and isinstance(spectator["bazaar"], int)
    assert all(isinstance(hand, list) for hand in audit["hands"]) and isinstance(audit["bazaar"], list)
    # a seat's own events by its number alone (how a computer player's move reads them)
    assert selectors.events_for(game=game, viewer=Viewer.seated(0)) == selectors.events_for(
        game=game, viewer=Viewer.of(game, masha))
