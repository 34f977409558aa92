"""Tournament judges can read a tournament in the admin; nothing there can change it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from factories import make_tournament


@pytest.fixture
def tournament(db):
    return make_tournament(name="Spring cup", rounds=2, max_players=8, start=False, starts_in=timedelta(hours=1))


@pytest.mark.django_db
def test_admin_lists_and_shows_a_tournament(admin_client, tournament):
    listing = admin_client.get("/admin/tournaments/tournament/")
    assert listing.status_code == 200 and b"Spring cup" in listing.content
    detail = admin_client.get(f"/admin/tournaments/tournament/{tournament.pk}/change/")
    assert detail.status_code == 200 and b"Spring cup" in detail.content


@pytest.mark.django_db
def test_admin_adds_a_tournament_only_through_the_api_checks_and_cannot_change_or_delete_one(admin_client, tournament):
    # the add form is the API's (tests/tournaments/test_admin_add.py)
    assert 'name="options_json"' in admin_client.get("/admin/tournaments/tournament/add/").content.decode()
    response = admin_client.post(f"/admin/tournaments/tournament/{tournament.pk}/change/", {"name": "Renamed"})
    assert response.status_code == 403
    deleted = admin_client.post(f"/admin/tournaments/tournament/{tournament.pk}/delete/", {"post": "yes"})
    assert deleted.status_code == 403
    tournament.refresh_from_db()
    assert tournament.name == "Spring cup"


@pytest.fixture
def tournament_game(tournament, django_user_model):
    from goat.games import services
    from tournaments.models import Table

    player = django_user_model.objects.create_user(username="table-player", password="x")
    game = services.game_create(player=player, ruleset="goat-classic", seats=2, options={}).game
    other = services.game_create(player=player, ruleset="goat-classic", seats=2, options={}).game
    Table.objects.create(tournament=tournament, number=1, game=game)
    return game, other


@pytest.mark.django_db
def test_the_game_admin_gets_the_tournament_filter_and_column_from_this_app(admin_client, tournament, tournament_game):
    game, other = tournament_game
    listing = admin_client.get("/admin/goat/game/")
    html = listing.content.decode()
    assert listing.status_code == 200
    assert "By tournament" in html or "tournament</h3>" in html  # the filter's title in the sidebar
    assert f'href="/admin/tournaments/tournament/{tournament.pk}/change/"' in html  # the column links the tournament

    filtered = admin_client.get(f"/admin/goat/game/?tournament={tournament.pk}").content.decode()
    assert f"/admin/goat/game/{game.pk}/change/" in filtered
    assert f"/admin/goat/game/{other.pk}/change/" not in filtered
    unknown = admin_client.get("/admin/goat/game/?tournament=999999").content.decode()
    assert f"/admin/goat/game/{game.pk}/change/" not in unknown


@pytest.mark.django_db
@pytest.mark.parametrize("value", ["abc", "-1", "1.5", "9" * 40, "١"])
def test_a_tournament_filter_value_that_is_not_an_id_matches_no_game_instead_of_a_500(admin_client, tournament_game,
                                                                                        value):
    game, _ = tournament_game
    response = admin_client.get("/admin/goat/game/", {"tournament": value})
    assert response.status_code == 200
    assert f"/admin/goat/game/{game.pk}/change/" not in response.content.decode()


@pytest.mark.django_db
def test_the_game_list_api_filters_by_tournament_through_the_filter_this_app_registers(tournament, tournament_game):
    from rest_framework.test import APIClient

    game, other = tournament_game
    client = APIClient()
    client.force_authenticate(game.created_by)
    ids = [g["id"] for g in client.get("/api/games/", {"tournament": tournament.pk}).json()["results"]]
    assert ids == [game.pk]
    assert client.get("/api/games/", {"tournament": "x"}).status_code == 400


# --- the organiser's actions, each behind a confirmation page ------------------------------------


@pytest.fixture
def entered(tournament, django_user_model):
    from tournaments import services

    players = [django_user_model.objects.create_user(username=f"entrant{i}", password="x") for i in range(4)]
    for p in players:
        services.tournament_register(tournament_id=tournament.pk, player=p)
    return players


@pytest.mark.django_db(transaction=True)
def test_admin_start_now_asks_first_then_starts(admin_client, tournament, entered):
    url = f"/admin/tournaments/tournament/{tournament.pk}/start/"
    page = admin_client.get(url)
    assert page.status_code == 200 and b"Yes, start it now" in page.content
    tournament.refresh_from_db()
    assert tournament.status == "scheduled"  # asking changes nothing
    done = admin_client.post(url, {"confirm": "yes"})
    assert done.status_code == 302
    tournament.refresh_from_db()
    assert tournament.status == "running"
    again = admin_client.post(url, {"confirm": "yes"}, follow=True)
    assert b"tournament_not_scheduled" in again.content


@pytest.mark.django_db(transaction=True)
def test_admin_cancel_action_from_the_list_needs_a_reason(admin_client, tournament, entered):
    listing = "/admin/tournaments/tournament/"
    asked = admin_client.post(listing, {"action": "cancel", "_selected_action": [tournament.pk], "index": 0})
    assert asked.status_code == 200 and b"Yes, cancel them" in asked.content and b"Spring cup" in asked.content
    no_reason = admin_client.post(listing, {"action": "cancel", "_selected_action": [tournament.pk],
                                            "confirm": "yes", "reason": ""})
    assert no_reason.status_code == 200 and b"This field is required" in no_reason.content
    tournament.refresh_from_db()
    assert tournament.status == "scheduled"
    done = admin_client.post(listing, {"action": "cancel", "_selected_action": [tournament.pk], "confirm": "yes",
                                       "reason": "Rained off."})
    assert done.status_code == 302
    tournament.refresh_from_db()
    assert (tournament.status, tournament.cancel_reason) == ("cancelled", "Rained off.")


@pytest.mark.django_db(transaction=True)
def test_admin_start_action_from_the_list(admin_client, tournament, entered):
    listing = "/admin/tournaments/tournament/"
    asked = admin_client.post(listing, {"action": "start_now", "_selected_action": [tournament.pk], "index": 0})
    assert asked.status_code == 200 and b"Yes, start them now" in asked.content
    admin_client.post(listing, {"action": "start_now", "_selected_action": [tournament.pk], "confirm": "yes"})
    tournament.refresh_from_db()
    assert tournament.status == "running"


@pytest.mark.django_db(transaction=True)
def test_admin_withdraw_a_player(admin_client, tournament, entered):
    from tournaments import services
    from tournaments.models import Registration

    services.tournament_start_now(tournament_id=tournament.pk)
    url = f"/admin/tournaments/tournament/{tournament.pk}/withdraw/"
    page = admin_client.get(url)
    assert page.status_code == 200 and b">entrant2</option>" in page.content
    registration = Registration.objects.get(tournament=tournament, player=entered[2])
    done = admin_client.post(url, {"confirm": "yes", "player": registration.pk})
    assert done.status_code == 302
    registration.refresh_from_db()
    assert registration.withdrawn_at is not None and registration.withdrawn_by.username == "admin"
    assert b">entrant2</option>" not in admin_client.get(url).content  # a withdrawn player is not offered again
    change = admin_client.get(f"/admin/tournaments/tournament/{tournament.pk}/change/")
    assert b"withdraw a player" in change.content and b"invite_code_digest" not in change.content


@pytest.mark.django_db
def test_admin_actions_need_staff(client, django_user_model, tournament):
    user = django_user_model.objects.create_user(username="nobody", password="x")
    client.force_login(user)
    response = client.post(f"/admin/tournaments/tournament/{tournament.pk}/cancel/", {"confirm": "yes",
                                                                                   "reason": "x"})
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
    tournament.refresh_from_db()
    assert tournament.status == "scheduled"
