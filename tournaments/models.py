"""tournaments models (none yet)."""

from django.db import models  # noqa: F401
