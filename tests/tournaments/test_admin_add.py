"""A tournament added in the admin (issue 51 item 5): the same checks as the API's serializer and the same
service (tournaments.services.tournament_create)."""

from __future__ import annotations

import json

import pytest

from tournaments.models import Tournament

pytestmark = pytest.mark.django_db

URL = "/admin/tournaments/tournament/add/"


def _form(**fields):
    return {"name": "Admin cup", "ruleset": "goat-classic", "format": "swiss", "rounds": "3",
            "duration_minutes": "0", "table_size": "4", "starts_at_0": "2030-01-02", "starts_at_1": "18:00:00",
            "max_players": "16", "entry_fee": "0", "options_json": json.dumps({"limit": 101}), **fields}


def test_the_admin_adds_a_tournament_through_the_apis_checks_and_service(admin_client, admin_user):
    page = admin_client.get(URL)
    assert page.status_code == 200 and 'name="options_json"' in page.content.decode()
    refused = admin_client.post(URL, _form(options_json=json.dumps({"limit": -5})))
    assert refused.status_code == 200 and not Tournament.objects.exists()
    assert "errorlist" in refused.content.decode()
    assert admin_client.post(URL, _form(table_size="9")).status_code == 200 and not Tournament.objects.exists()
    done = admin_client.post(URL, _form())
    assert done.status_code == 302, done.content.decode()[:2000]
    cup = Tournament.objects.get()
    assert (cup.name, cup.format, cup.rounds, cup.table_size) == ("Admin cup", "swiss", 3, 4)
    assert cup.created_by == admin_user
    assert cup.options["limit"] == 101 and cup.options["move_time"] is not None  # resolved by the service
    assert cup.status == "scheduled"


def test_the_admin_shows_options_in_words_and_a_tournament_round_as_tur(admin_client):
    assert admin_client.post(URL, _form()).status_code == 302
    cup = Tournament.objects.get()
    page = admin_client.get(f"/admin/tournaments/tournament/{cup.pk}/change/").content.decode()
    assert "Points limit: 101" in page and '"limit"' not in page
    russian = admin_client.get(f"/admin/tournaments/tournament/{cup.pk}/change/",
                               headers={"Accept-Language": "ru"}).content.decode()
    assert "Предел очков: 101" in russian or "очков: 101" in russian
    assert "организатор" in russian.lower() and "кем создано" not in russian.lower()
