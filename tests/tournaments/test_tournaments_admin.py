"""Tournament judges can read a tournament in the admin; nothing there can change it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tournaments.models import Tournament


@pytest.fixture
def tournament(django_user_model):
    staff = django_user_model.objects.create_user(username="judge-maker", password="x", is_staff=True)
    return Tournament.objects.create(
        name="Spring cup", ruleset="goat-classic", options={}, format="swiss", rounds=2, table_size=2,
        starts_at=timezone.now() + timedelta(hours=1), max_players=8, created_by=staff,
    )


@pytest.mark.django_db
def test_admin_lists_and_shows_a_tournament(admin_client, tournament):
    listing = admin_client.get("/admin/tournaments/tournament/")
    assert listing.status_code == 200 and b"Spring cup" in listing.content
    detail = admin_client.get(f"/admin/tournaments/tournament/{tournament.pk}/change/")
    assert detail.status_code == 200 and b"Spring cup" in detail.content


@pytest.mark.django_db
def test_admin_cannot_add_change_or_delete_a_tournament(admin_client, tournament):
    assert admin_client.get("/admin/tournaments/tournament/add/").status_code == 403
    response = admin_client.post(f"/admin/tournaments/tournament/{tournament.pk}/change/", {"name": "Renamed"})
    assert response.status_code == 403
    assert admin_client.post(f"/admin/tournaments/tournament/{tournament.pk}/delete/", {"post": "yes"}).status_code == 403
    tournament.refresh_from_db()
    assert tournament.name == "Spring cup"
