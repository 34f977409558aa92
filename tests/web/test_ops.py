"""Operations endpoints: schema, docs, health, admin."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db


def test_schema_is_openapi_3_and_describes_the_players_api(api_client):
    response = api_client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")

    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.")
    for path in ("/api/players/", "/api/players/me/", "/api/players/{username}/", "/api/auth/token/", "/health/"):
        assert path in schema["paths"], path
    assert "Problem" in schema["components"]["schemas"]


def test_schema_validates_without_warnings(tmp_path):
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "schema.yml"),
                 stdout=StringIO())

    assert (tmp_path / "schema.yml").read_text().startswith("openapi: 3")


def test_docs_page_uses_local_static_files_only(api_client):
    response = api_client.get("/api/docs/")

    assert response.status_code == 200
    html = response.content.decode()
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/" in html
    external = [url for url in re.findall(r"""(?:src|href)=["']([^"']+)""", html)
                if url.startswith(("http:", "https:", "//"))]
    assert external == []


def test_docs_static_assets_are_served(client):
    response = client.get("/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js")

    assert response.status_code == 200


def test_health_is_ok_on_the_defaults(api_client):
    response = api_client.get("/health/")

    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": True, "broker": True}


def test_health_stays_ready_but_degraded_when_the_broker_is_unreachable(api_client, settings):
    """Games go on without Redis (issue 31): readiness is the database's; the body tells of the broker."""
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"

    response = api_client.get("/health/")

    assert response.status_code == 200
    assert response.json() == {"status": "degraded", "database": True, "broker": False}


def test_health_is_503_when_the_database_is_unreachable(api_client, monkeypatch):
    from goat.web import health

    monkeypatch.setattr(health, "database_ok", lambda: False)

    response = api_client.get("/health/")

    assert response.status_code == 503
    assert response.json() == {"status": "degraded", "database": False, "broker": True}


def test_admin_login_page_answers(client):
    assert client.get("/admin/login/").status_code == 200


def test_admin_is_for_staff(client, staff_client):
    assert client.get("/admin/").status_code == 302
