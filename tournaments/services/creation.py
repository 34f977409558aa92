"""Creating a tournament: its games' options, its invite code's digest, the row."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils.crypto import salted_hmac
from django.utils.translation import gettext_lazy

from goat import engine
from goat.engine.errors import InvalidOptions
from goat.engine.rulesets import is_paired

from ..models import Tournament, TournamentFormat

NO_ANTE = gettext_lazy("Tournament games have no ante: the entry fee is the stake.")
#: tournaments seat players one by one; fixed pairs are a plan (docs/tournaments.md), not built
NO_PAIRS = gettext_lazy("Tournaments of goat-pairs are not offered yet: a tournament seats players, not pairs.")


#: the salt of the invite code digests (salted_hmac: HMAC-SHA256 under SECRET_KEY)
INVITE_CODE_SALT = "tournaments.invite_code"


def tournament_options(*, ruleset: str, table_size: int, options: dict | None) -> dict[str, Any]:
    """The games' options resolved for ``table_size`` seats; raises InvalidOptions (400).

    A tournament's games have no ante (its preset's ante is dropped; an explicit one is refused)."""
    options = dict(options or {})
    if is_paired(ruleset):
        raise InvalidOptions(detail=NO_PAIRS)
    if options.get("ante"):
        raise InvalidOptions(detail=NO_ANTE)
    options["ante"] = 0
    return engine.resolve_options(ruleset, table_size, options).to_dict()


def invite_code_digest(code: str) -> str:
    """The keyed digest a tournament keeps instead of its invite code (HMAC-SHA256 under SECRET_KEY)."""
    return salted_hmac(INVITE_CODE_SALT, code, algorithm="sha256").hexdigest()


@transaction.atomic
def tournament_create(*, created_by, name: str, ruleset: str, format: str, table_size: int, starts_at: datetime,
                      max_players: int, options: dict | None = None, rounds: int = 0, duration_minutes: int = 0,
                      entry_fee: int = 0, entry: dict | None = None, schedule=None) -> Tournament:
    """Schedule a tournament. ``entry`` holds the optional entry conditions ``min_games``, ``min_rating``,
    ``max_rating`` and ``invite_code`` (only its digest is kept; a schedule's template holds the digest
    as ``invite_code_digest``). ``schedule``: the schedule whose occurrence this is."""
    resolved = tournament_options(ruleset=ruleset, table_size=table_size, options=options)
    entry = entry or {}
    code = entry.get("invite_code")
    digest = invite_code_digest(code) if code else entry.get("invite_code_digest") or ""
    return Tournament.objects.create(schedule=schedule,
        name=name, ruleset=ruleset, options=resolved, format=format,
        rounds=rounds if format == TournamentFormat.SWISS else 0, table_size=table_size, starts_at=starts_at,
        duration_minutes=duration_minutes, max_players=max_players, entry_fee=entry_fee, created_by=created_by,
        entry_min_games=entry.get("min_games"), entry_min_rating=entry.get("min_rating"),
        entry_max_rating=entry.get("max_rating"), invite_code_digest=digest,
    )
