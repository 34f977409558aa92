"""Players API: sign-up, token, own and public profiles (docs/api.md "Authentication")."""

from __future__ import annotations

from django.contrib.auth.validators import UnicodeUsernameValidator
from drf_spectacular.utils import OpenApiExample, extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from goat.players import services as players
from goat.players.errors import PlayerError
from goat.players.usernames import USERNAME_FORMULA, username_shape_check
from goat.web.api.fields import StrictCharField
from goat.web.api.problems import problem_example, problem_responses
from goat.web.api.schema import UNAUTHENTICATED, VALIDATED_MIN_LENGTH, raises
from goat.web.db.replica import PublicReadView

# --- Serializers ----------------------------------------------------------------------------


class CredentialsSerializer(serializers.Serializer):
    username = StrictCharField(max_length=150, validators=[UnicodeUsernameValidator()])
    password = StrictCharField(max_length=1024, write_only=True, trim_whitespace=False)


@extend_schema_field({"type": "string", "maxLength": 1024, "pattern": r"\D",
                     "description": "At least 8 characters, not all digits, not a common password, not like the "
                                    "username (Django's validators: 400 `invalid` otherwise).",
                     VALIDATED_MIN_LENGTH: 8})  # MinimumLengthValidator's (goat/settings.py)
class NewPasswordField(StrictCharField):
    """The password of a new account; Django's password validators check it (goat/settings.py)."""


class SignupSerializer(CredentialsSerializer):
    #: the username rule's shape (goat.players.usernames); the service gives look-alikes their own code
    username = StrictCharField(max_length=150, validators=[username_shape_check])
    password = NewPasswordField(max_length=1024, write_only=True, trim_whitespace=False)


class SignupResponseSerializer(serializers.Serializer):
    username = serializers.CharField()


class TokenResponseSerializer(serializers.Serializer):
    token = serializers.CharField()


class SkillSerializer(serializers.Serializer):
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    ordinal = serializers.FloatField()


class PublicProfileSerializer(serializers.Serializer):
    username = serializers.CharField()
    bot = serializers.BooleanField(help_text="Whether the account is a bot's (docs/api.md \"Bots\").")
    rating = serializers.IntegerField()
    skill = serializers.DictField(child=SkillSerializer(), help_text="Per ruleset.")
    games_played = serializers.IntegerField()
    goats = serializers.IntegerField()


class OwnProfileSerializer(PublicProfileSerializer):
    chips = serializers.IntegerField()


PROFILE_EXAMPLE = {
    "username": "alice",
    "bot": False,
    "rating": 37,
    "skill": {"goat-classic": {"mu": 27.1, "sigma": 6.2, "ordinal": 8.5}},
    "games_played": 12,
    "goats": 3,
}

# --- Views ----------------------------------------------------------------------------------


class PlayerSignupView(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list = []
    throttle_scope = "signup"

    @extend_schema(
        operation_id="players_create",
        summary="Sign up",
        request=SignupSerializer,
        responses={201: SignupResponseSerializer, **problem_responses(400, 403, 429)},
        examples=[
            OpenApiExample("sign-up", value={"username": "alice", "password": "correct horse battery"},
                           request_only=True),
            OpenApiExample("created", value={"username": "alice"}, response_only=True, status_codes=["201"]),
            problem_example(400, "invalid", f"username: {USERNAME_FORMULA}", {"username": [USERNAME_FORMULA]}),
            problem_example(400, "username_taken", players.USERNAME_TAKEN, {"username": [players.USERNAME_TAKEN]}),
            problem_example(400, "username_confusable", players.USERNAME_CONFUSABLE,
                            {"username": [players.USERNAME_CONFUSABLE]}),
            problem_example(403, "signup_closed", players.SIGNUP_CLOSED),
        ],
        extensions=raises(PlayerError.SIGNUP_CLOSED, PlayerError.USERNAME_TAKEN, PlayerError.USERNAME_CONFUSABLE),
        tags=["players"],
    )
    def post(self, request: Request) -> Response:
        serializer = SignupSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user = players.player_create(**serializer.validated_data)
        return Response({"username": user.get_username()}, status=status.HTTP_201_CREATED)


class TokenObtainView(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list = []
    throttle_scope = "auth"

    @extend_schema(
        operation_id="auth_token_create",
        summary="Get an API token",
        description="Use it as `Authorization: Token <token>`. After repeated failed logins the account and "
                    "the client address are locked out for a cool-off: 429 `login_locked_out` with `Retry-After`.",
        request=CredentialsSerializer,
        responses={200: TokenResponseSerializer, **problem_responses(400, 429)},
        examples=[
            OpenApiExample("credentials", value={"username": "alice", "password": "correct horse battery"},
                           request_only=True),
            OpenApiExample(
                "token",
                value={"token": "9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b"},
                response_only=True,
                status_codes=["200"],
            ),
            problem_example(400, "invalid_credentials", players.INVALID_CREDENTIALS),
            problem_example(429, "login_locked_out", players.LOCKED_OUT),
        ],
        extensions=raises(PlayerError.INVALID_CREDENTIALS, PlayerError.LOGIN_LOCKED_OUT),
        tags=["players"],
    )
    def post(self, request: Request) -> Response:
        serializer = CredentialsSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        return Response({"token": players.token_obtain(request=request._request, **serializer.validated_data)})


class PlayerMeView(APIView):
    @extend_schema(
        operation_id="players_me",
        summary="Own profile",
        responses={200: OwnProfileSerializer, **problem_responses(401)},
        examples=[
            OpenApiExample("profile", value={**PROFILE_EXAMPLE, "chips": 1000}, response_only=True,
                           status_codes=["200"]),
            UNAUTHENTICATED,
        ],
        tags=["players"],
    )
    def get(self, request: Request) -> Response:
        return Response(players.player_profile(user=request.user, include_private=True))


class PlayerDetailView(PublicReadView, APIView):
    permission_classes = [IsAuthenticatedOrReadOnly]  # public reads (docs/api.md "Anonymous reads")
    @extend_schema(
        operation_id="players_retrieve",
        summary="Public profile",
        responses={200: PublicProfileSerializer, **problem_responses(401, 404)},
        examples=[
            OpenApiExample("profile", value=PROFILE_EXAMPLE, response_only=True, status_codes=["200"]),
            UNAUTHENTICATED,
            problem_example(404, "not_found", "No player with this username."),
        ],
        tags=["players"],
    )
    def get(self, request: Request, username: str) -> Response:
        user = players.player_get(username=username)
        return Response(players.player_profile(user=user, include_private=False))
