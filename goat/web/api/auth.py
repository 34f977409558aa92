"""Token authentication: DRF's, with its lookup sent as one fixed SQL text (goat.web.db.fixed_sql).

Every API call with a token runs this lookup; through the ORM it would compile a ``select_related``
queryset per request (its CPU cost: docs/performance.md). The answers are DRF's: the same user
and token, the same 401 messages; revoking a token (deleting its row) takes effect on the next
request. The same text on every database (``rows.fetch``).
"""

from __future__ import annotations

from functools import lru_cache

from django.contrib.auth import get_user_model
from django.db import connection, router
from django.utils.translation import gettext_lazy as _
from rest_framework import authentication, exceptions
from rest_framework.authtoken.models import Token

from goat.web.db.fixed_sql import RowModel, fetch


@lru_cache(maxsize=4)
def _lookup(vendor: str) -> tuple[str, RowModel, RowModel]:
    """The lookup's text and its two row models, for the database ``vendor`` (their converters differ)."""
    User = get_user_model()
    token, user = RowModel(Token, "t"), RowModel(User, "u")
    quote = connection.ops.quote_name
    user_id, key = Token._meta.get_field("user").column, Token._meta.pk.column
    sql = (f"SELECT {token.columns}, {user.columns} FROM {quote(Token._meta.db_table)} t "
           f"JOIN {quote(User._meta.db_table)} u ON u.{quote(User._meta.pk.column)} = t.{quote(user_id)} "
           f"WHERE t.{quote(key)} = %s")
    return sql, token, user


def token_query() -> str:
    """The lookup's SQL text (one parameter: the key)."""
    return _lookup(connection.vendor)[0]


class TokenAuthentication(authentication.TokenAuthentication):
    def authenticate_credentials(self, key):
        sql, token_row, user_row = _lookup(connection.vendor)
        rows = fetch(sql, [key], using=router.db_for_read(Token))  # the primary, unless it is away
        if not rows:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        token = token_row.load(rows[0])
        user = user_row.load(rows[0], token_row.width)
        # The related object, cached one way only: ``token.user = user`` would also cache the token on
        # the user (a one-to-one's reverse side), a reference cycle only the collector frees
        # (goat.serve.request_release); nothing reads ``user.auth_token`` on a request.
        Token.user.field.set_cached_value(token, user)
        if not user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        return (user, token)
