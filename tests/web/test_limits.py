"""The web server's limits in the event loop (goat/serve/request_limits.py), its access log's escaping, and a bad
Host: fast tests on the ASGI application and the protocol, no real process (tests/web/test_limits_run.py
has those)."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import socket
import time

import pytest

from goat.serve import request_limits, server


def _app(seen: list):
    async def asgi(scope, receive, send):  # the streams' side: not used here
        raise AssertionError("no stream path here")

    def wsgi(environ, start_response):
        seen.append(environ["wsgi.input"].read())
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"ok"]

    return server.split(asgi=asgi, wsgi=wsgi, asgi_paths=r"^/api/stream/", threads=2)


def _scope(headers=()):
    return {"type": "http", "method": "POST", "path": "/api/auth/token/", "query_string": b"",
            "http_version": "1.1", "headers": list(headers), "client": ("127.0.0.1", 5)}


def _call(app, scope, messages, *, hold=False):
    """Run ``app`` with ``messages`` as the body; with ``hold`` the client then sends nothing more."""
    sent: list[dict] = []

    async def run():
        queue = list(messages)

        async def receive():
            if queue:
                return queue.pop(0)
            if hold:
                await asyncio.sleep(3600)
            return {"type": "http.disconnect"}

        async def send(message):
            sent.append(message)

        await asyncio.wait_for(app(scope, receive, send), timeout=60)

    asyncio.run(run())
    return sent


def _status_and_body(sent):
    start = next(m for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], dict(start["headers"]), body


def test_a_body_that_does_not_arrive_in_time_is_a_408_and_never_reaches_a_thread(settings):
    settings.GOAT_BODY_TIMEOUT_SECONDS = 0.3
    seen: list = []
    sent = _call(_app(seen), _scope([(b"content-length", b"1000")]),
                 [{"type": "http.request", "body": b"user", "more_body": True}], hold=True)

    status, headers, body = _status_and_body(sent)
    assert status == 408
    assert headers[b"connection"] == b"close"
    assert json.loads(body)["code"] == "request_timeout"
    assert seen == []  # the view never ran


def test_a_body_over_the_limit_is_a_413_from_its_length_or_from_what_arrives(settings):
    settings.GOAT_MAX_BODY_BYTES = 70_000
    seen: list = []
    sent = _call(_app(seen), _scope([(b"content-length", b"70001")]), [])
    assert _status_and_body(sent)[0] == 413
    chunks = [{"type": "http.request", "body": b"x" * 40_000, "more_body": True}] * 2
    sent = _call(_app(seen), _scope(), chunks)  # chunked: no length given
    status, _, body = _status_and_body(sent)
    assert (status, json.loads(body)["code"]) == (413, "payload_too_large")
    assert seen == []


def test_a_whole_body_reaches_the_view_and_a_client_gone_midway_gets_nothing():
    seen: list = []
    parts = [{"type": "http.request", "body": b'{"a":', "more_body": True},
             {"type": "http.request", "body": b" 1}", "more_body": False}]
    sent = _call(_app(seen), _scope([(b"content-length", b"8")]), parts)
    assert _status_and_body(sent)[0] == 200
    assert seen == [b'{"a": 1}']

    sent = _call(_app(seen), _scope(), [parts[0]])  # then the client disconnects
    assert sent == [] and len(seen) == 1


def test_the_refusal_speaks_the_callers_language(settings):
    settings.GOAT_BODY_TIMEOUT_SECONDS = 0.2
    sent = _call(_app([]), _scope([(b"accept-language", b"ru")]),
                 [{"type": "http.request", "body": b"x", "more_body": True}], hold=True)
    problem = json.loads(_status_and_body(sent)[2])
    assert problem["code"] == "request_timeout"
    assert problem["detail"] != "The request did not arrive in time."  # the Russian text


class _Transport:
    """What the protocol writes, and whether it closed the connection."""

    def __init__(self):
        self.written = b""
        self.closed = False

    def write(self, data):
        self.written += data

    def close(self):
        self.closed = True

    def is_closing(self):
        return self.closed

    def get_extra_info(self, name, default=None):
        return {"sockname": ("127.0.0.1", 8000), "peername": ("127.0.0.1", 5000)}.get(name, default)

    def pause_reading(self):
        pass

    def resume_reading(self):
        pass

    def set_protocol(self, protocol):
        pass


def _serve(data_chunks: list[bytes], *, wait: float = 0.0) -> tuple[_Transport, list[dict]]:
    """Feed ``data_chunks`` to the protocol of a worker running ``split``; the status of what it answered."""
    from uvicorn.config import Config
    from uvicorn.server import ServerState

    seen: list = []
    app = _app(seen)

    async def run():
        config = Config(app=app, http=request_limits.Protocol, lifespan="off", access_log=False)
        config.load()
        protocol = request_limits.Protocol(config=config, server_state=ServerState(), app_state={})
        transport = _Transport()
        protocol.connection_made(transport)  # type: ignore[arg-type]
        for chunk in data_chunks:
            protocol.data_received(chunk)
        await asyncio.sleep(wait or 0.3)
        if not transport.closed:
            protocol.connection_lost(None)
        return transport

    return asyncio.run(run()), seen


def _status(written: bytes) -> int:
    return int(written.split(b" ", 2)[1])


def test_a_200_kb_header_is_a_431_whether_it_is_still_arriving_or_complete():
    head = b"GET /health/ HTTP/1.1\r\nHost: localhost\r\nX-Big: " + b"a" * 200_000
    transport, seen = _serve([head[:150_000]])  # still arriving
    assert _status(transport.written) == 431 and transport.closed
    transport, seen = _serve([head + b"\r\n\r\n"])  # complete in one read
    assert _status(transport.written) == 431 and transport.closed
    assert b'"code": "request_header_fields_too_large"' in transport.written
    assert seen == []


def test_5000_headers_are_a_431_and_100_are_served():
    many = b"".join(b"X-%d: v\r\n" % i for i in range(5000))
    transport, seen = _serve([b"GET /health/ HTTP/1.1\r\nHost: localhost\r\n" + many + b"\r\n"])
    assert _status(transport.written) == 431 and transport.closed and seen == []
    some = b"".join(b"X-%d: v\r\n" % i for i in range(98))
    transport, seen = _serve([b"GET /health/ HTTP/1.1\r\nHost: localhost\r\n" + some + b"\r\n"])
    assert _status(transport.written) == 200


def test_the_field_limit_counts_each_request_of_a_kept_alive_connection_alone():
    """Pipelined requests on one connection: 30 heads of 10 fields each (300 in all) are each served
    (the count once ran on across the requests and refused the eleventh with 431)."""
    some = b"".join(b"X-%d: v\r\n" % i for i in range(9))
    head = b"GET /health/ HTTP/1.1\r\nHost: localhost\r\n" + some + b"\r\n"
    transport, seen = _serve([head * 30], wait=1.0)
    statuses = [int(line.split(b" ", 2)[1]) for line in transport.written.split(b"\r\n")
                if line.startswith(b"HTTP/1.1 ")]
    assert statuses == [200] * 30, statuses


def test_a_head_not_complete_in_time_is_a_408(settings):
    settings.GOAT_HEADER_TIMEOUT_SECONDS = 0.2
    transport, _ = _serve([b"POST /api/auth/token/ HTTP/1.1\r\nHost: localhost\r\n"], wait=1.0)
    assert _status(transport.written) == 408 and transport.closed
    transport, _ = _serve([], wait=1.0)  # a connection that sends nothing is closed without a word
    assert transport.closed and transport.written == b""


def test_the_access_log_escapes_control_characters_and_quotes(caplog):
    server._State.access_format = '%(h)s "%(r)s" %(s)s "%(a)s" %({x-forged}i)s'
    try:
        scope = {**_scope([(b"user-agent", b'ua"\r\nFAKE 200'), (b"x-forged", "a\u202eb\x1b[31m".encode())]),
                 "path": "/a\r\n127.0.0.1 \"GET /admin/ HTTP/1.1\" 200", "query_string": b"q=%0d%0a"}
        with caplog.at_level(logging.INFO, logger="gunicorn.access"):
            server._access_line(scope, {"status": 404, "bytes": 0, "headers": []}, 0.0)
    finally:
        server._State.access_format = None
    [record] = [r for r in caplog.records if r.name == "gunicorn.access"]
    line = record.getMessage()
    assert "\n" not in line and "\r" not in line and "\x1b" not in line and "\u202e" not in line
    assert line.count('"') == 4  # only the format's own quotes
    assert "/a\\r\\n127.0.0.1 \\x22GET /admin/" in line and "\\u202e" in line


def test_the_access_log_knows_gunicorns_time_and_process_atoms(caplog):
    """An operator's access_log_format may use gunicorn's %(t)s, %(T)s, %(L)s and %(p)s: they read as
    gunicorn writes them, not as "-"."""
    server._State.access_format = "%(t)s %(T)s %(L)s %(p)s %(M)s"
    try:
        with caplog.at_level(logging.INFO, logger="gunicorn.access"):
            server._access_line(_scope([]), {"status": 200, "bytes": 0, "headers": []}, time.perf_counter() - 1.25)
    finally:
        server._State.access_format = None
    [record] = [r for r in caplog.records if r.name == "gunicorn.access"]
    stamp, seconds, decimal, pid, ms = record.getMessage().rsplit(" ", 4)
    assert re.fullmatch(r"\[\d\d/[A-Z][a-z]{2}/\d{4}:\d\d:\d\d:\d\d [+-]\d{4}\]", stamp), stamp
    assert seconds == "1" and re.fullmatch(r"1\.2\d{5}", decimal) and 1250 <= int(ms) < 1300
    assert pid == f"<{os.getpid()}>"


@pytest.mark.django_db
def test_a_bad_host_is_a_400_with_one_warning_line_and_no_traceback(client):
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record):
            records.append(record)

    handler = Keep(level=logging.DEBUG)
    names = ["", "django", "django.security", "django.security.DisallowedHost", "django.request", "goat"]
    for name in names:
        logging.getLogger(name).addHandler(handler)
    try:
        api = client.get("/api/games/", HTTP_HOST="evil.example")
        page = client.get("/", HTTP_HOST="evil.example:80\r\nx")
    finally:
        for name in names:
            logging.getLogger(name).removeHandler(handler)

    assert (api.status_code, page.status_code) == (400, 400)
    assert (api["Content-Type"], api.json()["code"]) == ("application/problem+json", "bad_request")
    loud = {(r.name, r.levelname, r.getMessage(), bool(r.exc_info)) for r in records if r.levelno >= logging.WARNING}
    assert len(loud) == 2, loud  # one line per request
    assert all(level == "WARNING" and not traceback for _, level, _, traceback in loud), loud


@pytest.mark.skipif(not hasattr(socket, "TCP_USER_TIMEOUT"), reason="TCP_USER_TIMEOUT is Linux's (CI runs on Linux)")
def test_a_connection_closes_once_its_sent_bytes_stay_unacknowledged_for_the_user_timeout(settings):
    settings.GOAT_TCP_USER_TIMEOUT_SECONDS = 12

    class Transport:
        def __init__(self, sock):
            self.sock = sock

        def get_extra_info(self, name):
            return self.sock if name == "socket" else None

    with socket.socket() as sock:
        request_limits.unacknowledged_limit(Transport(sock))
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT) == 12_000
    with socket.socket(socket.AF_UNIX) as unix:  # not TCP: left alone
        request_limits.unacknowledged_limit(Transport(unix))
