"""The repository's nginx config (docs/operations/nginx.conf, compose's `proxy`) in front of a real
``manage.py run``: it is valid, proxies, holds slow bodies itself, refuses oversized requests, hides
/metrics. Only its listen address, upstream and file paths are
changed for the test."""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from testkit import REPO, RUN_THROTTLES_OFF, GroupProcess, ManageRun, free_port

NGINX = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if Path(p).exists()),
                                      None)

pytestmark = [pytest.mark.realprocess,
              pytest.mark.skipif(NGINX is None, reason="needs nginx (the Debian package nginx; .ci/run installs it)")]

CONF = REPO / "docs" / "operations" / "nginx.conf"


def _test_conf(directory: Path, *, listen: int, upstream: int) -> Path:
    """The repository's config on local ports, with its temporary files and pid file in ``directory``."""
    text = CONF.read_text()
    assert "server web:8000;" in text and "listen 8080;" in text
    text = text.replace("server web:8000;", f"server 127.0.0.1:{upstream};")
    text = text.replace("listen 8080;", f"listen 127.0.0.1:{listen};")
    paths = "".join(f"    {kind}_temp_path {directory / kind};\n"
                    for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    text = re.sub(r"^http \{\n", "http {\n" + paths, text, count=1, flags=re.M)
    text = f"pid {directory / 'nginx.pid'};\ndaemon off;\n" + text
    path = directory / "nginx.conf"
    path.write_text(text)
    return path


def test_nginx_accepts_the_config():
    with_dir = Path(subprocess.run(["mktemp", "-d"], capture_output=True, text=True, check=True).stdout.strip())
    try:
        conf = _test_conf(with_dir, listen=free_port(), upstream=free_port())
        result = subprocess.run([NGINX, "-t", "-p", str(with_dir), "-c", str(conf)], capture_output=True, text=True,
                                timeout=60)
        assert result.returncode == 0, result.stderr
    finally:
        shutil.rmtree(with_dir, ignore_errors=True)


@pytest.fixture(scope="module")
def proxied(tmp_path_factory):
    """(nginx's base URL, the run behind it)."""
    directory = tmp_path_factory.mktemp("nginx-run")
    run = ManageRun(directory, args=["--no-worker", "--web-workers", "1"],
                    env={**RUN_THROTTLES_OFF, "GOAT_TRUSTED_PROXIES": "127.0.0.1"})
    port = free_port()
    proxy = GroupProcess([NGINX, "-p", str(directory), "-c", str(_test_conf(directory, listen=port,
                                                                          upstream=run.port))],
                         cwd=directory, env={}, log_path=directory / "nginx.log")
    try:
        run.wait_healthy(120)
        proxy.wait_http_ok(f"http://127.0.0.1:{port}/health/", 60)
        yield f"http://127.0.0.1:{port}", port, run
    finally:
        proxy.stop()
        run.stop()


def _raw(port: int, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        try:
            sock.sendall(request)
        except (BrokenPipeError, ConnectionResetError):
            pass
        data = b""
        try:
            while chunk := sock.recv(65536):
                data += chunk
        except ConnectionResetError:  # nginx resets a connection whose refused body never came
            pass
        return data


def _status(data: bytes) -> int:
    return int(data.split(b" ", 2)[1])


def test_slow_bodies_are_held_by_nginx_and_the_site_answers(proxied):
    base, port, run = proxied
    slow = []
    try:
        for _ in range(16):
            sock = socket.create_connection(("127.0.0.1", port), timeout=60)
            sock.sendall(b"POST /api/players/ HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1000\r\n\r\n{")
            slow.append(sock)
        time.sleep(1)
        for path in ("/health/", "/"):
            started = time.monotonic()
            with urllib.request.urlopen(base + path, timeout=30) as response:
                assert response.status == 200
            # a worker held by a slow body would answer only after nginx's 10 s body timeout; 5 s leaves a
            # loaded machine room to render the page
            assert time.monotonic() - started < 5.0, path
        # goat never saw them: nginx passes a request on only once its body is whole
        assert "POST /api/players/" not in run.output(200_000)
    finally:
        for sock in slow:
            sock.close()


def test_oversized_bodies_and_heads_are_refused_by_nginx(proxied):
    _, port, _ = proxied
    body = _raw(port, b"POST /api/players/ HTTP/1.1\r\nHost: localhost\r\nContent-Length: 300000\r\n"
                      b"Connection: close\r\n\r\n")
    assert _status(body) == 413
    head = _raw(port, b"GET /health/ HTTP/1.1\r\nHost: localhost\r\nX-Big: " + b"a" * 200_000 + b"\r\n\r\n")
    assert _status(head) in (400, 431, 494)


def test_metrics_are_hidden_and_other_requests_pass_through(proxied):
    base, _, run = proxied
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(base + "/metrics", timeout=30)
    assert refused.value.code == 404
    request = urllib.request.Request(base + "/health/?from=nginx-test")
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 200
    deadline = time.monotonic() + 30
    while "from=nginx-test" not in run.output(200_000) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert "from=nginx-test" in run.output(200_000)
