"""Dates in the reader's form and time zone (issue 51): a Russian reader's default is Moscow, a player
may choose their own zone on the play page, machines keep ISO in ``datetime`` attributes."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from factories import FAST, finished_game, make_players

from goat.players.models import PlayerSetting

pytestmark = pytest.mark.django_db


def _created(html: str) -> str:
    return re.search(r"created (<time [^>]*>[^<]*</time>)|создана (<time [^>]*>[^<]*</time>)", html).group(0)


def test_a_game_page_says_when_in_the_readers_words_and_zone(settings):
    ann, ben = make_players("ann", "ben")
    game = finished_game([ann, ben], options=dict(FAST), seed=1)
    game.created_at = game.created_at.replace(month=12, day=6, hour=4, minute=17, year=2026)
    game.save(update_fields=["created_at"])
    english = _created(Client().get(f"/games/{game.pk}/").content.decode())
    assert "6 December 2026, 04:17" in english and 'datetime="2026-12-06T04:17' in english
    russian = _created(Client(HTTP_ACCEPT_LANGUAGE="ru").get(f"/games/{game.pk}/").content.decode())
    assert "6 декабря 2026, 07:17" in russian and 'datetime="2026-12-06T04:17' in russian

    client = Client(HTTP_ACCEPT_LANGUAGE="ru")
    client.force_login(ann)
    page = client.get("/play/").content.decode()
    assert 'name="time_zone"' in page and "по языку (Europe/Moscow)" in page
    assert client.post("/play/settings/", {"time_zone": "Asia/Vladivostok", "next": "/play/"}).status_code == 302
    assert PlayerSetting.objects.get(user=ann).time_zone == "Asia/Vladivostok"
    assert "6 декабря 2026, 14:17" in _created(client.get(f"/games/{game.pk}/").content.decode())
    # the choice follows the player to their next session
    again = Client(HTTP_ACCEPT_LANGUAGE="en")
    again.force_login(ann)
    assert "6 December 2026, 14:17" in _created(again.get(f"/games/{game.pk}/").content.decode())
    refused = client.post("/play/settings/", {"time_zone": "Mars/Olympus", "next": "/play/"})
    assert refused.status_code == 400 and "Нет такого часового пояса: Mars/Olympus." in refused.content.decode()
    assert PlayerSetting.objects.get(user=ann).time_zone == "Asia/Vladivostok"
    assert client.post("/play/settings/", {"time_zone": "", "next": "/play/"}).status_code == 302
    assert "6 декабря 2026, 07:17" in _created(client.get(f"/games/{game.pk}/").content.decode())
