"""System check: accounts whose usernames collide under the normal form (goat.players.usernames)."""

from __future__ import annotations

from collections import defaultdict

from django.core.checks import Tags, Warning, register


@register(Tags.database)
def check_username_collisions(app_configs, databases=None, **kwargs):
    """players.W001 for each group of accounts whose names have one fold. Accounts created since the
    fold is stored cannot collide (a unique constraint); older ones are reported, never merged."""
    if not databases:
        return []
    from django.contrib.auth import get_user_model
    from django.db import DatabaseError

    from goat.players.usernames import username_fold

    User = get_user_model()
    try:
        unkeyed = list(User._default_manager.filter(username_key__isnull=True).values_list("username", flat=True))
        if not unkeyed:
            return []
        folds = {username_fold(name) for name in unkeyed}
        groups: dict[str, list[str]] = defaultdict(list)
        for name in User._default_manager.values_list("username", flat=True).order_by("pk").iterator():
            fold = username_fold(name)
            if fold in folds:
                groups[fold].append(name)
    except DatabaseError:  # not migrated yet
        return []
    return [
        Warning(f"Accounts {', '.join(repr(n) for n in names)} have one username under the normal form "
                f"(NFKC, case-folded: {fold!r}); only the first can log in by that name.",
                hint="Rename all but one in the admin (Users); the rename gives each its own username key.",
                id="players.W001")
        for fold, names in groups.items() if len(names) > 1
    ]
