"""The Celery app: ``celery -A goat worker`` and ``celery -A goat beat`` (exactly one beat).

Configured from Django settings (``CELERY_*``): the broker is ``CELERY_BROKER_URL`` — kombu's
filesystem transport in the data directory by default (no server), Redis in production.
"""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "goat.settings")

app = Celery("goat")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
