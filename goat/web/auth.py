"""Token authentication: DRF's, with its lookup sent as one fixed SQL text on PostgreSQL.

Every API call with a token runs this lookup; through the ORM it compiled a ``select_related``
queryset per request (~400 µs of CPU, see ``goat.rows``). The answers are DRF's: the same user and
token, the same 401 messages; revoking a token (deleting its row) takes effect on the next request.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import connection
from django.utils.translation import gettext_lazy as _
from rest_framework import authentication, exceptions
from rest_framework.authtoken.models import Token

from goat.web.rows import RowModel, fixed_cursor, postgresql

_sql: str | None = None
_rows: tuple[RowModel, RowModel] | None = None


def _query() -> tuple[str, RowModel, RowModel]:
    global _sql, _rows
    if _rows is None:
        User = get_user_model()
        token, user = RowModel(Token, "t"), RowModel(User, "u")
        quote = connection.ops.quote_name
        user_id, key = Token._meta.get_field("user").column, Token._meta.pk.column
        _sql = (f"SELECT {token.columns}, {user.columns} FROM {quote(Token._meta.db_table)} t "
                f"JOIN {quote(User._meta.db_table)} u ON u.{quote(User._meta.pk.column)} = t.{quote(user_id)} "
                f"WHERE t.{quote(key)} = %s")
        _rows = (token, user)
    return _sql, *_rows


class TokenAuthentication(authentication.TokenAuthentication):
    def authenticate_credentials(self, key):
        if not postgresql():
            return super().authenticate_credentials(key)
        sql, token_row, user_row = _query()
        with fixed_cursor() as cursor:
            cursor.execute(sql, [key], prepare=True)
            row = cursor.fetchone()
        if row is None:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        token = token_row.load(row)
        user = user_row.load(row, token_row.width)
        token._state.fields_cache["user"] = user
        if not user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        return (user, token)
