"""Errors that services raise on purpose. The API renders them as problem details (goat/web/problems.py)."""

from __future__ import annotations

from collections.abc import Mapping


class ServiceError(Exception):
    """A refusal by a service, with a stable machine-readable ``code`` and a human ``detail``.

    ``status`` is the HTTP status the API answers with (422 unless said), ``headers`` extra response
    headers, ``errors`` an optional field -> messages map (rendered like a validation error).

        raise ServiceError("not_seated", "You have no seat at this game.", status=403)
    """

    def __init__(
        self,
        code: str,
        detail: str = "",
        *,
        status: int = 422,
        headers: Mapping[str, str] | None = None,
        errors: Mapping[str, list[str]] | None = None,
    ) -> None:
        self.code = code
        self.detail = detail or code.replace("_", " ").capitalize() + "."
        self.status = status
        self.headers = dict(headers or {})
        self.errors = dict(errors) if errors is not None else None
        super().__init__(f"{code}: {self.detail}")
