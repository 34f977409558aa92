"""Structured logs: a request id and a game id on every log record, and an optional JSON formatter.

* ``RequestIdMiddleware`` takes the incoming ``X-Request-ID`` if it is sane (1..128 characters of
  ``[A-Za-z0-9._:-]``), else makes a uuid4, keeps it in a contextvar for the request and returns it
  in the ``X-Request-ID`` response header.
* Services set the game id (``game_context``) when they lock a game row; a Celery task gets its
  task id as request id (goat/celery.py).
* ``ContextFilter`` copies both onto every record (``record.request_id``, ``record.game_id``, ``-``
  when unset); ``JsonFormatter`` writes one JSON object per line. ``GOAT_LOG_FORMAT=json`` turns it
  on (settings.LOGGING and gunicorn.conf.py); the default is plain text.
"""

from __future__ import annotations

import contextvars
import json
import logging
import re
import uuid
from datetime import UTC, datetime

REQUEST_ID_HEADER = "X-Request-ID"
_SANE_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")

request_id_var: contextvars.ContextVar[str | None] = contextvars.ContextVar("goat_request_id", default=None)
game_id_var: contextvars.ContextVar[int | None] = contextvars.ContextVar("goat_game_id", default=None)


def request_id_from(value: str | None) -> str:
    """The caller's request id if it is sane, else a fresh uuid4."""
    if value and _SANE_REQUEST_ID.fullmatch(value):
        return value
    return uuid.uuid4().hex


def game_context(game_id: int | None) -> None:
    """Mark the rest of this request (or task) as being about ``game_id``."""
    game_id_var.set(game_id)


def log_safe(text: str) -> str:
    """``text`` with every character a reader or a log parser could take for something else escaped:
    control characters (a CR LF would start a forged line), other non-printables (bidi overrides,
    zero-width characters) as ``\\xHH``/``\\uHHHH``, and ``"`` and ``\\`` (which delimit the quoted
    fields) as ``\\x22`` and ``\\x5c``, as nginx writes them."""
    if text.isprintable() and '"' not in text and "\\" not in text:
        return text
    return "".join(_ESCAPES.get(c) or (c if c.isprintable() else c.encode("unicode_escape").decode("ascii"))
                   for c in text)


_ESCAPES = {'"': "\\x22", "\\": "\\x5c"}


class OneWarningLine(logging.Filter):
    """A refused request's record (a bad ``Host``: django.security.DisallowedHost, which Django writes at
    ERROR with its traceback) as one WARNING line: a client's mistake, not the server's. Its message is
    escaped (``log_safe``): the refused value is the client's own text."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = log_safe(record.getMessage()), ()
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        record.exc_info = record.exc_text = None
        return True


class RequestIdMiddleware:
    """Assign or propagate ``X-Request-ID``; first in MIDDLEWARE so every response carries it."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request_id = request_id_from(request.headers.get(REQUEST_ID_HEADER))
        request.request_id = request_id
        rid_token = request_id_var.set(request_id)
        gid_token = game_id_var.set(None)
        try:
            response = self.get_response(request)
        finally:
            request_id_var.reset(rid_token)
            game_id_var.reset(gid_token)
        response[REQUEST_ID_HEADER] = request_id
        return response


class ContextFilter(logging.Filter):
    """Add ``request_id`` and ``game_id`` to every record (``-`` when there is none)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "request_id", None) is None:
            record.request_id = (request_id_var.get() or _django_request_id(record)
                                 or _gunicorn_access_request_id(record) or "-")
        if getattr(record, "game_id", None) is None:
            game_id = game_id_var.get()
            record.game_id = game_id if game_id is not None else "-"
        return True


def _django_request_id(record: logging.LogRecord) -> str | None:
    # django.request logs 4xx/5xx after the middleware chain returned: the request itself is on the record
    return getattr(getattr(record, "request", None), "request_id", None)


def _gunicorn_access_request_id(record: logging.LogRecord) -> str | None:
    # gunicorn's access log passes its atoms as the record's args; our response header is one of them
    if record.name == "gunicorn.access" and isinstance(record.args, dict):
        value = record.args.get("{x-request-id}o")
        return value if value and value != "-" else None
    return None


_STANDARD_ATTRS = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {
    "message", "asctime", "taskName", "request"}


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, request_id, game_id, extras, exc."""

    def format(self, record: logging.LogRecord) -> str:
        out = {
            "time": datetime.fromtimestamp(record.created, tz=UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", None) or request_id_var.get(),
            "game_id": getattr(record, "game_id", None),
        }
        if out["game_id"] in (None, "-"):
            out["game_id"] = game_id_var.get()
        if out["request_id"] == "-":
            out["request_id"] = None
        for key, value in vars(record).items():
            if key not in _STANDARD_ATTRS and key not in out and not key.startswith("_"):
                out[key] = value if isinstance(value, (str, int, float, bool, type(None))) else repr(value)
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        if record.stack_info:
            out["stack"] = self.formatStack(record.stack_info)
        return json.dumps(out, ensure_ascii=False, default=str)


def logging_config(*, fmt: str, level: str) -> dict:
    """The ``LOGGING`` dict: everything to stdout, plain text or JSON, with the context filter."""
    formatter = "json" if fmt == "json" else "plain"
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"context": {"()": "goat.web.observe.logs.ContextFilter"},
                    "one_warning_line": {"()": "goat.web.observe.logs.OneWarningLine"}},
        "formatters": {
            "plain": {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"},
            "json": {"()": "goat.web.observe.logs.JsonFormatter"},
        },
        "handlers": {
            "stdout": {"class": "logging.StreamHandler", "stream": "ext://sys.stdout",
                       "formatter": formatter, "filters": ["context"]},
        },
        "root": {"handlers": ["stdout"], "level": level},
        "loggers": {"django": {"handlers": ["stdout"], "level": level, "propagate": False},
                    "django.security.DisallowedHost": {"handlers": ["stdout"], "level": level, "propagate": False,
                                                       "filters": ["one_warning_line"]}},
    }
