"""The deployment files agree with the settings: compose process set, example env, production checks."""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]


def _compose() -> dict:
    return yaml.safe_load((REPO / "docker-compose.yml").read_text())


def test_the_image_copies_every_package_the_project_installs():
    """``pip install .`` in the Dockerfile installs what ``packages.find`` includes: each of those
    packages must be copied in first, or the image lacks it (it lacked pages and play)."""
    import tomllib

    include = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]["include"]
    copied = set(re.findall(r"^COPY (\w+) \./\1$", (REPO / "Dockerfile").read_text(), flags=re.MULTILINE))
    assert {pattern.rstrip("*") for pattern in include} <= copied


def test_compose_runs_the_production_process_set_and_monitoring_only_in_its_profile():
    services = _compose()["services"]

    process_set = {name for name, service in services.items() if "profiles" not in service}
    assert process_set == {"proxy", "postgres", "standby", "pgbouncer", "redis", "migrate", "web", "worker",
                           "analysis", "beat"}
    # the analysis of finished games runs on its own queue, one process: never ahead of a move or a tick
    assert "-Q analysis --concurrency=1" in " ".join(services["analysis"]["command"])
    assert {name: services[name]["profiles"] for name in set(services) - process_set} == {
        "prometheus": ["monitoring"], "grafana": ["monitoring"]}
    # beat may be scaled (one per node): nothing pins it to one replica, and each keeps its own schedule file
    assert "deploy" not in services["beat"]
    assert "/data/" not in " ".join(services["beat"]["command"])
    # every container counts its metrics into a directory of its own, readable with the token
    environment = services["web"]["environment"]
    assert environment["PROMETHEUS_MULTIPROC_DIR"].startswith("/tmp/")
    assert "GOAT_METRICS_TOKEN" in environment
    assert "GOAT_WORKER_METRICS_PORT=9808" in " ".join(services["worker"]["command"])
    mounted = {volume.split(":")[0] for name in ("prometheus", "grafana") for volume in services[name]["volumes"]}
    for path in mounted - {"prometheus-data", "grafana-data"}:
        assert (REPO / path).exists(), path
    assert "healthcheck" in services["postgres"]
    assert "postgres-data:/var/lib/postgresql/data" in services["postgres"]["volumes"]
    migrate = " ".join(services["migrate"]["command"])
    assert "migrate --noinput" in migrate and "collectstatic --noinput" in migrate
    for name in ("web", "worker", "analysis", "beat"):
        assert services[name]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
        assert services[name]["environment"]["GOAT_ENV"] == "production"
    assert "gunicorn.conf.py" in " ".join(services["web"]["command"])


def test_compose_publishes_nginx_only_and_trusts_its_network():
    compose = _compose()
    services = compose["services"]

    published = {name for name, service in services.items() if "ports" in service and "profiles" not in service}
    assert published == {"proxy"}  # gunicorn is reached through nginx only
    assert services["proxy"]["image"].startswith("nginx:")
    assert "./docs/operations/nginx.conf:/etc/nginx/nginx.conf:ro" in services["proxy"]["volumes"]
    assert services["proxy"]["depends_on"]["web"]["condition"] == "service_healthy"
    subnet = compose["networks"]["default"]["ipam"]["config"][0]["subnet"]
    trusted = services["web"]["environment"]["GOAT_TRUSTED_PROXIES"]
    assert subnet.split(":-")[1].rstrip("}") == trusted.split(":-")[1].rstrip("}")


def test_compose_restarts_every_long_running_service_and_not_the_one_shot_migrate():
    services = _compose()["services"]

    for name in ("postgres", "standby", "pgbouncer", "redis", "web", "worker", "analysis", "beat"):
        assert services[name]["restart"] == "unless-stopped", name  # a crash or kill -9 heals by itself
    assert services["migrate"]["restart"] == "no"  # a failed migration must stop the start, not loop


def test_compose_reads_through_pgbouncer_from_the_primary_and_a_streaming_standby():
    """Not run here (no Docker on the CI machine): the files agree with each other and with the settings."""
    services = _compose()["services"]

    standby = services["standby"]
    script = standby["command"][-1]
    assert "pg_basebackup -h postgres" in script and " -R " in script and "standby-data:/var/lib/postgresql/data" in \
        standby["volumes"]
    assert standby["depends_on"]["postgres"]["condition"] == "service_healthy"
    replication = [v for v in services["postgres"]["volumes"] if "docker-entrypoint-initdb.d" in v]
    assert replication and (REPO / replication[0].split(":")[0]).exists()

    pgbouncer = services["pgbouncer"]
    dockerfile = (REPO / pgbouncer["build"]["dockerfile"]).read_text()
    assert "apt-get install" in dockerfile and "pgbouncer" in dockerfile and "USER postgres" in dockerfile
    entrypoint = (REPO / "docker/pgbouncer/entrypoint.sh").read_text()
    assert "pool_mode = transaction" in entrypoint and "query_wait_timeout" in entrypoint
    assert pgbouncer["environment"]["PGBOUNCER_PRIMARY_HOST"] == "postgres"

    for name in ("web", "worker", "beat"):
        environment = services[name]["environment"]
        assert environment["DATABASE_POOLER"] == "pgbouncer"
        assert "@pgbouncer:6432/goat" in environment["DATABASE_URL"]
        assert "@standby:5432/goat" in environment["DATABASE_REPLICA_URL"]
    migrate = services["migrate"]["environment"]  # schema changes straight to the primary
    assert "@postgres:5432/goat" in migrate["DATABASE_URL"] and migrate["DATABASE_POOLER"] == ""
    assert migrate["GOAT_ENV"] == "production"


def test_the_example_env_holds_no_real_secret_and_every_variable_is_documented():
    example = (REPO / ".env.example").read_text()
    operations = (REPO / "docs" / "operations.md").read_text()
    names = re.findall(r"^([A-Z][A-Z0-9_]+)=", example, flags=re.M)

    assert "SECRET_KEY" in names and "POSTGRES_PASSWORD" in names
    assert re.search(r"^SECRET_KEY=replace-me", example, flags=re.M)
    undocumented = [name for name in names if f"`{name}`" not in operations]
    assert undocumented == []


def _django(code: str, **env) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "GOAT_ENV", "DATABASE_URL"}}
    return subprocess.run([sys.executable, "-c", "import django; django.setup(); " + code], cwd=REPO,
                          env={**clean, "DJANGO_SETTINGS_MODULE": "goat.settings", **env},
                          capture_output=True, text=True, timeout=60)


def test_production_refuses_to_start_without_a_secret_key(tmp_path):
    proc = _django("", GOAT_ENV="production", GOAT_DATA_DIR=str(tmp_path))

    assert proc.returncode != 0
    assert "SECRET_KEY must be set when GOAT_ENV=production" in proc.stderr


def test_check_deploy_is_clean_for_a_production_env_behind_tls(tmp_path):
    proc = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"], cwd=REPO,
        env={**os.environ, "GOAT_ENV": "production", "SECRET_KEY": secrets.token_urlsafe(50),
             "GOAT_DATA_DIR": str(tmp_path), "SECURE_SSL_REDIRECT": "true", "SECURE_HSTS_SECONDS": "31536000",
             "SECURE_PROXY_SSL_HEADER": "true", "SECURE_HSTS_INCLUDE_SUBDOMAINS": "true",
             "SECURE_HSTS_PRELOAD": "true"},
        capture_output=True, text=True, timeout=60,
    )

    assert proc.returncode == 0, proc.stdout + proc.stderr


def _gunicorn_conf(**env) -> dict:
    import runpy
    from unittest import mock

    with mock.patch.dict(os.environ, env):
        if "GUNICORN_CONTROL_SOCKET" not in env:
            os.environ.pop("GUNICORN_CONTROL_SOCKET", None)  # restored by patch.dict
        return runpy.run_path(str(REPO / "gunicorn.conf.py"))


def test_gunicorn_believes_forwarded_headers_of_goats_trusted_proxies_only():
    from gunicorn.config import Config

    def believed(**env) -> list[str]:
        config = Config()
        config.set("forwarded_allow_ips", _gunicorn_conf(**env)["forwarded_allow_ips"])
        return config.forwarded_allow_ips

    assert believed(GOAT_TRUSTED_PROXIES="", FORWARDED_ALLOW_IPS="127.0.0.1") == []
    assert believed(GOAT_TRUSTED_PROXIES="10.0.0.5, 172.18.0.1/16", FORWARDED_ALLOW_IPS="*") == [
        "10.0.0.5", "172.18.0.0/16"]


def test_gunicorn_opens_no_control_socket_unless_one_is_configured(tmp_path):
    from gunicorn.config import Config

    settings = Config().settings
    assert {"control_socket", "control_socket_disable", "max_requests", "keepalive"} <= set(settings)
    conf = _gunicorn_conf()
    assert conf["control_socket_disable"] is True and "control_socket" not in conf
    path = str(tmp_path / "goat.ctl")
    conf = _gunicorn_conf(GUNICORN_CONTROL_SOCKET=path)
    assert conf["control_socket_disable"] is False and conf["control_socket"] == path


def test_the_monitoring_files_parse_and_name_only_metrics_goat_exposes():
    import json

    from test_metrics import NAMES

    operations = REPO / "docs" / "operations"
    prometheus = yaml.safe_load((operations / "prometheus.yml").read_text())
    assert {job["job_name"] for job in prometheus["scrape_configs"]} == {"goat-web", "goat-worker"}
    rules = yaml.safe_load((operations / "alerts.yml").read_text())["groups"][0]["rules"]
    assert {rule["alert"] for rule in rules} == {"GoatTickerLate", "GoatProjectionBacklogOld", "GoatHigh5xxRate"}
    dashboard = json.loads((operations / "grafana" / "goat-dashboard.json").read_text())
    expressions = [rule["expr"] for rule in rules]
    expressions += [target["expr"] for panel in dashboard["panels"] for target in panel["targets"]]
    used = {name for expr in expressions for name in re.findall(r"\b(goat_[a-z_]+)", expr)}
    known = NAMES | {f"{n}_total" for n in NAMES} | {f"{n}_{s}" for n in NAMES for s in ("bucket", "count", "sum")}
    assert used and used <= known, used - known
    assert len(dashboard["panels"]) >= 8


def test_promtool_accepts_the_alert_rules_their_tests_and_the_scrape_config():
    import shutil

    promtool = shutil.which("promtool")
    if promtool is None:  # Debian's `prometheus` package has it (.ci/run installs it)
        import pytest

        pytest.skip("promtool is not installed (apt-get install prometheus)")
    operations = REPO / "docs" / "operations"
    # the scrape config's rule file and token file exist only inside the compose container: syntax only
    for args in (["check", "rules", "alerts.yml"], ["test", "rules", "alerts_test.yml"],
                 ["check", "config", "--syntax-only", "prometheus.yml"]):
        proc = subprocess.run([promtool, *args], cwd=operations, capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stdout + proc.stderr
