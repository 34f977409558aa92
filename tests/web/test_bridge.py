"""The API's WSGI bridge (goat/serve/bridge.py): one crossing per request, large responses in parts that
never hold the thread for the client, files sent by the loop, PEP 3333's start_response, write and
close. Fast: the bridge alone in an event loop."""

from __future__ import annotations

import asyncio
import contextvars
import io
import threading

import pytest

from goat.serve import bridge, request_limits, server

SCOPE = {"type": "http", "method": "POST", "path": "/api/games/1/moves/", "raw_path": b"/api/games/1/moves/",
         "query_string": b"a=1", "headers": [(b"content-type", b"application/json"), (b"content-length", b"2"),
                                              (b"x-thing", b"one"), (b"x-thing", b"two")],
         "server": ("127.0.0.1", 8000), "client": ("127.0.0.1", 50000), "scheme": "http", "http_version": "1.1",
         "root_path": ""}


def _serve(app, body=b"{}", *, send_delay=0.0, threads=2):
    """Run ``app`` through a Bridge; returns the messages sent and the names of the threads that
    handed a part of the response to the loop before the whole was made, one entry per part."""
    sent: list[dict] = []
    crossings = []
    real = bridge._Response.hand_over

    def counted(self):
        crossings.append(threading.current_thread().name)
        return real(self)

    async def run():
        async def send(message):
            if send_delay:
                await asyncio.sleep(send_delay)
            sent.append(message)

        await asyncio.wait_for(bridge.Bridge(app, threads=threads)(dict(SCOPE), body, send), timeout=30)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bridge._Response, "hand_over", counted)
        asyncio.run(run())
    return sent, crossings


def _body(sent):
    return b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")


def test_a_whole_response_crosses_once_and_is_sent_as_one_start_and_one_body():
    seen = {}

    def app(environ, start_response):
        seen.update(environ, thread=threading.current_thread().name, body=environ["wsgi.input"].read())
        start_response("201 Created", [("Content-Type", "application/json"), ("X-Id", "7")])
        return [b'{"version":', b" 3}"]

    sent, crossings = _serve(app, b'{"tile": "3-5"}')
    assert crossings == []  # the response crossed to the loop once, whole
    assert sent == [{"type": "http.response.start", "status": 201,
                     "headers": [(b"content-type", b"application/json"), (b"x-id", b"7")]},
                    {"type": "http.response.body", "body": b'{"version": 3}', "more_body": False}]
    assert seen["thread"].startswith("WSGI") and seen["thread"] != threading.main_thread().name
    assert seen["body"] == b'{"tile": "3-5"}'
    assert (seen["REQUEST_METHOD"], seen["PATH_INFO"], seen["QUERY_STRING"]) == ("POST", "/api/games/1/moves/", "a=1")
    assert (seen["CONTENT_TYPE"], seen["CONTENT_LENGTH"], seen["HTTP_X_THING"]) == ("application/json", "2", "one,two")
    assert (seen["REMOTE_ADDR"], seen["SERVER_PORT"], seen["wsgi.url_scheme"]) == ("127.0.0.1", "8000", "http")


def test_an_empty_response_is_a_start_and_an_empty_final_body():
    def app(environ, start_response):
        start_response("304 Not Modified", [])
        return []

    sent, _ = _serve(app)
    assert [m["type"] for m in sent] == ["http.response.start", "http.response.body"]
    assert sent[0]["status"] == 304 and sent[1] == {"type": "http.response.body", "body": b"", "more_body": False}


def test_a_large_response_goes_in_bounded_parts_in_order_and_the_thread_never_waits_for_the_client():
    chunk = b"x" * 8192
    count = 100  # 800 KiB: about three parts of FLUSH_BYTES and the rest
    made_all = []

    def app(environ, start_response):
        start_response("200 OK", [("Content-Type", "application/octet-stream")])
        for i in range(count):
            yield bytes([i]) + chunk[1:]
        made_all.append(True)

    bodies_when_made: list[int] = []

    async def run():
        sent: list[dict] = []

        async def send(message):
            await asyncio.sleep(0.05)  # a slow client
            if made_all and not bodies_when_made:
                bodies_when_made.append(len([m for m in sent if m["type"] == "http.response.body"]))
            sent.append(message)

        await bridge.Bridge(app, threads=1)(dict(SCOPE), b"", send)
        return sent

    sent = asyncio.run(run())
    bodies = [m for m in sent if m["type"] == "http.response.body"]
    assert _body(sent) == b"".join(bytes([i]) + chunk[1:] for i in range(count))
    assert all(m["more_body"] for m in bodies[:-1]) and not bodies[-1]["more_body"]
    assert all(len(m["body"]) < bridge.FLUSH_BYTES + len(chunk) for m in bodies)
    assert len(bodies) - 1 == count * len(chunk) // bridge.FLUSH_BYTES
    assert sent[0]["type"] == "http.response.start"
    assert bodies_when_made == [0]  # the whole response was made before the client took its first part


def test_the_thread_waits_only_when_it_is_ahead_of_the_client_by_ahead_bytes(monkeypatch):
    monkeypatch.setattr(bridge, "AHEAD_BYTES", 2 * bridge.FLUSH_BYTES)
    chunk = b"y" * bridge.FLUSH_BYTES  # each chunk is a part of its own
    made: list[int] = []  # at each part made, how many parts the client had taken
    taken = [0]

    def app(environ, start_response):
        start_response("200 OK", [])
        for _ in range(8):
            made.append(taken[0])
            yield chunk

    async def run():
        async def send(message):
            await asyncio.sleep(0.02)
            if message["type"] == "http.response.body" and message["body"]:
                taken[0] += 1

        await bridge.Bridge(app, threads=1)(dict(SCOPE), b"", send)

    asyncio.run(run())
    assert taken[0] == 8
    # the thread hands a part over while at most AHEAD_BYTES are untaken: it is never more than three
    # parts (two in the budget, the one it waits to hand over) ahead, and it does not wait before that
    assert made[:3] == [0, 0, 0]
    assert all(i - t <= 3 for i, t in enumerate(made)), made
    assert made[-1] >= 4


def test_a_client_gone_mid_response_stops_the_thread_and_closes_the_iterable():
    closed = []
    made = []

    class Body:
        def __iter__(self):
            for i in range(100):
                made.append(i)
                yield b"z" * bridge.FLUSH_BYTES

        def close(self):
            closed.append(True)

    def app(environ, start_response):
        start_response("200 OK", [])
        return Body()

    async def run():
        parts = [0]

        async def send(message):
            if message["type"] == "http.response.body":
                parts[0] += 1
                if parts[0] == 2:
                    raise request_limits.ClientGone

        await bridge.Bridge(app, threads=1)(dict(SCOPE), b"", send)

    with pytest.raises(request_limits.ClientGone):
        asyncio.run(run())
    assert closed == [True]
    assert len(made) < 100  # the thread stopped making what nobody would take


def test_a_file_is_sent_by_the_loop_in_blocks_after_the_thread_returned_and_is_closed():
    data = bytes(range(256)) * (bridge.FILE_BLOCK_BYTES // 256 * 3 + 7)
    file = io.BytesIO(data)
    returned = []

    def app(environ, start_response):
        start_response("200 OK", [("Content-Length", str(len(data)))])
        returned.append(True)
        return environ["wsgi.file_wrapper"](file, 8192)

    async def run(method):
        sent: list[dict] = []

        async def send(message):
            assert returned  # nothing is sent while the thread runs the application
            sent.append({**message, "thread": threading.current_thread().name})

        await bridge.Bridge(app, threads=1)({**SCOPE, "method": method}, b"", send)
        return sent

    sent = asyncio.run(run("GET"))
    assert _body(sent) == data and file.closed
    bodies = [m for m in sent if m["type"] == "http.response.body"]
    assert all(len(m["body"]) <= bridge.FILE_BLOCK_BYTES for m in bodies)
    assert {m["thread"] for m in sent} == {threading.main_thread().name}
    file = io.BytesIO(data)
    sent = asyncio.run(run("HEAD"))
    assert _body(sent) == b"" and file.closed


def test_a_file_iterated_by_a_middleware_reads_in_blocks():
    wrapper = bridge.FileWrapper(io.BytesIO(b"a" * 10), 4)
    assert list(wrapper) == [b"aaaa", b"aaaa", b"aa"]


def test_write_from_start_response_is_part_of_the_body():
    def app(environ, start_response):
        write = start_response("200 OK", [("Content-Type", "text/plain")])
        write(b"first ")
        return [b"then"]

    sent, _ = _serve(app)
    assert _body(sent) == b"first then"


class _Closing:
    def __init__(self, fail: bool):
        self.fail = fail
        self.closed = False

    def __iter__(self):
        yield b"part"
        if self.fail:
            raise ValueError("the iterable broke")

    def close(self):
        self.closed = True


@pytest.mark.parametrize("fail", [False, True])
def test_the_iterable_is_closed_when_it_ends_and_when_it_breaks(fail):
    result = _Closing(fail)

    def app(environ, start_response):
        start_response("200 OK", [])
        return result

    if fail:
        with pytest.raises(ValueError, match="the iterable broke"):
            _serve(app)
    else:
        assert _body(_serve(app)[0]) == b"part"
    assert result.closed


def test_an_application_that_raises_before_answering_raises_to_the_server_with_nothing_sent():
    # uvicorn then answers 500 and logs the traceback (Django's own handler turns a view's exception
    # into its 500 page before it gets here)
    def app(environ, start_response):
        raise KeyError("boom")

    sent: list = []

    async def run():
        async def send(message):
            sent.append(message)

        await bridge.Bridge(app, threads=1)(dict(SCOPE), b"", send)

    with pytest.raises(KeyError):
        asyncio.run(run())
    assert sent == []


def test_an_application_that_never_calls_start_response_is_an_error_not_a_response():
    def app(environ, start_response):
        return [b"no status"]

    with pytest.raises(RuntimeError, match="without calling start_response"):
        _serve(app)


def test_start_response_with_exc_info_replaces_the_headers_before_they_are_sent():
    def app(environ, start_response):
        start_response("200 OK", [("Content-Type", "text/plain")])
        try:
            raise ValueError("late")
        except ValueError:
            import sys

            start_response("500 Internal Server Error", [("Content-Type", "text/html")], sys.exc_info())
        return [b"error page"]

    sent, _ = _serve(app)
    assert sent[0]["status"] == 500 and sent[0]["headers"] == [(b"content-type", b"text/html")]


def test_start_response_with_exc_info_after_the_start_went_out_reraises():
    def app(environ, start_response):
        start_response("200 OK", [])
        yield b"z" * bridge.FLUSH_BYTES  # sent: the start is out
        try:
            raise ValueError("after the start")
        except ValueError:
            import sys

            start_response("500 Internal Server Error", [], sys.exc_info())

    with pytest.raises(ValueError, match="after the start"):
        _serve(app)


def test_start_response_twice_without_exc_info_is_an_error():
    def app(environ, start_response):
        start_response("200 OK", [])
        start_response("201 Created", [])
        return []

    with pytest.raises(RuntimeError, match="twice"):
        _serve(app)


def test_the_application_sees_the_context_of_the_request():
    request_id = contextvars.ContextVar("request_id", default=None)
    seen = []

    def app(environ, start_response):
        seen.append(request_id.get())
        request_id.set("changed on the thread")
        start_response("200 OK", [])
        return []

    async def run():
        request_id.set("r-1")

        async def send(message):
            pass

        await bridge.Bridge(app, threads=1)(dict(SCOPE), b"", send)
        return request_id.get()

    assert asyncio.run(run()) == "r-1"  # the thread's change stays in its copy
    assert seen == ["r-1"]


def test_split_closes_a_websocket_at_once():
    app = server.split(asgi=None, wsgi=None, asgi_paths=r"^/api/stream/", threads=1)
    sent = []

    async def run():
        async def receive():
            return {"type": "websocket.connect"}

        async def send(message):
            sent.append(message)

        await app({"type": "websocket", "path": "/api/stream/"}, receive, send)

    asyncio.run(run())
    assert sent == [{"type": "websocket.close", "code": 1000}]
