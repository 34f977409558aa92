"""Serializer fields every API shares: strict request bodies.

Unknown fields, wrong JSON types (a number where a string is expected, ``"3"`` or ``true`` where a
number is) and over-long strings are 400 ``invalid`` with per-field ``errors``.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy
from rest_framework import serializers

UNKNOWN_FIELD = gettext_lazy("Unknown field.")


class StrictCharField(serializers.CharField):
    """A string, and only a string (DRF's CharField would turn ``35`` into ``"35"``)."""

    default_error_messages = {"invalid": gettext_lazy("Must be a string.")}

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictIntegerField(serializers.IntegerField):
    """A JSON integer, and only that (DRF's IntegerField would take ``"3"``, ``3.0`` and ``true``)."""

    default_error_messages = {"invalid": gettext_lazy("Must be an integer.")}

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    """``true`` or ``false``, and only those (DRF's BooleanField would take ``"yes"``, ``1`` and ``"on"``)."""

    default_error_messages = {"invalid": gettext_lazy("Must be true or false.")}

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid")
        return data


class FlatListField(serializers.ListField):
    """A list whose items' errors are said as one flat list of messages (``"item 2: Must be a
    string."``), as every field's errors are (DRF's ListField answers a map of item positions)."""

    def to_internal_value(self, data):
        try:
            return super().to_internal_value(data)
        except serializers.ValidationError as error:
            detail = error.detail
            if isinstance(detail, dict):
                raise serializers.ValidationError(
                    [f"item {int(key) + 1}: {message}" for key, messages in detail.items() for message in messages]
                ) from None
            raise


class StrictSerializer(serializers.Serializer):
    """Refuses fields it does not know (a typo such as ``"edn"`` is an error, not silently ignored)."""

    def validate(self, attrs):
        unknown = sorted(set(self.initial_data) - set(self.fields))
        if unknown:
            raise serializers.ValidationError({name: [UNKNOWN_FIELD] for name in unknown})
        return attrs
