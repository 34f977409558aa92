"""Strict query-parameter filters (django-filter) every app's lists share.

A query value that is not what the parameter takes is 400 ``invalid`` with ``errors`` naming the
parameter (docs/api.md "Lists"), never silently ignored: django-filter's own ``BooleanFilter`` reads
``open=yes`` as "no filter" and its ``NumberFilter`` takes ``tournament=1.5``.
"""

from __future__ import annotations

import django_filters
from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy

BOOLEAN_ERROR = gettext_lazy("Must be true or false.")


class StrictBooleanField(forms.Field):
    """``true`` or ``false`` (any case); absent or empty is no value; anything else is invalid."""

    default_error_messages = {"invalid": BOOLEAN_ERROR}

    def to_python(self, value):
        if value is None or value == "":
            return None
        text = str(value).strip().lower()
        if text == "true":
            return True
        if text == "false":
            return False
        raise ValidationError(self.error_messages["invalid"], code="invalid")


class StrictBooleanFilter(django_filters.BooleanFilter):
    field_class = StrictBooleanField


class IntegerFilter(django_filters.NumberFilter):
    """A whole number (``min_value`` and ``max_value`` as given); ``1.5`` or ``1e3`` is invalid."""

    field_class = forms.IntegerField
