"""UsernameKey.skeleton: every account's TR39 skeleton (goat.players.usernames.username_skeleton), unique
where set. Existing accounts get theirs here; of two existing accounts whose names look alike, the older
keeps the skeleton and the newer gets an empty one, which the system check players.W001 reports
(nothing is merged or renamed)."""

from django.db import migrations, models


def skeletons_fill(apps, schema_editor):
    from goat.players.usernames import username_skeleton

    UsernameKey = apps.get_model("players", "UsernameKey")
    taken: set[str] = set()
    keys = []
    for key in UsernameKey.objects.select_related("user").order_by("user_id").iterator():
        skeleton = username_skeleton(key.user.username)
        if skeleton not in taken:
            taken.add(skeleton)
            key.skeleton = skeleton
            keys.append(key)
    UsernameKey.objects.bulk_update(keys, ["skeleton"], batch_size=1000)


class Migration(migrations.Migration):
    dependencies = [("players", "0003_verbose_names")]

    operations = [
        migrations.AddField(
            model_name="usernamekey",
            name="skeleton",
            field=models.CharField(blank=True, default="", max_length=1200, verbose_name="look-alike form"),
        ),
        migrations.RunPython(skeletons_fill, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="usernamekey",
            constraint=models.UniqueConstraint(condition=models.Q(("skeleton", ""), _negated=True),
                                               fields=("skeleton",), name="players_usernamekey_skeleton_unique"),
        ),
    ]
