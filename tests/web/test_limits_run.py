"""Hostile clients against a real ``manage.py run`` (as a newcomer starts it, no proxy in front): slow
bodies hold no thread, oversized heads are 431, the access log cannot be forged, a bad Host is one
warning line (docs/reliability.md "Limits")."""

from __future__ import annotations

import http.client
import json
import re
import socket
import time
import urllib.error
import urllib.request

import pytest

from testkit import RUN_THROTTLES_OFF, ManageRun, wait_for

pytestmark = pytest.mark.realprocess

BODY_SECONDS = 8  # the server's body deadline here: long enough to measure while the bodies are held
SEND_SECONDS = 4  # the server's write deadline here
#: the largest static file (1.9 MB): what a slow reader asks for to hold the most
LARGEST_STATIC = "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js.map"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    server = ManageRun(tmp_path_factory.mktemp("limits-run"), args=["--no-worker", "--web-workers", "2"],
                       env={**RUN_THROTTLES_OFF, "GOAT_BODY_TIMEOUT_SECONDS": str(BODY_SECONDS),
                            "GOAT_HEADER_TIMEOUT_SECONDS": str(BODY_SECONDS),
                            "GOAT_SEND_TIMEOUT_SECONDS": str(SEND_SECONDS)})
    try:
        server.wait_healthy(120)
        yield server
    finally:
        server.stop()


def _connect(run) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", run.port), timeout=60)
    return sock


def _answer(sock: socket.socket) -> bytes:
    data = b""
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            break
        if not chunk:
            break
        data += chunk
    return data


def _status(data: bytes) -> int:
    assert data.startswith(b"HTTP/1.1 "), data[:200]
    return int(data.split(b" ", 2)[1])


def _timed_get(url: str) -> tuple[int, float]:
    started = time.monotonic()
    with urllib.request.urlopen(url, timeout=30) as response:
        response.read()
        return response.status, time.monotonic() - started


def test_sixteen_slow_bodies_hold_no_thread_and_are_refused_after_the_deadline(run):
    slow = []
    for _ in range(16):
        sock = _connect(run)
        sock.sendall(b"POST /api/auth/token/ HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 1000\r\n\r\n{\"username\": ")
        slow.append(sock)
    opened = time.monotonic()
    try:
        time.sleep(1)  # each has reached its worker and waits for the rest of its body
        for path in ("/health/", "/", "/api/games/", "/health/"):
            status, seconds = _timed_get(run.base + path)
            assert status == 200
            # a request waiting for a thread held by a slow body would wait for the deadline (6 s and more
            # from here); 3 s leaves a loaded machine room to render the page
            assert seconds < 3.0, f"{path} took {seconds:.2f}s while 16 slow bodies were held"
        assert time.monotonic() - opened < BODY_SECONDS - 1, "the machine was too slow to measure in time"
        answers = [_answer(sock) for sock in slow]  # each is refused at the deadline, its connection closed
    finally:
        for sock in slow:
            sock.close()
    assert [_status(answer) for answer in answers] == [408] * 16
    assert b'"code": "request_timeout"' in answers[0] or b'"code":"request_timeout"' in answers[0]


def _slow_readers(run, count: int) -> list[socket.socket]:
    """``count`` connections with a 2 KB receive buffer, each asking three times (pipelined) for the
    largest static file and reading nothing."""
    readers = []
    for _ in range(count):
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
        sock.connect(("127.0.0.1", run.port))
        sock.sendall((b"GET " + LARGEST_STATIC.encode() + b" HTTP/1.1\r\nHost: localhost\r\n\r\n") * 3)
        readers.append(sock)
    return readers


@pytest.mark.parametrize("count", [20, 200])
def test_slow_readers_of_the_largest_static_file_hold_no_thread_and_are_dropped_at_the_write_deadline(run, count):
    log_start = len(_log(run))
    readers = _slow_readers(run, count)
    opened = time.monotonic()
    try:
        time.sleep(1)  # each has its first answer under way and its buffers full
        for path in ("/", "/health/", "/api/games/", "/static/play/table.js", "/health/"):
            status, seconds = _timed_get(run.base + path)
            assert status == 200
            assert seconds < 3.0, f"{path} took {seconds:.2f}s while {count} slow readers were connected"
        assert time.monotonic() - opened < SEND_SECONDS, "the machine was too slow to measure in time"
        # every reader that took its first answer's start but not its body is dropped at the deadline
        dropped = wait_for(lambda: len(re.findall("not taken by the client within", _log(run)[log_start:]))
                           >= count or None, timeout=SEND_SECONDS * 6, what=f"{count} slow readers dropped")
        assert dropped
        for sock in readers:  # the connection is closed: the reader finds its end
            sock.settimeout(30)
            assert _drained(sock)
    finally:
        for sock in readers:
            sock.close()
    time.sleep(1)
    log = _log(run)[log_start:]
    assert "Traceback" not in log and "Exception in ASGI application" not in log
    assert "returned without completing response" not in log
    assert log.count("not taken by the client within") == count  # one line each, and only the first request
    assert _timed_get(run.base + "/health/")[0] == 200


def test_a_reader_that_closes_mid_file_writes_its_access_line_and_no_traceback(run):
    log_start = len(_log(run))
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
    sock.connect(("127.0.0.1", run.port))
    sock.sendall(b"GET " + LARGEST_STATIC.encode() + b"?closes-mid-file HTTP/1.1\r\nHost: localhost\r\n\r\n")
    assert sock.recv(4096).startswith(b"HTTP/1.1 200")
    sock.close()
    line = wait_for(lambda: next((line for line in _log(run)[log_start:].splitlines()
                                  if "closes-mid-file" in line), None), timeout=30, what="the access line")
    assert LARGEST_STATIC in line and " 200 " in line
    assert "Traceback" not in _log(run)[log_start:]


def _log(run) -> str:
    return run.log_path.read_text(errors="replace")


def _drained(sock: socket.socket) -> bool:
    """Read ``sock`` to its end; whether it ended (closed by the server) rather than timing out."""
    try:
        while sock.recv(1 << 20):
            pass
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False
    return True


def _raw(run, request: bytes) -> bytes:
    with _connect(run) as sock:
        try:
            sock.sendall(request)
        except (BrokenPipeError, ConnectionResetError):
            pass  # refused before the whole head was sent: the answer is already waiting
        return _answer(sock)


def test_a_200_kb_header_is_a_431(run):
    answer = _raw(run, b"GET /health/ HTTP/1.1\r\nHost: localhost\r\nX-Big: " + b"a" * 200_000 + b"\r\n\r\n")
    assert _status(answer) == 431


def test_5000_headers_are_a_431(run):
    many = b"".join(b"X-H%d: v\r\n" % i for i in range(5000))
    assert _status(_raw(run, b"GET /health/ HTTP/1.1\r\nHost: localhost\r\n" + many + b"\r\n")) == 431
    few = b"".join(b"X-H%d: v\r\n" % i for i in range(50))
    assert _status(_raw(run, b"GET /health/ HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n" + few
                        + b"\r\n")) == 200


def test_a_path_with_crlf_writes_no_line_of_its_own_to_the_access_log(run):
    answer = _raw(run, b"GET /nowhere%0d%0a127.0.0.1%20%22GET%20/forged/%20HTTP/1.1%22%20200 HTTP/1.1\r\n"
                       b"Host: localhost\r\nConnection: close\r\n\r\n")
    assert _status(answer) == 404
    line = wait_for(lambda: next((line for line in run.output(200_000).splitlines() if '"GET /nowhere' in line), None),
                    timeout=30, what="the access line")
    assert "/nowhere\\r\\n127.0.0.1 \\x22GET /forged/" in line
    assert not any(line.startswith(("127.0.0.1 \"GET /forged/", "127.0.0.1 \\x22GET /forged/"))
                   for line in run.output(200_000).splitlines())


def test_a_bad_host_is_a_400_and_one_warning_line_without_a_traceback(run):
    answer = _raw(run, b"GET /api/games/ HTTP/1.1\r\nHost: evil-host.example\r\nConnection: close\r\n\r\n")
    assert _status(answer) == 400
    lines = wait_for(lambda: [line for line in run.output(200_000).splitlines()
                              if "evil-host.example" in line and "Invalid HTTP_HOST" in line],
                     timeout=30, what="the DisallowedHost line")
    assert len(lines) == 1 and " WARNING " in lines[0], lines
    assert "Traceback" not in run.output(200_000)


def _post_json(url: str, data: dict) -> tuple[int, dict]:
    request = urllib.request.Request(url, data=json.dumps(data).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_look_alikes_of_taken_names_are_refused_by_the_running_server(run):
    for taken, alikes in [("alice", ["\u0430\u04cf\u0456\u0441\u0435", "\u0251lice"]), ("carol", ["caro\u01c0"]),
                          ("adminka", ["adm\u0131nka"])]:
        assert _post_json(run.base + "/api/players/", {"username": taken, "password": "domino-goat-1"})[0] == 201
        for alike in alikes:
            status, body = _post_json(run.base + "/api/players/", {"username": alike, "password": "domino-goat-1"})
            assert (status, body["code"]) == (400, "username_taken"), (alike, body)


def _token_from(run, address: str, username: str, password: str) -> int:
    """The status of a token request from the loopback ``address`` (the server sees it as the client's)."""
    connection = http.client.HTTPConnection("127.0.0.1", run.port, timeout=30, source_address=(address, 0))
    try:
        connection.request("POST", "/api/auth/token/", json.dumps({"username": username, "password": password}),
                           {"Content-Type": "application/json"})
        return connection.getresponse().status
    finally:
        connection.close()


def test_wrong_passwords_from_many_addresses_do_not_lock_the_owner_out(run):
    assert _post_json(run.base + "/api/players/", {"username": "lockee", "password": "domino-goat-1"})[0] == 201
    wrong = [_token_from(run, f"127.0.1.{i}", "lockee", "wrong password") for i in range(1, 10)]
    assert wrong == [400] * 9
    assert _token_from(run, "127.0.2.1", "lockee", "domino-goat-1") == 200
    guesser = [_token_from(run, "127.0.3.1", "lockee", "wrong password") for _ in range(10)]
    assert guesser == [400] * 9 + [429]
    assert _token_from(run, "127.0.3.1", "lockee", "domino-goat-1") == 429  # the guesser's address
    assert _token_from(run, "127.0.2.1", "lockee", "domino-goat-1") == 200  # the owner's
