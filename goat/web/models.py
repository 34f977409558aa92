"""The model of the HTTP plumbing: ``IdempotencyRecord`` (goat.web.api.idempotency)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class IdempotencyRecord(models.Model):
    """The first answer to a POST with an ``Idempotency-Key`` (kept at least 24 h)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("user"), on_delete=models.CASCADE,
                             related_name="+")
    key = models.CharField(_("key"), max_length=255)
    #: sha256 of method, path and body: the same key with another request is refused
    fingerprint = models.CharField(_("fingerprint"), max_length=64)
    status_code = models.PositiveSmallIntegerField(_("status code"), null=True)
    content_type = models.CharField(_("content type"), max_length=100, blank=True, default="")
    body = models.BinaryField(_("body"), null=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True, db_index=True)
    completed_at = models.DateTimeField(_("completed at"), null=True)

    class Meta:
        verbose_name = _("idempotency record")
        verbose_name_plural = _("idempotency records")
        # The table has the games app's name (label "goat"), the name databases already hold it under.
        db_table = "goat_idempotencyrecord"
        constraints = [models.UniqueConstraint(fields=["user", "key"], name="idempotency_key_unique_per_user")]

    def __str__(self) -> str:
        return f"{self.key} of user {self.user_id}"
