"""The API's WSGI bridge (goat/serve/bridge.py): one crossing per request, large responses in parts with
back-pressure, PEP 3333's start_response, write and close. Fast: the bridge alone in an event loop."""

from __future__ import annotations

import asyncio
import contextvars
import threading

import pytest

from goat.serve import bridge, server

SCOPE = {"type": "http", "method": "POST", "path": "/api/games/1/moves/", "raw_path": b"/api/games/1/moves/",
         "query_string": b"a=1", "headers": [(b"content-type", b"application/json"), (b"content-length", b"2"),
                                              (b"x-thing", b"one"), (b"x-thing", b"two")],
         "server": ("127.0.0.1", 8000), "client": ("127.0.0.1", 50000), "scheme": "http", "http_version": "1.1",
         "root_path": ""}


def _serve(app, body=b"{}", *, send_delay=0.0, threads=2):
    """Run ``app`` through a Bridge; returns the messages sent and the names of the threads that
    waited for the loop, one entry per wait."""
    sent: list[dict] = []
    crossings = []
    real = asyncio.run_coroutine_threadsafe

    def counted(coro, loop):
        crossings.append(threading.current_thread().name)
        return real(coro, loop)

    async def run():
        async def send(message):
            if send_delay:
                await asyncio.sleep(send_delay)
            sent.append(message)

        await asyncio.wait_for(bridge.Bridge(app, threads=threads)(dict(SCOPE), body, send), timeout=30)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bridge.asyncio, "run_coroutine_threadsafe", counted)
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
    assert crossings == []  # the thread never waited for the loop
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


def test_a_large_response_goes_in_bounded_parts_each_waited_for_in_order():
    chunk = b"x" * 8192
    count = 100  # 800 KiB: about three parts of FLUSH_BYTES and the rest

    def app(environ, start_response):
        start_response("200 OK", [("Content-Type", "application/octet-stream")])
        for i in range(count):
            yield bytes([i]) + chunk[1:]

    sent, crossings = _serve(app, send_delay=0.01)
    bodies = [m for m in sent if m["type"] == "http.response.body"]
    assert _body(sent) == b"".join(bytes([i]) + chunk[1:] for i in range(count))
    assert all(m["more_body"] for m in bodies[:-1]) and not bodies[-1]["more_body"]
    assert all(len(m["body"]) < bridge.FLUSH_BYTES + len(chunk) for m in bodies)
    assert len(crossings) == len(bodies) - 1 == count * len(chunk) // bridge.FLUSH_BYTES
    assert sent[0]["type"] == "http.response.start"


def test_the_thread_waits_for_each_part_to_be_sent_before_it_makes_more():
    chunk = b"y" * bridge.FLUSH_BYTES  # each chunk is a part of its own
    events = []

    def app(environ, start_response):
        start_response("200 OK", [])
        for i in range(3):
            events.append(("made", i))
            yield chunk

    async def run():
        async def send(message):
            await asyncio.sleep(0.02)
            if message["type"] == "http.response.body" and message["body"]:
                events.append(("sent", len([e for e in events if e[0] == "sent"])))

        await bridge.Bridge(app, threads=1)(dict(SCOPE), b"", send)

    asyncio.run(run())
    assert events == [("made", 0), ("sent", 0), ("made", 1), ("sent", 1), ("made", 2), ("sent", 2)]


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
