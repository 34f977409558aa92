"""Pagination of every API list: ``{"count", "next", "previous", "results"}``.

``?page=`` as DRF reads it: a whole number from 1 (or ``last``); one past the last page, or one
that is not a page number, is 404 ``not_found`` (as the API has always answered).
Either given empty (``?page=``) is read as absent.
``?page_size=``: a whole number from 1, default 50; more than 200 is read as 200 (as before).
Anything else (``null``, ``0``, ``-5``, ``abc``, ``1.5``, ``１``) is 400 ``invalid``, where DRF would
silently fall back to the default.
Both take ASCII digits only (goat.web.api.query): ``?page=１`` is not a page number (404), as ``?page=abc``.
"""

from django.utils.translation import gettext_lazy
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.pagination import PageNumberPagination

from goat.web.api.query import ascii_whole_number

PAGE_SIZE_ERROR = gettext_lazy("A whole number from 1 (more than {max} are read as {max}).")


class Pagination(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200

    def get_page_size(self, request) -> int:
        raw = request.query_params.get(self.page_size_query_param)
        if raw is None or raw == "":
            return self.page_size
        size = ascii_whole_number(raw) or 0
        if size < 1:
            message = PAGE_SIZE_ERROR.format(max=self.max_page_size)
            raise serializers.ValidationError({self.page_size_query_param: [message]})
        return min(size, self.max_page_size)

    def get_page_number(self, request, paginator):
        number = super().get_page_number(request, paginator)
        if number in self.last_page_strings or ascii_whole_number(str(number)) is not None:
            return number
        raise NotFound(self.invalid_page_message)

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_query_param:
                parameter["schema"] = {"type": "integer", "minimum": 1}
                parameter["description"] = "A page number from 1; a page past the last is 404 `not_found`."
            elif parameter["name"] == self.page_size_query_param:
                parameter["schema"] = {"type": "integer", "minimum": 1}
                parameter["description"] = (f"Results per page, from 1 (default {self.page_size}); more than "
                                            f"{self.max_page_size} are read as {self.max_page_size}.")
        return parameters
