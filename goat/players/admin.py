"""The admin's user forms check the username on its fold and its skeleton (goat.players.usernames), as
sign-up does, so a look-alike of a taken name is a form error there too, not an IntegrityError. The username rule
itself (``username_check``) is on the user model's field, so both forms apply it; the change form
applies it only to a name it changes, so that staff can still deactivate an account made before the
rule (``manage.py usernames_report`` lists them) without renaming it first."""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm
from django.utils.translation import gettext_lazy

from goat.players.services import username_key_taken
from goat.players.usernames import username_normal, username_reserved

USERNAME_TAKEN = gettext_lazy(
    "A user with that username, or one that looks like it, already exists (compared without case and width).")


def _clean_username(form) -> str:
    username = username_normal(form.cleaned_data["username"])
    besides = form.instance if form.instance.pk is not None else None
    # a reserved name stays allowed on the account that already has it (a computer player's)
    keeps = form.instance.pk is not None and username == form.instance.get_username()
    if username_key_taken(username, besides=besides) or (username_reserved(username) and not keeps):
        raise forms.ValidationError(USERNAME_TAKEN, code="unique")
    return username


class FoldedUserCreationForm(AdminUserCreationForm):
    def clean_username(self):
        return _clean_username(self)


class FoldedUserChangeForm(UserChangeForm):
    def clean_username(self):
        return _clean_username(self)

    def _get_validation_exclusions(self):
        excluded = super()._get_validation_exclusions()
        if "username" not in self.changed_data:
            excluded.add("username")
        return excluded


User = get_user_model()
if admin.site.is_registered(User):
    admin.site.unregister(User)


@admin.register(User)
class PlayerUserAdmin(UserAdmin):
    form = FoldedUserChangeForm
    add_form = FoldedUserCreationForm
