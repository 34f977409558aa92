"""The settings module reads the environment and touches no file system on import."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _import_settings(data_dir: Path, **env: str) -> None:
    environ = {**os.environ, "GOAT_DATA_DIR": str(data_dir), "CELERY_BROKER_URL": "filesystem://", **env}
    environ.pop("DJANGO_SETTINGS_MODULE", None)
    subprocess.run([sys.executable, "-c", "import goat.settings"], cwd=ROOT, env=environ, check=True, timeout=60)


def test_importing_the_settings_creates_no_directory(tmp_path):
    data_dir = tmp_path / "goat-data"
    _import_settings(data_dir, SECRET_KEY="a-key-from-the-environment")
    assert not data_dir.exists()


def test_without_a_secret_key_the_embedded_default_writes_one_key_into_its_data_directory(tmp_path):
    data_dir = tmp_path / "goat-data"
    environ = {k: v for k, v in os.environ.items() if k != "SECRET_KEY"}
    for _ in range(2):
        subprocess.run([sys.executable, "-c", "import goat.settings"], cwd=ROOT, check=True, timeout=60,
                       env={**environ, "GOAT_DATA_DIR": str(data_dir), "SECRET_KEY": ""})
    assert [p.name for p in data_dir.iterdir()] == ["secret_key"]
    assert len((data_dir / "secret_key").read_text()) >= 50
