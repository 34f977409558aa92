"""Content-Security-Policy on the HTML pages and the admin (django-csp, issue 19 item 7); that they
work under it in a browser is tests/e2e/test_csp_browser.py."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TEMPLATES = sorted(p for root in ("goat", "ratings", "tournaments", "play")
                   for p in (REPO / root).rglob("templates/**/*.html"))


def directives(response) -> dict[str, list[str]]:
    policy = response["Content-Security-Policy"]
    return {name: values for name, *values in (part.split() for part in policy.split(";") if part.strip())}


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/leaderboards/", "/tournaments/", "/play/", "/admin/login/", "/api/games/"])
def test_pages_and_the_admin_carry_a_policy_without_inline_script(client, path):
    policy = directives(client.get(path))

    assert policy["script-src"] == ["'self'"] and policy["style-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"] and policy["frame-ancestors"] == ["'none'"]
    assert policy["default-src"] == ["'self'"] and policy["base-uri"] == ["'self'"]


@pytest.mark.django_db
def test_only_swagger_ui_may_use_inline_styles_and_its_script_is_a_file(client):
    page = client.get("/api/docs/")
    policy = directives(page)

    assert policy["script-src"] == ["'self'"] and "'unsafe-inline'" in policy["style-src"]
    html = page.content.decode()
    script = re.search(r'<script src="(/api/docs/\?[^"]*script[^"]*)"', html)
    assert script and "<script>" not in html
    assert client.get(script.group(1).replace("&amp;", "&"))["Content-Type"].startswith("application/javascript")


@pytest.mark.parametrize("template", TEMPLATES, ids=[str(p.relative_to(REPO)) for p in TEMPLATES])
def test_no_template_of_ours_has_inline_script_style_or_handlers(template):
    html = template.read_text(encoding="utf-8")

    assert not re.search(r"<script(?![^>]*\ssrc=)[^>]*>", html), "inline <script>"
    assert "<style" not in html and not re.search(r"\sstyle=", html), "inline style"
    assert not re.search(r"\son[a-z]+=", html), "inline event handler"
    assert "javascript:" not in html
