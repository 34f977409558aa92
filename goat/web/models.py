"""The model of the HTTP plumbing: ``IdempotencyRecord`` (goat.web.idempotency)."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class IdempotencyRecord(models.Model):
    """The first answer to a POST with an ``Idempotency-Key`` (kept at least 24 h)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=255)
    #: sha256 of method, path and body: the same key with another request is refused
    fingerprint = models.CharField(max_length=64)
    status_code = models.PositiveSmallIntegerField(null=True)
    content_type = models.CharField(max_length=100, blank=True, default="")
    body = models.BinaryField(null=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    completed_at = models.DateTimeField(null=True)

    class Meta:
        # The table has the games app's name (label "goat"), the name databases already hold it under.
        db_table = "goat_idempotencyrecord"
        constraints = [models.UniqueConstraint(fields=["user", "key"], name="idempotency_key_unique_per_user")]

    def __str__(self) -> str:
        return f"{self.key} of user {self.user_id}"
