"""RFC 9457 problem details: every API error is rendered here.

Body: ``{"type", "title", "status", "detail", "code"}`` plus ``"errors"`` (field -> messages) for
validation errors, with ``Content-Type: application/problem+json``. ``code`` is stable and
machine-readable; ``type`` is ``settings.GOAT_PROBLEM_TYPE_BASE + code``; ``title`` is the code in
words and never varies between occurrences of the same problem. docs/api.md lists the codes.

``title`` and ``detail`` speak the caller's language (``Accept-Language`` through LocaleMiddleware:
English or Russian; goat/web/api/problem_texts.py); ``code`` and ``type`` never change.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import InterfaceError as DatabaseInterfaceError
from django.db import OperationalError as DatabaseOperationalError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.utils.functional import Promise
from django.utils.translation import gettext
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions, serializers
from rest_framework.response import Response
from rest_framework.views import set_rollback

from goat.web.api.parsers import InvalidCharacters, has_invalid_characters
from goat.web.api.problem_texts import problem_title
from goat.web.errors import ServiceError

logger = logging.getLogger(__name__)

PROBLEM_CONTENT_TYPE = "application/problem+json"
#: the database could not be reached (or dropped the connection): 503, try again after this many seconds
UNAVAILABLE_RETRY_SECONDS = 5
UNAVAILABLE = "The database is not reachable just now; try again shortly."

# DRF exception class -> our code (first match wins; subclasses before their bases).
_DRF_CODES: list[tuple[type[exceptions.APIException], str]] = [
    (exceptions.ValidationError, "invalid"),
    (InvalidCharacters, "invalid_characters"),
    (exceptions.ParseError, "malformed_json"),
    (exceptions.NotAuthenticated, "not_authenticated"),
    (exceptions.AuthenticationFailed, "authentication_failed"),
    (exceptions.PermissionDenied, "permission_denied"),
    (exceptions.NotFound, "not_found"),
    (exceptions.MethodNotAllowed, "method_not_allowed"),
    (exceptions.NotAcceptable, "not_acceptable"),
    (exceptions.UnsupportedMediaType, "unsupported_media_type"),
    (exceptions.Throttled, "throttled"),
]


def problem_type(code: str) -> str:
    return f"{settings.GOAT_PROBLEM_TYPE_BASE}{code}"


def _plain(value: Any) -> Any:
    """``value`` with every lazily translated text made a plain string in the active language (bodies
    are stored as JSON too: goat.web.api.idempotency)."""
    if isinstance(value, Promise):
        return str(value)
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


def problem_body(*, status: int, code: str, detail: str, errors: Any = None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "type": problem_type(code),
        "title": problem_title(code),
        "status": status,
        "detail": str(detail),
        "code": code,
    }
    if errors is not None:
        body["errors"] = _plain(errors)
    return body


def problem_response(
    *, status: int, code: str, detail: str, errors: Any = None, headers: dict[str, str] | None = None
) -> Response:
    """A DRF response carrying a problem (for use inside DRF views and the exception handler)."""
    return Response(
        problem_body(status=status, code=code, detail=detail, errors=errors),
        status=status,
        headers=headers,
        content_type=PROBLEM_CONTENT_TYPE,
    )


def problem_json_response(*, status: int, code: str, detail: str,
                          headers: dict[str, str] | None = None) -> JsonResponse:
    """A plain Django response carrying a problem (outside DRF: handler404/500, middleware)."""
    response = JsonResponse(
        problem_body(status=status, code=code, detail=detail),
        status=status,
        content_type=PROBLEM_CONTENT_TYPE,
    )
    for name, value in (headers or {}).items():
        response[name] = value
    return response


def database_unavailable(exc: BaseException | None) -> bool:
    """Whether ``exc`` says the database cannot be reached or dropped the connection (PostgreSQL
    down or restarting, SQLite locked for too long): a 503 to retry, not a fault of the request."""
    return isinstance(exc, (DatabaseOperationalError, DatabaseInterfaceError))


def unavailable_response() -> JsonResponse:
    """503 ``service_unavailable`` with ``Retry-After``, as problem details (API and pages alike)."""
    return problem_json_response(status=503, code="service_unavailable", detail=UNAVAILABLE,
                                 headers={"Retry-After": str(UNAVAILABLE_RETRY_SECONDS)})


def _field_errors(detail: Any) -> dict[str, Any]:
    """DRF validation detail (dict, list or string) as a field -> messages map."""
    if isinstance(detail, dict):
        return {key: _messages(value) for key, value in detail.items()}
    return {"non_field_errors": _messages(detail)}


def _messages(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _messages(item) for key, item in value.items()}
    if isinstance(value, list):
        if any(isinstance(item, dict) for item in value):
            return [_messages(item) for item in value]
        return [str(item) for item in value]
    return [str(value)]


def _first_message(errors: dict[str, Any]) -> str:
    for field, messages in errors.items():
        while isinstance(messages, (list, dict)) and messages:
            messages = messages[0] if isinstance(messages, list) else next(iter(messages.values()))
        if messages:
            return str(messages) if field == "non_field_errors" else f"{field}: {messages}"
    return gettext("The request is invalid.")


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """Render every expected error as problem details (DRF's ``EXCEPTION_HANDLER`` is
    goat.games.problems', which gives this the engine's refusals as ServiceErrors).

    Unexpected exceptions return None, so they propagate (and are logged) and ProblemMiddleware
    answers 500 ``server_error``.
    """
    if isinstance(exc, ServiceError):
        set_rollback()
        return problem_response(
            status=exc.status, code=exc.code, detail=exc.detail, errors=exc.errors, headers=exc.headers
        )
    if isinstance(exc, DjangoValidationError):
        set_rollback()
        errors = (
            {key: [str(m) for m in value] for key, value in exc.message_dict.items()}
            if hasattr(exc, "error_dict")
            else {"non_field_errors": [str(m) for m in exc.messages]}
        )
        return problem_response(status=400, code="invalid", detail=_first_message(errors), errors=errors)
    if isinstance(exc, RequestDataTooBig):
        return problem_response(status=413, code="payload_too_large", detail=gettext("The request body is too large."))
    if isinstance(exc, SuspiciousOperation):
        return problem_response(status=400, code="bad_request", detail=gettext("The request was refused."))
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    if not isinstance(exc, exceptions.APIException):
        return None

    set_rollback()
    headers: dict[str, str] = {}
    if getattr(exc, "auth_header", None):
        headers["WWW-Authenticate"] = exc.auth_header
    if getattr(exc, "wait", None):
        headers["Retry-After"] = str(int(exc.wait))

    if isinstance(exc, exceptions.ValidationError):
        errors = _field_errors(exc.detail)
        return problem_response(
            status=exc.status_code, code="invalid", detail=_first_message(errors), errors=errors, headers=headers
        )

    code = next((code for cls, code in _DRF_CODES if isinstance(exc, cls)), None)
    if code is None:
        codes = exc.get_codes()
        code = codes if isinstance(codes, str) else exc.default_code
    detail = exc.detail if isinstance(exc.detail, str) else str(exc.default_detail)
    return problem_response(status=exc.status_code, code=code, detail=str(detail), headers=headers)


class ProblemSerializer(serializers.Serializer):
    """The shape of every error response (for the OpenAPI schema)."""

    type = serializers.CharField(help_text="GOAT_PROBLEM_TYPE_BASE + code, e.g. https://goat.example/problems/not_found")
    title = serializers.CharField(help_text="The code in words; the same for every occurrence of a code.")
    status = serializers.IntegerField(help_text="The HTTP status code.")
    detail = serializers.CharField(help_text="What went wrong this time, for a human.")
    code = serializers.CharField(help_text="Stable machine-readable code, e.g. username_taken.")
    errors = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        required=False,
        help_text="Field name -> messages; only for validation errors.",
    )


def problem_responses(*statuses: int) -> dict[tuple[int, str], type[ProblemSerializer]]:
    """``extend_schema(responses={...})`` entries for error statuses, as application/problem+json."""
    return {(status, PROBLEM_CONTENT_TYPE): ProblemSerializer for status in statuses}


def problem_example(status: int, code: str, detail: str, errors: Any = None):
    """An OpenApiExample of a problem, for ``extend_schema(examples=[...])``."""
    from drf_spectacular.utils import OpenApiExample

    return OpenApiExample(
        code,
        value=problem_body(status=status, code=code, detail=detail, errors=errors),
        response_only=True,
        status_codes=[str(status)],
        media_type=PROBLEM_CONTENT_TYPE,
    )


# --- Outside DRF: Django's error handlers and the last-resort middleware -----------------------


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


@csrf_exempt  # a POST to an unknown URL is a 404, not a CSRF 403
def api_not_found(request: HttpRequest, *args: Any, **kwargs: Any) -> JsonResponse:
    """Catch-all for unknown /api/ URLs (whatever DEBUG says)."""
    return problem_json_response(status=404, code="not_found", detail=gettext("No API endpoint at this URL."))


def handler404(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if _is_api(request):
        return problem_json_response(status=404, code="not_found", detail=gettext("Not found."))
    from django.views.defaults import page_not_found

    return page_not_found(request, exception)


def handler400(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """A request Django refused before any view (a ``Host`` not in ALLOWED_HOSTS, another suspicious
    operation): problem details under /api/, Django's page elsewhere."""
    if _is_api(request):
        return problem_json_response(status=400, code="bad_request", detail=gettext("The request was refused."))
    from django.views.defaults import bad_request

    return bad_request(request, exception)


def handler500(request: HttpRequest) -> HttpResponse:
    # called inside Django's ``except`` for an exception no view or middleware answered (one raised by
    # a middleware before the view, e.g. loading the session): a database outage is still a 503
    if database_unavailable(sys.exc_info()[1]):
        return unavailable_response()
    if _is_api(request):
        return problem_json_response(status=500, code="server_error", detail=gettext("Internal server error."))
    from django.views.defaults import server_error

    return server_error(request)


def _nul_in_headers(request: HttpRequest) -> bool:
    """NUL in a header (a token, an Idempotency-Key): no database text column can hold it."""
    return any("\x00" in value for key, value in request.META.items()
               if key.startswith("HTTP_") and isinstance(value, str))


class ProblemMiddleware:
    """An unexpected exception under /api/ becomes a problem+json 500 ``server_error``, never HTML;
    a database outage anywhere (API and pages) a problem+json 503 ``service_unavailable`` with
    ``Retry-After``.

    Before the view: NUL in the path is a 404, NUL in a header 400 ``invalid_characters`` (query
    parameters go through form fields or serializers, which refuse NUL themselves).
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if _is_api(request):
            # No object has NUL in its name (and PostgreSQL cannot even look one up).
            if has_invalid_characters(request.path):
                return problem_json_response(status=404, code="not_found", detail=gettext("Not found."))
            if _nul_in_headers(request):
                return problem_json_response(status=400, code="invalid_characters",
                                             detail=gettext("A header: %(problem)s")
                                             % {"problem": InvalidCharacters.default_detail})
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if database_unavailable(exception):  # the API and the pages: retry, never a 500
            logger.warning("database unavailable on %s %s: %s", request.method, request.path, exception)
            return unavailable_response()
        if not _is_api(request) or isinstance(exception, (Http404, DjangoPermissionDenied, SuspiciousOperation)):
            return None
        logger.exception("Unhandled exception on %s %s", request.method, request.path, exc_info=exception)
        return problem_json_response(status=500, code="server_error", detail=gettext("Internal server error."))
