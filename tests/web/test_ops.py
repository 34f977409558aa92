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
    from goat.web.observe import health

    monkeypatch.setattr(health, "database_ok", lambda: False)

    response = api_client.get("/health/")

    assert response.status_code == 503
    assert response.json() == {"status": "degraded", "database": False, "broker": True}


def test_admin_login_page_answers(client):
    assert client.get("/admin/login/").status_code == 200


def test_admin_is_for_staff(client, staff_client):
    assert client.get("/admin/").status_code == 302


@pytest.mark.parametrize("command", ["migrate", "run"])
def test_a_database_that_cannot_be_reached_is_one_clear_line_not_a_traceback(command, tmp_path):
    """An operator with a wrong DATABASE_URL is told what the driver said and where the address comes
    from, with exit status 1, no traceback and never the URL's password."""
    import subprocess
    import sys

    from testkit import REPO, free_port

    url = f"postgres://goat:sekrit@127.0.0.1:{free_port()}/goat"  # a free port: nothing listens there
    env = {"PATH": "/usr/bin:/bin", "DATABASE_URL": url, "GOAT_DATA_DIR": str(tmp_path), "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, str(REPO / "manage.py"), command], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)

    assert done.returncode == 1, done.stderr
    assert "CommandError: the database could not be reached: connection failed:" in done.stderr
    assert "DATABASE_URL names it" in done.stderr
    assert "Traceback" not in done.stderr and "sekrit" not in done.stderr + done.stdout
