import logging

from django.apps import AppConfig

logger = logging.getLogger(__name__)


class RatingsConfig(AppConfig):
    name = "ratings"
    label = "ratings"
    verbose_name = "Ratings, chips and leaderboards"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from goat.games import services as games
        from goat.players.services import profile_section_register

        from .selectors import player_profile_section
        from .services import chips_stake_for_seat

        profile_section_register("ratings", player_profile_section)

        if chips_stake_for_seat not in games.SEAT_TAKING_HOOKS:
            games.SEAT_TAKING_HOOKS.append(chips_stake_for_seat)
        if queue_ratings_apply_game not in games.GAME_ENDED_HOOKS:
            games.GAME_ENDED_HOOKS.append(queue_ratings_apply_game)


def queue_ratings_apply_game(*, game_id: int, state=None) -> None:
    """GAME_ENDED_HOOK (already called on commit): queue every post-game projection of the game."""
    from kombu.exceptions import OperationalError as BrokerError

    from .tasks import ratings_apply_game

    try:
        ratings_apply_game.delay(game_id)
    except BrokerError:  # the periodic sweep (ratings.tasks.leaderboards_refresh) applies it later
        logger.exception("ratings: could not queue ratings_apply_game for game %s", game_id)
