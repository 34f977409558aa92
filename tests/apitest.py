"""Helpers shared by the API tests (importable as ``apitest``: pyproject puts tests/ on the path)."""

from __future__ import annotations

from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

PROBLEM = "application/problem+json"


def assert_problem(response, status: int, code: str) -> dict:
    """The response is an RFC 9457 problem with this status and stable code; returns its body."""
    assert response.status_code == status, response.content
    assert response["Content-Type"] == PROBLEM
    body = response.json()
    assert set(body) >= {"type", "title", "status", "detail", "code"}
    assert (body["status"], body["code"]) == (status, code), body
    assert body["type"].endswith("/" + code)
    assert body["title"] and body["detail"]
    return body


def token_client(user) -> APIClient:
    """An API client that sends ``user``'s token."""
    client = APIClient()
    token, _ = Token.objects.get_or_create(user=user)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client
