"""The play page, /play/ (docs/play.md): sign-in, sign-up and sign-out with a Django
session, the lobby, and the table at /play/{id}/.

The server renders the forms and the lobby, so the page is whole without JavaScript; the table
needs it. The script (static/play/) talks to the REST API with the session (DRF's
SessionAuthentication, the CSRF token in ``X-CSRFToken``) and follows the game and player streams.
It holds nothing of the rules: legal moves and results come from the server.

A login here goes through ``players.player_authenticate``, the same check as a token request (the
lockout first, then the password); a sign-up through ``players.player_create``, the same as the API's.
Both forms count against the API's rate limits of the same name (``auth``, ``signup``).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.contrib.auth import login, logout
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import get_language, gettext_lazy, pgettext_lazy
from django.utils.translation import gettext as _
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from challenges import selectors as challenge_selectors
from challenges import services as challenges
from challenges.models import ChallengeStatus
from goat.engine import status as engine_status
from goat.engine.computer import DEFAULT_LEVEL, LEVELS
from goat.engine.rulesets import (
    DEFAULT_RULESET,
    MAX_SEATS,
    MIN_SEATS,
    PRESETS,
    RULESETS,
    is_paired,
    partner_of,
    seat_range,
)
from goat.games import selectors
from goat.games.models import Game, GameStatus
from goat.games.table import table_model, tile_set
from goat.games.words import game_status, ruleset
from goat.players import services as players
from goat.web import timezones
from goat.web.api.throttling import throttle_wait
from goat.web.errors import ServiceError

from . import page_challenges

#: games shown in each list of the lobby (the script pages on through the API)
LOBBY_SIZE = 20
#: move clocks the new-game form offers, in seconds (0: no clock)
MOVE_TIMES = (0, 10, 20, 30, 60, 120)
#: what the new-game form calls each computer level (docs/computer.md), weakest first; the levels
#: themselves are the engine's (``goat.engine.computer.LEVELS``), a level without a name here shows as itself
COMPUTER_LEVEL_NAMES = {"random": pgettext_lazy("computer level", "beginner (plays at random)"),
                        "strong": pgettext_lazy("computer level", "strong"),
                        "expert": pgettext_lazy("computer level", "expert (the strongest, thinks longest)")}


def computer_levels() -> list[dict[str, object]]:
    """The levels the form offers in order of strength (the engine's), the default chosen:
    ``{"level", "name", "default"}``."""
    return [{"level": level, "name": COMPUTER_LEVEL_NAMES.get(level, level), "default": level == DEFAULT_LEVEL}
            for level in LEVELS]

def rulesets_offered() -> list[dict[str, object]]:
    """The rulesets the new-game and challenge forms offer: ``{"name", "move_time", "seats", "paired"}``,
    where ``seats`` are the seat counts the ruleset is played with (``goat.engine.rulesets.seat_range``);
    the script offers only those once the ruleset is chosen (play/static/play/seats.js). ``paired``: two
    pairs play it, so the lobby's join buttons choose a seat (play/static/play/lobby.js)."""
    return [{"name": name, "move_time": PRESETS[name]["move_time"],
             "seats": list(range(seat_range(name)[0], seat_range(name)[1] + 1)),
             "paired": is_paired(name)} for name in RULESETS]

#: the name in ``player_url`` that the script replaces with a player's (URL-quoted)
PLAYER_PLACEHOLDER = "NAME"
#: the backend that checks a password, for a session opened right after sign-up
LOGIN_BACKEND = "goat.players.backends.UsernameBackend"


class CredentialsForm(forms.Form):
    username = forms.CharField(label=gettext_lazy("Username"), max_length=150)
    password = forms.CharField(label=gettext_lazy("Password"), max_length=1024, strip=False,
                               widget=forms.PasswordInput)

    def __init__(self, *args, autocomplete: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["username"].widget.attrs.update(autocomplete="username", autocapitalize="none")
        self.fields["password"].widget.attrs.update(autocomplete=autocomplete)


def _signin_form(data=None) -> CredentialsForm:
    return CredentialsForm(data, prefix="signin", autocomplete="current-password")


def _signup_form(data=None) -> CredentialsForm:
    return CredentialsForm(data, prefix="signup", autocomplete="new-password")


def _throttle_wait(request: HttpRequest, scope: str) -> int | None:
    """Seconds to wait when ``request`` is over the API's ``scope`` rate, else None. Counted per client
    address, signed in or not, as the API's sign-up and token views count (they authenticate no one)."""
    return throttle_wait(request, scope, by_address=True)


def _summary(game: Game) -> dict[str, Any]:
    """A game of a lobby list: what its row shows. At a goat-pairs table each free seat is a choice of
    partner (``seat_choices``: the seat, its number and who sits opposite)."""
    seats = sorted(game.seat_set.all(), key=lambda s: s.seat)
    held = {s.seat: s.player.get_username() for s in seats}
    choices = [{"seat": s, "number": s + 1, "partner": held.get(partner_of(game.ruleset, game.seats, s))}
               for s in range(game.seats) if s not in held] if is_paired(game.ruleset) else []
    return {"id": game.pk, "ruleset": game.ruleset, "status": game.status, "seat_count": game.seats,
            "players": [{"name": s.player.get_username(), "computer": s.computer, "bot": s.bot} for s in seats],
            "free": game.seats - len(seats), "move_time": int((game.options or {}).get("move_time") or 0),
            "seat_choices": choices}


def _script_strings() -> dict[str, str]:
    """The words the script shows, in the page's language (read from a JSON island, not a script)."""
    return {
        "computer": _("computer"), "free_seat": _("free seat"), "free_seats": _("Free seats: %(n)s"),
        "join": _("Join"), "none_open": _("No open games. Start one!"),
        "sit_at": _("Sit at seat %(number)s"), "sit_opposite": _("Sit opposite %(player)s"),
        "none_mine": _("You have no games yet."), "rematch_offered": _("%(player)s offers a rematch."),
        "your_turn_at": _("Your turn at game #%(game)s."), "game_started": _("Game #%(game)s has started."),
        "connection_lost": _("Connection lost; reconnecting…"),
        "error": _("Something went wrong: %(detail)s"),
        "resign_confirm": _("Resign this game?"), "game": _("Game #%(game)s"),
        "move_time": _("%(seconds)s s a move"), "no_clock": _("no clock"),
        "player_url": reverse("page-player", args=[PLAYER_PLACEHOLDER]),  # a name's page: the script puts it in
        # stored values (statuses, rulesets, how a game ended) in the words of every page (goat.games.words)
        **{f"status_{status}": game_status(status) for status in GameStatus.values},
        **{f"ruleset_{name}": ruleset(name) for name in RULESETS},
    }


def page(request: HttpRequest, *, game_id: int | None = None, table: dict[str, Any] | None = None,
          signin_form: CredentialsForm | None = None, signup_form: CredentialsForm | None = None,
          status: int = 200, notice: str = "") -> HttpResponse:
    user = request.user
    context: dict[str, Any] = {
        "game_id": game_id,
        # the table's script reads them (play/static/play/table.js)
        "ended_statuses": engine_status.ENDED, "played_statuses": engine_status.PLAYED,
        "table": table,
        "signup_open": settings.GOAT_SIGNUP_OPEN,
        "signin_form": signin_form or _signin_form(),
        "signup_form": signup_form or _signup_form(),
        "notice": notice,
        "next": request.path,
    }
    if user.is_authenticated:
        context.update({
            "time_zone": request.session.get(timezones.SESSION_KEY, ""),
            "time_zones": sorted(timezones.available()),
            "default_time_zone": timezones.default_for(get_language()),
            "open_games": [_summary(g) for g in selectors.games_open(user=user)[:LOBBY_SIZE]],
            "my_games": [_summary(g) for g in selectors.player_games(player=user)[:LOBBY_SIZE]],
            "rulesets": rulesets_offered(),
            "seat_choices": list(range(MIN_SEATS, MAX_SEATS + 1)),
            "computer_choices": list(range(0, MAX_SEATS)),
            "computer_levels": computer_levels(),
            "move_times": MOVE_TIMES,
            "default_move_time": PRESETS[DEFAULT_RULESET]["move_time"],
            "strings": {**_script_strings(), **page_challenges.challenge_strings()},
            **page_challenges.challenge_context(request, game_id),
            "tile_set": tile_set() if game_id is not None else (),
        })
    return render(request, "play/play.html", context, status=status)


def _table_model(request: HttpRequest, game_id: int) -> dict[str, Any]:
    """The table model (goat.games.table.table_model) of ``game_id`` for the visitor, in their language."""
    try:
        game = selectors.game_get(game_id=game_id)
    except ServiceError:
        raise Http404("No game with that id.") from None
    if not selectors.game_visible(game, request.user):  # a private table, while it runs
        raise Http404("No game with that id.")
    return table_model(game=game, user=request.user)


@require_GET
@ensure_csrf_cookie  # the script sends it back in X-CSRFToken
def play_page(request: HttpRequest, game_id: int | None = None) -> HttpResponse:
    """The lobby, or a table: drawn from the table model on the server (the page is whole when it
    loads), which the script then keeps current (``play_table``)."""
    table = None
    if game_id is not None:
        game = Game.objects.filter(pk=game_id).first()
        if game is None or not selectors.game_visible(game, request.user):  # a private table, while it runs
            raise Http404("No game with that id.")
        if request.user.is_authenticated:
            table = _table_model(request, game_id)
    return page(request, game_id=game_id, table=table)


@require_GET
def play_table(request: HttpRequest, game_id: int) -> JsonResponse:
    """The table model of a game as JSON, for the play page's script: it asks for it whenever the game
    stream (or a move's answer) shows a new version, and draws it as it stands (docs/play.md)."""
    response = JsonResponse(_table_model(request, game_id))
    response["Cache-Control"] = "no-store"
    return response


def _next(request: HttpRequest) -> str:
    """Where to go after signing in or up: back to the play page (a table of it), nowhere else."""
    target = request.POST.get("next", "")
    return target if target.startswith("/play/") and "//" not in target and "\\" not in target else "/play/"


def _refused(request: HttpRequest, wait: int, **forms_: CredentialsForm) -> HttpResponse:
    response = page(request, status=429, notice=_("Too many attempts; try again in %(seconds)s s.") % {
        "seconds": wait}, **forms_)
    response["Retry-After"] = str(wait)
    return response


@require_POST
def signin(request: HttpRequest) -> HttpResponse:
    form = _signin_form(request.POST)
    if (wait := _throttle_wait(request, "auth")) is not None:
        return _refused(request, wait, signin_form=form)
    if not form.is_valid():
        return page(request, signin_form=form, status=400)
    try:
        user = players.player_authenticate(request=request, username=form.cleaned_data["username"],
                                           password=form.cleaned_data["password"])
    except ServiceError as exc:
        form.add_error(None, exc.detail)
        response = page(request, signin_form=form, status=exc.status)
        for name, value in (exc.headers or {}).items():
            response[name] = value
        return response
    login(request, user)
    return redirect(_next(request))


@require_POST
def signup(request: HttpRequest) -> HttpResponse:
    form = _signup_form(request.POST)
    if (wait := _throttle_wait(request, "signup")) is not None:
        return _refused(request, wait, signup_form=form)
    if not form.is_valid():
        return page(request, signup_form=form, status=400)
    try:
        user = players.player_create(username=form.cleaned_data["username"], password=form.cleaned_data["password"])
    except ServiceError as exc:
        for field, messages in (exc.errors or {None: [exc.detail]}).items():
            for message in messages:
                form.add_error(field if field in form.fields else None, message)
        return page(request, signup_form=form, status=exc.status)
    login(request, user, backend=LOGIN_BACKEND)
    return redirect(_next(request))


@require_POST
def settings_save(request: HttpRequest) -> HttpResponse:
    """The player's settings form: their time zone ("" for their language's default), kept with the
    player and in the session (goat.web.timezones); a zone this system does not know is refused."""
    if not request.user.is_authenticated:
        return redirect("page-play")
    name = request.POST.get("time_zone", "")
    try:
        players.player_setting_save(player=request.user, time_zone=name)
    except ServiceError as exc:
        return page(request, status=exc.status, notice=exc.detail)
    timezones.remember(request, name)
    return redirect(_next(request))


@require_POST
def signout(request: HttpRequest) -> HttpResponse:
    logout(request)
    return redirect("page-play")


@require_http_methods(["GET", "POST"])
@ensure_csrf_cookie
def challenge_link(request: HttpRequest, code: str) -> HttpResponse:
    """The link of an open challenge, ``/play/c/<code>/``: whoever opens it and signs in takes a seat
    by pressing "Accept" (a form POST to this page: ``challenges.services.challenge_accept`` with the
    code); once every seat is taken the game starts and the page goes to its table. Every lookup of a
    code counts on the player's wrong-code rate, as the API's accept does, so codes cannot be guessed
    through this page either."""
    if not request.user.is_authenticated:
        return page(request, notice=_("Sign in, or sign up, to take your seat at this table."))
    try:
        challenge = challenges.challenge_by_code(code=code, player=request.user)
    except ServiceError as exc:
        response = page(request, status=exc.status, notice=exc.detail)
        for name, value in exc.headers.items():
            response[name] = value
        return response
    if challenge is None:
        raise Http404("No challenge with that code.")
    error = ""
    if request.method == "POST":
        try:
            challenge = challenges.challenge_accept(challenge_id=challenge.pk, player=request.user, code=code)
        except ServiceError as exc:
            error = exc.detail
        else:
            challenge.refresh_from_db()
    if challenge.game_id is not None and (challenge.challenger_id == request.user.pk
                                          or challenge.entries.filter(player=request.user).exists()):
        return redirect("page-play-table", challenge.game_id)
    view = challenge_selectors.challenge_view(challenge_selectors.challenges_listed().get(pk=challenge.pk),
                                              request.user)
    joined = request.user.pk == challenge.challenger_id or any(o["player"] == request.user.get_username()
                                                               for o in view["opponents"])
    return render(request, "play/challenge_link.html", {
        "challenge": view, "joined": joined, "error": error, "open": view["status"] == ChallengeStatus.OPEN,
        "free": challenge.seats - 1 - len(view["opponents"]),
    }, status=409 if error else 200)
