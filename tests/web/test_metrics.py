"""``/metrics`` in one process (docs/operations.md): who may read it, the text format, routes as URL
patterns, commands by result, the scrape-time gauges. The same across real processes (gunicorn's
workers, the Celery worker) and from a non-loopback address: tests/web/test_metrics_run.py."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone
from factories import make_players, start_game
from prometheus_client.parser import text_string_to_metric_families

from goat.engine import legal_moves
from goat.engine.errors import RulesError
from goat.engine.tiles import tile_str
from goat.games import eventstore, services, tasks
from goat.games.models import Game
from goat.web.errors import ServiceError
from goat.web.observe import metrics

NAMES = {
    "goat_http_requests", "goat_http_request_duration_seconds", "goat_commands", "goat_append_retries",
    "goat_streams_open", "goat_stream_delivery_seconds", "goat_ticker_overdue_clocks", "goat_ticker_lateness_seconds",
    "goat_projection_backlog_games", "goat_projection_backlog_oldest_seconds", "goat_celery_queue_length",
    "goat_computer_moves",
}


def scrape(client, **extra) -> dict[str, dict[tuple, float]]:
    """name -> {labels as sorted tuple: value} of every sample, parsed by prometheus_client's parser."""
    response = client.get("/metrics", **extra)
    assert response.status_code == 200, response.content[:300]
    assert response["Content-Type"].startswith("text/plain; version=")
    return parse(response.content.decode())


def parse(text: str) -> dict[str, dict[tuple, float]]:
    samples: dict[str, dict[tuple, float]] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples.setdefault(sample.name, {})[tuple(sorted(sample.labels.items()))] = sample.value
    return samples


def value(samples, name, **labels) -> float:
    return samples.get(name, {}).get(tuple(sorted(labels.items())), 0.0)


@pytest.fixture
def players(db):
    return make_players("m0", "m1")


def _running_game(players, move_time=30):
    return start_game(players, options={"move_time": move_time})


# --- access -------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_loopback_reads_every_listed_name_in_the_text_format(client):
    families = {f.name for f in text_string_to_metric_families(client.get("/metrics").content.decode())}
    assert NAMES <= families


@pytest.mark.django_db
@pytest.mark.parametrize("peer", ["192.0.2.10", "10.0.0.7", "2001:db8::1"])
def test_any_other_address_gets_404(client, peer):
    response = client.get("/metrics", REMOTE_ADDR=peer)
    assert response.status_code == 404
    assert b"goat_" not in response.content


@pytest.mark.django_db
def test_the_bearer_of_the_token_reads_from_anywhere_a_wrong_one_does_not(client, settings):
    settings.GOAT_METRICS_TOKEN = "s3cret-scrape-token"
    assert client.get("/metrics", REMOTE_ADDR="192.0.2.10",
                      HTTP_AUTHORIZATION="Bearer s3cret-scrape-token").status_code == 200
    for wrong in ("Bearer s3cret-scrape-tokeX", "Bearer ", "Token s3cret-scrape-token", "s3cret-scrape-token"):
        assert client.get("/metrics", REMOTE_ADDR="192.0.2.10", HTTP_AUTHORIZATION=wrong).status_code == 404, wrong


@pytest.mark.django_db
def test_no_token_configured_means_no_bearer_is_accepted(client, settings):
    settings.GOAT_METRICS_TOKEN = ""
    assert client.get("/metrics", REMOTE_ADDR="192.0.2.10", HTTP_AUTHORIZATION="Bearer ").status_code == 404


@pytest.mark.django_db
def test_allowed_networks_come_from_the_setting(client, settings):
    settings.GOAT_METRICS_ALLOW = ["10.1.0.0/16", "192.0.2.10"]
    assert client.get("/metrics", REMOTE_ADDR="10.1.200.3").status_code == 200
    assert client.get("/metrics", REMOTE_ADDR="192.0.2.10").status_code == 200
    assert client.get("/metrics", REMOTE_ADDR="10.2.0.1").status_code == 404
    assert client.get("/metrics").status_code == 404  # loopback is no longer in the list


@pytest.mark.django_db
def test_forwarded_for_counts_only_behind_a_trusted_proxy(client, settings):
    # a client cannot claim loopback with a header
    assert client.get("/metrics", REMOTE_ADDR="192.0.2.10", HTTP_X_FORWARDED_FOR="127.0.0.1").status_code == 404
    # behind a trusted proxy the client is the address it forwarded
    settings.GOAT_TRUSTED_PROXIES = ["10.0.0.5"]
    assert client.get("/metrics", REMOTE_ADDR="10.0.0.5", HTTP_X_FORWARDED_FOR="127.0.0.1").status_code == 200
    assert client.get("/metrics", REMOTE_ADDR="10.0.0.5", HTTP_X_FORWARDED_FOR="192.0.2.10").status_code == 404
    # and a loopback proxy does not open it to everyone it forwards
    settings.GOAT_TRUSTED_PROXIES = ["127.0.0.1"]
    assert client.get("/metrics", HTTP_X_FORWARDED_FOR="203.0.113.9").status_code == 404


def test_a_bad_allow_entry_fails_the_check_and_allows_nothing(settings):
    from django.core.management.base import SystemCheckError

    settings.GOAT_METRICS_ALLOW = ["127.0.0.1", "not-an-address"]
    with pytest.raises(SystemCheckError, match="goat.E002"):
        call_command("check")
    assert metrics.allowed(client="127.0.0.1", authorization="", allow=settings.GOAT_METRICS_ALLOW, token="")
    assert not metrics.allowed(client="192.0.2.1", authorization="", allow=settings.GOAT_METRICS_ALLOW, token="")


# --- what it counts -------------------------------------------------------------------------------


@pytest.mark.django_db
def test_routes_are_url_patterns_never_raw_paths(client, auth_client):
    before = scrape(client)
    ids = [auth_client.post("/api/games/", {"ruleset": "goat-classic", "seats": 2}, format="json").json()["id"]
           for _ in range(2)]
    for game_id in ids:
        assert auth_client.get(f"/api/games/{game_id}/").status_code == 200
    assert client.get("/no/such/page/123456/").status_code == 404
    after = scrape(client)
    route = "/api/games/<id:game_id>/"
    assert value(after, "goat_http_requests_total", route=route, method="GET", status="200") - value(
        before, "goat_http_requests_total", route=route, method="GET", status="200") == 2
    assert value(after, "goat_http_request_duration_seconds_count", route=route, method="GET") - value(
        before, "goat_http_request_duration_seconds_count", route=route, method="GET") == 2
    assert value(after, "goat_http_requests_total", route="/api/games/", method="POST", status="201") >= 2
    assert value(after, "goat_http_requests_total", route="<unmatched>", method="GET", status="404") >= 1
    routes = {dict(labels)["route"] for labels in after["goat_http_requests_total"]}
    # a raw path would carry an id as a path segment (other routes, such as /i18n/setlang/, may hold digits)
    assert not any(f"/{game_id}/" in r or "123456" in r for r in routes for game_id in ids), routes


@pytest.mark.django_db
def test_commands_are_counted_committed_or_by_the_refusals_code(players):
    def count(result, command="play_tile"):
        return metrics.REGISTRY.get_sample_value("goat_commands_total", {"command": command, "result": result}) or 0

    def refusals():
        return sum(sample.value for family in metrics.REGISTRY.collect() if family.name == "goat_commands"
                   for sample in family.samples if sample.name == "goat_commands_total"
                   and sample.labels["command"] == "play_tile" and sample.labels["result"] != "committed")

    game = _running_game(players)
    committed, not_seated, refused_before = count("committed"), count("not_seated"), refusals()
    joins = count("committed", "join")
    state = eventstore.game_load(game_id=game.pk).state
    tile, end = legal_moves(state)[0]
    mover, other = players[state.turn], players[1 - state.turn]
    with pytest.raises(RulesError) as refused:
        services.game_play_tile(game_id=game.pk, player=other, tile=tile_str(tile), end=end)
    code = refused.value.code  # the engine's own code for a move out of turn
    services.game_play_tile(game_id=game.pk, player=mover, tile=tile_str(tile), end=end)
    outsider = type(players[0]).objects.create_user(username="outsider", password="x")
    with pytest.raises(ServiceError):
        services.game_play_tile(game_id=game.pk, player=outsider, tile="0-0")
    assert count("committed") - committed == 1
    assert count("not_seated") - not_seated == 1
    assert code and count(code) >= 1
    assert refusals() - refused_before == 2
    assert count("committed", "join") == joins  # counted when the game was made, before this point


@pytest.mark.django_db
def test_the_ticker_counts_its_timeouts_and_their_lateness(players):
    game = _running_game(players)
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=3))
    late_before = metrics.REGISTRY.get_sample_value("goat_ticker_lateness_seconds_count") or 0
    over_2s = metrics.REGISTRY.get_sample_value("goat_ticker_lateness_seconds_bucket", {"le": "2.0"}) or 0
    assert tasks.games_tick_clocks() == 1
    assert metrics.REGISTRY.get_sample_value("goat_ticker_lateness_seconds_count") - late_before == 1
    # three seconds late: not in the 2-second bucket
    assert metrics.REGISTRY.get_sample_value("goat_ticker_lateness_seconds_bucket", {"le": "2.0"}) == over_2s
    assert metrics.REGISTRY.get_sample_value("goat_commands_total", {"command": "time_out", "result": "committed"}) >= 1


@pytest.mark.django_db
def test_overdue_clocks_are_counted_at_scrape_time(client, players):
    games = [_running_game(players) for _ in range(3)]
    assert value(scrape(client), "goat_ticker_overdue_clocks") == 0
    Game.objects.filter(pk__in=[g.pk for g in games[:2]]).update(deadline=timezone.now() - timedelta(seconds=5))
    assert value(scrape(client), "goat_ticker_overdue_clocks") == 2


@pytest.mark.django_db
def test_projection_backlog_counts_ended_games_a_projection_has_not_processed(
        client, players, django_capture_on_commit_callbacks):
    from goat.games.models import ProjectionRecord

    game = _running_game(players)
    with django_capture_on_commit_callbacks(execute=True):  # eager Celery: projected on commit
        services.game_resign(game_id=game.pk, player=players[0])
    samples = scrape(client)
    assert value(samples, "goat_projection_backlog_games") == 0
    assert value(samples, "goat_projection_backlog_oldest_seconds") == 0
    # a lost task: one projection's tracking row (and so its work) is missing, the game ended 90 s ago
    ProjectionRecord.objects.filter(game=game).order_by("projection").first().delete()
    Game.objects.filter(pk=game.pk).update(ended_at=timezone.now() - timedelta(seconds=90))
    samples = scrape(client)
    assert value(samples, "goat_projection_backlog_games") == 1
    assert 90 <= value(samples, "goat_projection_backlog_oldest_seconds") < 120
    tasks.projections_catch_up()
    assert value(scrape(client), "goat_projection_backlog_games") == 0


@pytest.mark.django_db
def test_queue_lengths_of_the_filesystem_broker(client, settings, tmp_path):
    settings.CELERY_BROKER_URL = "filesystem://"
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {**settings.CELERY_BROKER_TRANSPORT_OPTIONS,
                                                "data_folder_in": str(tmp_path)}
    for name in ["1_a.celery.msg", "2_b.celery.msg", "3_c.clock.msg", "4_d.clock.msg.part", "5_e.other.msg"]:
        (tmp_path / name).write_text("{}")
    samples = scrape(client)
    assert value(samples, "goat_celery_queue_length", queue="celery") == 2
    assert value(samples, "goat_celery_queue_length", queue="clock") == 1


@pytest.mark.django_db
def test_a_failing_gauge_source_hides_no_other(client, monkeypatch):
    def broken():
        raise RuntimeError("database down")

    metrics.scrape_register(broken)
    try:
        samples = scrape(client)
    finally:
        metrics._scrapers.remove(broken)
    assert "goat_ticker_overdue_clocks" in samples and "goat_celery_queue_length" in samples


def test_multiprocess_dir_reset_and_dead_processes(tmp_path):
    (tmp_path / "counter_h-1.db").write_bytes(b"x")
    (tmp_path / "gauge_livesum_h-1.db").write_bytes(b"x")
    assert list(metrics.multiprocess_dir_reset(tmp_path).iterdir()) == []
    live = tmp_path / f"gauge_livesum_{metrics.process_id(4242)}.db"
    counter = tmp_path / f"counter_{metrics.process_id(4242)}.db"
    live.write_bytes(b"x")
    counter.write_bytes(b"x")
    metrics.process_dead(4242, str(tmp_path))
    assert not live.exists() and counter.exists()  # a dead process's counters stay in the totals
    assert "_" not in metrics.process_id()  # prometheus_client splits file names on "_"


def test_a_process_file_still_empty_is_left_out_and_the_scrape_reads_the_rest(tmp_path, monkeypatch):
    # Another process counted 3 into its file; a process starting now has created its file and not yet
    # sized it (prometheus/client_python#1199): the scrape adds up the first and passes the second by.
    from prometheus_client.mmap_dict import MmapedDict, mmap_key

    counted = MmapedDict(str(tmp_path / f"counter_{metrics.process_id(4242)}.db"))
    counted.write_value(mmap_key("goat_commands", "goat_commands_total", ["command", "result"],
                                 ["move", "committed"], "Commands."), 3.0, 0.0)
    counted.close()
    (tmp_path / f"counter_{metrics.process_id(4243)}.db").touch()
    monkeypatch.setenv(metrics.MULTIPROC_ENV, str(tmp_path))
    samples = parse(metrics.exposition(scrape_time=False).decode())
    assert value(samples, "goat_commands_total", command="move", result="committed") == 3.0


@pytest.mark.django_db
def test_a_celery_workers_own_exporter_has_the_same_access_rule(settings):
    import http.client

    from test_metrics_run import _non_loopback_address

    settings.GOAT_METRICS_TOKEN = "worker-token"
    metrics.APPEND_RETRIES.inc()
    server = metrics.worker_exporter_start(port=0, host="0.0.0.0")
    port = server.server_port

    def get(host, path="/metrics", **headers):
        conn = http.client.HTTPConnection(host, port, timeout=10)
        conn.request("GET", path, headers=headers)
        response = conn.getresponse()
        return response.status, response.read().decode()

    try:
        status, text = get("127.0.0.1")
        assert status == 200
        names = {f.name for f in text_string_to_metric_families(text)}
        assert "goat_append_retries" in names
        assert "goat_ticker_overdue_clocks" not in names  # the web's scrape-time gauges are not repeated
        assert get("127.0.0.1", "/other")[0] == 404
        outside = _non_loopback_address()
        if outside:
            assert get(outside)[0] == 404
            assert get(outside, Authorization="Bearer worker-token")[0] == 200
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.database  # the services pass, whose broker is Redis
@pytest.mark.django_db
def test_queue_lengths_of_redis(client, settings):
    if not settings.CELERY_BROKER_URL.startswith("redis://"):
        pytest.skip("the broker is not Redis (.ci/run's services pass runs this)")
    import redis

    client_redis = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    settings.CELERY_TASK_QUEUES = [type(settings.CELERY_TASK_QUEUES[0])(f"metrics-test-{id(client)}")]
    queue = settings.CELERY_TASK_QUEUES[0].name
    try:
        client_redis.rpush(queue, "a", "b", "c")
        client_redis.rpush(f"{queue}\x06\x163", "d")  # kombu's list of priority step 3
        assert value(scrape(client), "goat_celery_queue_length", queue=queue) == 4
    finally:
        client_redis.delete(queue, f"{queue}\x06\x163")


@pytest.mark.django_db(transaction=True)
def test_computer_moves_are_counted_by_level_once_each(django_user_model, monkeypatch):
    from games.test_computer_players import computer_to_move

    from apitest import token_client
    from computer_play import queue_catch
    from goat.games import computer

    queued = queue_catch(monkeypatch)
    client = token_client(django_user_model.objects.create_user(username="hana", password="x" * 12))
    view = computer_to_move(client, queued)
    before = metrics.REGISTRY.get_sample_value("goat_computer_moves_total", {"level": "random"}) or 0
    task = queued.pop()
    assert computer.computer_move(game_id=task[0], version=task[1]) is True
    assert computer.computer_move(game_id=task[0], version=task[1]) is False  # a repeat plays nothing
    assert metrics.REGISTRY.get_sample_value("goat_computer_moves_total", {"level": "random"}) - before == 1
    assert view["id"] == task[0]
