"""System check: accounts whose usernames collide under the normal form (goat.players.usernames)."""

from __future__ import annotations

from collections import defaultdict

from django.core.checks import Tags, Warning, register


@register(Tags.database)
def check_username_collisions(app_configs, databases=None, **kwargs):
    """players.W001 for each group of accounts whose names have one fold, or one skeleton (look alike).
    Accounts created since the fold and the skeleton are stored cannot collide (unique constraints);
    older ones are reported, never merged."""
    if not databases:
        return []
    from django.contrib.auth import get_user_model
    from django.db import DatabaseError

    from goat.players.usernames import username_fold, username_skeleton

    User = get_user_model()
    users = User._default_manager
    try:
        unkeyed = list(users.filter(username_key__isnull=True).values_list("username", flat=True))
        unskeletoned = list(users.filter(username_key__skeleton="").values_list("username", flat=True))
        if not unkeyed and not unskeletoned:
            return []
        folds = {username_fold(name) for name in unkeyed}
        skeletons = {username_skeleton(name) for name in unskeletoned}
        same: dict[str, list[str]] = defaultdict(list)
        alike: dict[str, list[str]] = defaultdict(list)
        for name in users.values_list("username", flat=True).order_by("pk").iterator():
            if (fold := username_fold(name)) in folds:
                same[fold].append(name)
            if (skeleton := username_skeleton(name)) in skeletons:
                alike[skeleton].append(name)
    except DatabaseError:  # not migrated yet
        return []
    hint = "Rename all but one in the admin (Users); the rename gives each its own username key."
    return [
        Warning(f"Accounts {', '.join(repr(n) for n in names)} have one username under the normal form "
                f"(NFKC, case-folded: {fold!r}); only the first can log in by that name.", hint=hint,
                id="players.W001")
        for fold, names in same.items() if len(names) > 1
    ] + [
        Warning(f"Accounts {', '.join(repr(n) for n in names)} have usernames that look alike (TR39 "
                f"skeleton {skeleton!r}); a new account could not take any of them.", hint=hint, id="players.W001")
        for skeleton, names in alike.items() if len(names) > 1
    ]
