"""Strict query-parameter filters (django-filter) every app's lists share.

A query value that is not what the parameter takes is 400 ``invalid`` with ``errors`` naming the
parameter (docs/api.md "Lists"), never silently ignored: django-filter's own ``BooleanFilter`` reads
``open=yes`` as "no filter" and its ``NumberFilter`` takes ``tournament=1.5``.

A query parameter that is a number takes ASCII digits only (``ascii_whole_number``): ``１`` (fullwidth),
``٣`` (Arabic-Indic), ``1.0``, `` 1`` and ``+1`` are refused, where Python's ``int`` and the form and
serializer fields built on it take them. ``QueryIntegerField`` (DRF serializers of query strings) and
``IntegerFilter`` (django-filter) apply the rule; pagination and the streams' ``after`` use the function.
"""

from __future__ import annotations

import re

import django_filters
from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy
from rest_framework import serializers

BOOLEAN_ERROR = gettext_lazy("Must be true or false.")
WHOLE_NUMBER_ERROR = gettext_lazy("A whole number written with the digits 0-9.")

_ASCII_DIGITS = re.compile(r"[0-9]+")  # ``\d`` and ``str.isdigit`` take ３ and ٣ too


def ascii_whole_number(raw: str | None) -> int | None:
    """``raw`` as a whole number when it is ASCII digits and nothing else, else None. However long: a
    parameter with a bound reads a larger number as its bound or refuses it, as it always has (``int``
    refuses past Python's digit limit, thousands of digits: None then too)."""
    if raw is None or not _ASCII_DIGITS.fullmatch(raw):
        return None
    try:
        return int(raw)
    except ValueError:
        return None


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


class AsciiIntegerFormField(forms.IntegerField):
    """Django's IntegerField that takes ASCII digits only."""

    default_error_messages = {"invalid": WHOLE_NUMBER_ERROR}

    def to_python(self, value):
        if value in self.empty_values:
            return None
        if ascii_whole_number(str(value)) is None:
            raise ValidationError(self.error_messages["invalid"], code="invalid")
        return super().to_python(value)


class IntegerFilter(django_filters.NumberFilter):
    """A whole number (``min_value`` and ``max_value`` as given) in ASCII digits; ``1.5``, ``1e3``
    or ``１`` is invalid."""

    field_class = AsciiIntegerFormField


class QueryIntegerField(serializers.IntegerField):
    """A query parameter that is a whole number, in ASCII digits only (DRF's IntegerField takes
    ``１``, ``٣`` and ``1.0``): anything else is 400 ``invalid`` naming the parameter."""

    default_error_messages = {"invalid": WHOLE_NUMBER_ERROR}

    def to_internal_value(self, data):
        if ascii_whole_number(str(data)) is None:
            self.fail("invalid")
        return super().to_internal_value(data)
