"""Errors that services raise on purpose. The API renders them as problem details (goat/web/api/problems.py).

Each app declares its error codes in one place, its ``errors.py``: an ``ErrorCode`` per code, with the
HTTP status it answers with and its title (``pgettext_lazy("problem title", …)``, so the title is said
in the caller's language). Declaring one registers it; goat.web renders any registered code's title
without knowing the app (``error_code``). A service raises a code by calling it::

    raise GameError.NOT_SEATED(gettext("You have no seat at this game."))

which is the ``ServiceError`` below with the code's status (a call may name another, as a code that
is refused at one place with 403 and elsewhere with 422 does).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.utils.translation import pgettext_lazy


class ServiceError(Exception):
    """A refusal by a service, with a stable machine-readable ``code`` and a human ``detail``.

    ``status`` is the HTTP status the API answers with (422 unless said), ``headers`` extra response
    headers, ``errors`` an optional field -> messages map (rendered like a validation error).

        raise ServiceError(code, "What was refused, in words.", status=403)
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


#: every declared code by its string (filled as the apps' errors modules are imported: their AppConfig.ready)
_DECLARED: dict[str, ErrorCode] = {}


@dataclass(frozen=True)
class ErrorCode:
    """A code an app answers with: its string (the stable ``code`` of docs/api.md), HTTP status and title."""

    code: str
    status: int
    title: Any  # a lazy translation: said in the active language when rendered

    def __post_init__(self) -> None:
        known = _DECLARED.get(self.code)
        if known is not None and known is not self and str(known.title) != str(self.title):
            raise ValueError(f"error code {self.code!r} is declared twice with different titles")
        _DECLARED.setdefault(self.code, self)

    def __call__(self, detail: str = "", *, status: int | None = None, headers: Mapping[str, str] | None = None,
                 errors: Mapping[str, list[str]] | None = None) -> ServiceError:
        """The refusal with this code (raise it): this code's status unless ``status`` says another."""
        return ServiceError(self.code, detail, status=status or self.status, headers=headers, errors=errors)


class ErrorCodeGroup:
    """Codes that apps above the declaring one add to, such as the refusals of a signal's receivers (the games
    app's ``SEAT_REFUSALS``: ratings refuses a seat with its own codes); an operation that sends the signal
    lists the group among its codes (goat.web.api.schema.raises), read when the OpenAPI document is generated."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._codes: list[ErrorCode] = []

    def add(self, *codes: ErrorCode) -> None:
        self._codes.extend(code for code in codes if code not in self._codes)

    def __iter__(self):
        return iter(tuple(self._codes))

    def __repr__(self) -> str:
        return f"ErrorCodeGroup({self.name!r}: {', '.join(code.code for code in self._codes)})"


def error_code(code: str) -> ErrorCode | None:
    """The declared code ``code`` (None: no app declares it)."""
    return _DECLARED.get(code)


def declared_codes() -> dict[str, ErrorCode]:
    """Every declared code, by its string."""
    return dict(_DECLARED)


class WebError:
    """The codes of the API's plumbing, whichever app the request is for."""

    AUTHENTICATION_FAILED = ErrorCode(
        "authentication_failed", 401, pgettext_lazy("problem title", "Authentication failed"))
    BAD_REQUEST = ErrorCode("bad_request", 400, pgettext_lazy("problem title", "Bad request"))
    IDEMPOTENCY_KEY_REUSED = ErrorCode(
        "idempotency_key_reused", 422, pgettext_lazy("problem title", "Idempotency key reused"))
    INVALID = ErrorCode("invalid", 400, pgettext_lazy("problem title", "Invalid"))
    INVALID_CHARACTERS = ErrorCode("invalid_characters", 400, pgettext_lazy("problem title", "Invalid characters"))
    INVALID_IDEMPOTENCY_KEY = ErrorCode(
        "invalid_idempotency_key", 400, pgettext_lazy("problem title", "Invalid idempotency key"))
    MALFORMED_JSON = ErrorCode("malformed_json", 400, pgettext_lazy("problem title", "Malformed json"))
    METHOD_NOT_ALLOWED = ErrorCode("method_not_allowed", 405, pgettext_lazy("problem title", "Method not allowed"))
    NOT_ACCEPTABLE = ErrorCode("not_acceptable", 406, pgettext_lazy("problem title", "Not acceptable"))
    NOT_AUTHENTICATED = ErrorCode("not_authenticated", 401, pgettext_lazy("problem title", "Not authenticated"))
    NOT_FOUND = ErrorCode("not_found", 404, pgettext_lazy("problem title", "Not found"))
    PAYLOAD_TOO_LARGE = ErrorCode("payload_too_large", 413, pgettext_lazy("problem title", "Payload too large"))
    PERMISSION_DENIED = ErrorCode("permission_denied", 403, pgettext_lazy("problem title", "Permission denied"))
    REQUEST_HEADER_FIELDS_TOO_LARGE = ErrorCode(
        "request_header_fields_too_large", 431, pgettext_lazy("problem title", "Request header fields too large"))
    REQUEST_IN_PROGRESS = ErrorCode("request_in_progress", 409, pgettext_lazy("problem title", "Request in progress"))
    REQUEST_TIMEOUT = ErrorCode("request_timeout", 408, pgettext_lazy("problem title", "Request timeout"))
    SERVER_ERROR = ErrorCode("server_error", 500, pgettext_lazy("problem title", "Server error"))
    SERVICE_UNAVAILABLE = ErrorCode("service_unavailable", 503, pgettext_lazy("problem title", "Service unavailable"))
    THROTTLED = ErrorCode("throttled", 429, pgettext_lazy("problem title", "Throttled"))
    TOO_MANY_STREAMS = ErrorCode("too_many_streams", 429, pgettext_lazy("problem title", "Too many streams"))
    UNSUPPORTED_MEDIA_TYPE = ErrorCode(
        "unsupported_media_type", 415, pgettext_lazy("problem title", "Unsupported media type"))
