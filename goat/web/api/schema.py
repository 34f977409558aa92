"""OpenAPI pieces every API shares: the problems any authenticated, throttled or idempotent
endpoint can answer, and the schema class that documents them on every operation.

An operation anyone may call (a public read: ``IsAuthenticatedOrReadOnly`` on a GET, or ``AllowAny``) has
``{}`` among its security requirements (drf-spectacular) and says so in its description; its 401 is a bad
token only.

``AutoSchema`` (``REST_FRAMEWORK["DEFAULT_SCHEMA_CLASS"]``) adds to each operation the statuses the
service can answer whatever the view (docs/api.md, "Errors"), unless the view documents them
itself: 400 under /api/ (NUL in a header is ``invalid_characters`` before any view; a bad query
value, header or body is ``invalid`` or the view's own code), 401 where the view needs a login, 403
on unsafe methods a session may call (CSRF), 404 where the path names an object or the list is
paged, 406 (``Accept`` names no JSON type), 413 and 415 where a body is read, and 429 where a
throttle applies. Request bodies of a ``StrictSerializer`` say ``additionalProperties: false``
(``strict_bodies_postprocessing_hook``). Each problem response names the codes it can carry (the
``code`` enum of its schema): the common ones of its status (``common_codes``) and the ones the operation
declares with ``raises`` in its app's schema module (``extend_schema(extensions=raises(GameError.GAME_FULL,
...))``), each at the status its app's ``errors.py`` declares; a declared code's status gets its response.
It also adds the
OpenAPI links a view declares in ``schema_links`` (how a client, or schemathesis' stateful phase,
goes from one answer to the next request), and ``allowEmptyValue`` to every optional query parameter:
DRF's query serializers, django-filter and the pagination all read ``?name=`` as leaving it out.

``ConstrainedFilterExtension`` states the limits of django-filter query parameters that
drf-spectacular leaves out (``min_value``, ``max_value``, ``max_length``; whole numbers; no NUL in text).
``validated_min_length_postprocessing_hook`` states the minimum length of a field that only a validator
checks (``VALIDATED_MIN_LENGTH`` in its ``extend_schema_field``). All of it goes through drf-spectacular's
public means: the schema class's ``get_operation``, extensions and postprocessing hooks.
"""

from __future__ import annotations

import threading
from typing import Any

from django import forms
from drf_spectacular.contrib.django_filters import DjangoFilterExtension
from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from drf_spectacular.utils import OpenApiParameter
from rest_framework.authentication import SessionAuthentication
from rest_framework.permissions import SAFE_METHODS, AllowAny

from goat.web.api.fields import StrictSerializer
from goat.web.api.problems import PROBLEM_CONTENT_TYPE, ProblemSerializer, problem_example
from goat.web.errors import ErrorCode, ErrorCodeGroup, WebError

UNAUTHENTICATED = problem_example(401, "not_authenticated", "Authentication credentials were not provided.")
THROTTLED = problem_example(429, "throttled", "Request was throttled. Expected available in 2 seconds.")
KEY_REUSED = problem_example(422, "idempotency_key_reused", "This Idempotency-Key was used for a different request.")
IN_PROGRESS = problem_example(409, "request_in_progress",
                              "A request with this Idempotency-Key is still being processed.")

#: a row id in a path (goat.web.converters: up to 18 digits); no row has id 0
ID_SCHEMA = {"type": "integer", "minimum": 1, "maximum": 10**18 - 1}
#: goat.web.api.idempotency: 1 to 255 characters once the server has stripped the header's outer spaces
IDEMPOTENCY_KEY_SCHEMA = {"type": "string", "minLength": 1, "maxLength": 255, "pattern": r"\S"}
#: the header of every operation wrapped in ``goat.web.api.idempotency.idempotent``
IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key", IDEMPOTENCY_KEY_SCHEMA, OpenApiParameter.HEADER,
    description="1 to 255 characters (400 `invalid_idempotency_key` otherwise). A retry with the same key and "
                "body returns the first answer.",
)

#: status -> what it means wherever AutoSchema adds it
COMMON_PROBLEMS: dict[int, str] = {
    400: "A query parameter, header or body is not as documented: `invalid` (with `errors` naming it), "
         "`invalid_characters`, `malformed_json` or the operation's own code.",
    401: "`not_authenticated` (no credentials) or `authentication_failed` (a bad token).",
    403: "`permission_denied`: not allowed (a session without its CSRF token, or the operation's own rule).",
    404: "`not_found`: no such object, or a page past the last.",
    406: "`not_acceptable`: the Accept header names no type the API answers (application/json).",
    413: "`payload_too_large`: the body is over 64 KiB.",
    415: "`unsupported_media_type`: the body is not application/json.",
    429: "`throttled` (or the operation's own code): over a rate limit; Retry-After says when to try again.",
}
RETRY_AFTER = {"description": "Seconds to wait.", "schema": {"type": "integer", "minimum": 0}}
WWW_AUTHENTICATE = {"description": "`Token`.", "schema": {"type": "string"}}
PROBLEM_REF = {"$ref": "#/components/schemas/Problem"}


#: the extension key under which ``raises`` hands an operation's codes to ``AutoSchema`` (removed from the document)
RAISES = "x-goat-raises"


def raises(*codes: ErrorCode | tuple[ErrorCode, int] | ErrorCodeGroup) -> dict[str, Any]:
    """``extend_schema(extensions=raises(...))``: the problem codes an operation answers with besides the
    common ones (``common_codes``), each at its declared status, or ``(code, status)`` where the service
    raises it with another, or a group that apps above fill (read when the document is generated). The one
    list of them: the document's ``code`` enums and responses come from it."""
    return {RAISES: tuple(code if isinstance(code, (tuple, ErrorCodeGroup)) else (code, code.status)
                          for code in codes)}


def codes_by_status(declared: Any) -> dict[int, set[str]]:
    """``raises``' entries as status -> code strings."""
    found: dict[int, set[str]] = {}
    for entry in declared:
        for code, status in ([(code, code.status) for code in entry] if isinstance(entry, ErrorCodeGroup)
                             else [entry]):
            found.setdefault(status, set()).add(code.code)
    return found


def common_codes(operation: dict[str, Any], statuses: set[int], *, body: bool, idempotent: bool) -> dict[int, set[str]]:
    """The codes the service answers with on ``statuses`` whatever the view (``COMMON_PROBLEMS``): NUL in a
    header or a refused Host (400) before any view; a bad query value or body (``invalid``), a body that is
    not JSON (``malformed_json``); 401 without a token (unless the operation is public) or with a bad one;
    the Idempotency-Key's own codes where the operation takes one."""
    public = {} in operation.get("security", [])
    query = any(p["in"] == "query" for p in operation.get("parameters", []))
    codes: dict[int, set[str]] = {
        400: {WebError.INVALID_CHARACTERS.code, WebError.BAD_REQUEST.code}
        | ({WebError.INVALID.code} if query or body else set()) | ({WebError.MALFORMED_JSON.code} if body else set()),
        401: {WebError.AUTHENTICATION_FAILED.code} | (set() if public else {WebError.NOT_AUTHENTICATED.code}),
        403: {WebError.PERMISSION_DENIED.code},
        404: {WebError.NOT_FOUND.code},
        406: {WebError.NOT_ACCEPTABLE.code},
        413: {WebError.PAYLOAD_TOO_LARGE.code},
        415: {WebError.UNSUPPORTED_MEDIA_TYPE.code},
        429: {WebError.THROTTLED.code},
    }
    found = {status: set(codes[status]) for status in statuses if status in codes}
    if idempotent:
        for code in (WebError.INVALID_IDEMPOTENCY_KEY, WebError.REQUEST_IN_PROGRESS, WebError.IDEMPOTENCY_KEY_REUSED):
            found.setdefault(code.status, set()).add(code.code)
    return found


def problem_schema(codes: set[str]) -> dict[str, Any]:
    """The schema of a problem response that carries one of ``codes``."""
    return {"allOf": [dict(PROBLEM_REF),
                      {"type": "object", "properties": {"code": {"type": "string", "enum": sorted(codes)}}}]}


def codes_text(codes: set[str]) -> str:
    """A response's description that names its codes: "`seat_taken`, `game_full`."."""
    return ", ".join(f"`{code}`" for code in sorted(codes)) + "."


def problem_codes_apply(responses: dict[str, Any], codes: dict[int, set[str]]) -> None:
    """Give each status of ``codes`` its problem response (described by its codes when no text says more)
    and each problem response the ``code`` enum of its status."""
    for status in sorted(codes):
        text = COMMON_PROBLEMS.get(status) or codes_text(codes[status])
        responses.setdefault(str(status), problem_response_object(text))
    for status, response in responses.items():
        media = response.get("content", {}).get(PROBLEM_CONTENT_TYPE)
        if media is None or not status.isdigit():
            continue
        if not response.get("description"):
            response["description"] = codes_text(codes.get(int(status), set()))
        if codes.get(int(status)):
            media["schema"] = problem_schema(codes[int(status)])


def problem_response_object(description: str) -> dict[str, Any]:
    """An OpenAPI response object whose body is a problem."""
    return {"description": description, "content": {PROBLEM_CONTENT_TYPE: {"schema": dict(PROBLEM_REF)}}}


#: the 401 of an operation anyone may call: only a token that is sent and bad is refused
PUBLIC_401 = "`authentication_failed`: a bad token. No token at all is fine: anyone may call this operation."
PUBLIC_NOTE = ("Public: no token needed (the security requirement includes `{}`); an anonymous caller is "
               "counted per address under the `anon` rate limit and sees what a spectator without a seat sees.")
AUTHENTICATION_FAILED = problem_example(401, "authentication_failed", "Invalid token.")


def public_operation(operation: dict[str, Any]) -> None:
    """Say on an operation open to anonymous callers (``{}`` among its security requirements) that it
    is public, and that its 401 is a bad token only (never ``not_authenticated``)."""
    operation["description"] = f"{operation.get('description', '')}\n\n{PUBLIC_NOTE}".lstrip()
    unauthorized = operation["responses"]["401"]
    unauthorized["description"] = PUBLIC_401
    for media in unauthorized.get("content", {}).values():
        examples = media.get("examples")
        if examples is not None:
            examples.pop("NotAuthenticated", None)
            examples.pop("not_authenticated", None)
            examples["AuthenticationFailed"] = {"value": AUTHENTICATION_FAILED.value,
                                                "summary": "authentication_failed"}


def add_common_headers(responses: dict[str, Any]) -> None:
    """Retry-After on a 429, WWW-Authenticate on a 401 (both sent by the service)."""
    if "429" in responses:
        responses["429"].setdefault("headers", {}).setdefault("Retry-After", RETRY_AFTER)
    if "401" in responses:
        responses["401"].setdefault("headers", {}).setdefault("WWW-Authenticate", WWW_AUTHENTICATE)


COMPONENT_PREFIX = "#/components/schemas/"
#: request component name -> its StrictSerializer class, noted while a document is generated (per
#: thread: two requests for the document may generate it at once)
_STRICT = threading.local()


def _strict_bodies() -> dict[str, type]:
    if not hasattr(_STRICT, "bodies"):
        _STRICT.bodies = {}
    return _STRICT.bodies


def _component_of(schema: dict[str, Any]) -> str | None:
    """The component a property's schema refers to (directly, through allOf, or as a list's items)."""
    for candidate in (schema, *schema.get("allOf", ()), schema.get("items", {})):
        ref = candidate.get("$ref", "") if isinstance(candidate, dict) else ""
        if ref.startswith(COMPONENT_PREFIX):
            return ref[len(COMPONENT_PREFIX):]
    return None


def strict_bodies_postprocessing_hook(result, generator, request, public):
    """A request body of a ``StrictSerializer`` (and of each one nested in it) refuses unknown fields
    (400 ``invalid``): ``additionalProperties: false`` on its request component."""
    components = result.get("components", {}).get("schemas", {})
    todo = list(_strict_bodies().items())
    while todo:
        name, serializer_class = todo.pop()
        component = components.get(name)
        if component is None or component.get("additionalProperties") is False:
            continue
        component["additionalProperties"] = False
        for field_name, field in serializer_class().fields.items():
            nested = getattr(field, "child", field)
            # a nested StrictSerializer, or a field that validates through one (``strict_serializer``)
            strict = (type(nested) if isinstance(nested, StrictSerializer)
                      else getattr(nested, "strict_serializer", None))
            if strict is not None and field_name in component.get("properties", {}):
                found = _component_of(component["properties"][field_name])
                if found:
                    todo.append((found, strict))
    _strict_bodies().clear()
    return result


#: the key of a field's schema (``extend_schema_field``) that states a minimum length only a validator
#: checks; ``validated_min_length_postprocessing_hook`` makes it the schema's ``minLength``
VALIDATED_MIN_LENGTH = "x-goat-validated-min-length"


def validated_min_length_postprocessing_hook(result, generator, request, public):
    """A field whose schema names ``VALIDATED_MIN_LENGTH`` (a length only a validator checks, such as
    Django's password validators) has that ``minLength``. drf-spectacular appends its own ``minLength``
    (1 for a request's non-blank text) after a field's schema, so the length is set here, in place."""
    todo: list[Any] = [result]
    while todo:
        node = todo.pop()
        if isinstance(node, dict):
            if VALIDATED_MIN_LENGTH in node:
                node["minLength"] = node.pop(VALIDATED_MIN_LENGTH)
            todo.extend(node.values())
        elif isinstance(node, list):
            todo.extend(node)
    return result


class AutoSchema(SpectacularAutoSchema):
    def get_operation(self, path, path_regex, path_prefix, method, registry):
        operation = super().get_operation(path, path_regex, path_prefix, method, registry)
        if operation is None:
            return None
        self.resolve_serializer(ProblemSerializer, "response")  # the Problem component, referenced below
        for parameter in operation.get("parameters", []):
            if parameter["in"] == "query" and not parameter.get("required"):
                # DRF's serializers, django-filter and the pagination all read ?name= as no value
                parameter["allowEmptyValue"] = True
        responses = operation["responses"]
        declared = codes_by_status(operation.pop(RAISES, ()))
        for status in sorted(self.problem_statuses(operation)):
            responses.setdefault(str(status), problem_response_object(COMMON_PROBLEMS[status]))
        statuses = {int(status) for status in responses if status.isdigit()}
        codes = common_codes(operation, statuses, body="requestBody" in operation, idempotent=any(
            p["in"] == "header" and p["name"] == IDEMPOTENCY_KEY.name for p in operation.get("parameters", [])))
        for status, found in declared.items():
            codes.setdefault(status, set()).update(found)
        problem_codes_apply(responses, codes)
        if {} in operation.get("security", []) and "401" in responses:
            public_operation(operation)
        add_common_headers(responses)
        for status, links in getattr(self.view, "schema_links", {}).get(self.method.lower(), {}).items():
            responses[str(status)].setdefault("links", {}).update(links)
        self._note_strict_body(operation)
        return operation

    def _note_strict_body(self, operation: dict[str, Any]) -> None:
        """Remember which request component a ``StrictSerializer`` body maps to, for
        ``strict_bodies_postprocessing_hook`` (a nested one is found there, through its parent)."""
        if "requestBody" not in operation:
            return
        serializer = self.get_request_serializer()
        strict = serializer if isinstance(serializer, type) else type(serializer)
        if issubclass(strict, StrictSerializer):
            for media in operation["requestBody"].get("content", {}).values():
                ref = media.get("schema", {}).get("$ref", "")
                if ref.startswith(COMPONENT_PREFIX):
                    _strict_bodies()[ref[len(COMPONENT_PREFIX):]] = strict

    def problem_statuses(self, operation: dict[str, Any]) -> set[int]:
        view = self.view
        statuses = {406}
        parameters = operation.get("parameters", [])
        if self.path.startswith("/api/"):
            statuses.add(400)
        if not all(isinstance(permission, AllowAny) for permission in view.get_permissions()):
            statuses.add(401)
        if self.method not in SAFE_METHODS and any(
                isinstance(authenticator, SessionAuthentication) for authenticator in view.get_authenticators()):
            statuses.add(403)
        if any(p["in"] == "path" for p in parameters) or any(
                p["in"] == "query" and p["name"] == "page" for p in parameters):
            statuses.add(404)
        if "requestBody" in operation:
            statuses |= {413, 415}
        if view.get_throttles():
            statuses.add(429)
        return statuses


#: a text without NUL (``\\u0000``), which Django's form and serializer fields refuse
NO_NUL = "^[^\\x00]*$"


class ConstrainedFilterExtension(DjangoFilterExtension):
    """drf-spectacular's django-filter support, plus the bounds the filters' form fields enforce."""

    priority = 1

    def resolve_filter_field(self, auto_schema, model, filterset_class, field_name, filter_field):
        parameters = super().resolve_filter_field(auto_schema, model, filterset_class, field_name, filter_field)
        extra = filter_field.extra
        for parameter in parameters:
            schema = parameter["schema"]
            if issubclass(filter_field.field_class, forms.IntegerField):
                schema["type"] = "integer"
                schema.pop("format", None)
            if issubclass(filter_field.field_class, forms.CharField):
                schema["pattern"] = NO_NUL  # a form's CharField refuses NUL (400 invalid)
            for option, keyword in (("min_value", "minimum"), ("max_value", "maximum"),
                                    ("min_length", "minLength"), ("max_length", "maxLength")):
                if extra.get(option) is not None:
                    schema[keyword] = extra[option]
        return parameters


def link(operation_id: str, description: str, parameters: dict[str, str]) -> dict[str, Any]:
    """An OpenAPI link object: ``parameters`` maps a parameter of ``operation_id`` (``header.If-Match``
    for a header) to a runtime expression such as ``$response.body#/id``."""
    return {"operationId": operation_id, "description": description, "parameters": parameters}
