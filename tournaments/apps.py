import logging

from django.apps import AppConfig

logger = logging.getLogger(__name__)


class TournamentsConfig(AppConfig):
    name = "tournaments"
    label = "tournaments"
    verbose_name = "Tournaments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        import django_filters

        from goat.games import services as games
        from goat.games.filters import game_filter_register

        game_filter_register("tournament", django_filters.NumberFilter(
            field_name="tournament_table__tournament_id", min_value=1, max_value=2**63 - 1,
            help_text="Only games of this tournament (its tables' games).",
        ))

        if queue_tournament_advance not in games.GAME_ENDED_HOOKS:
            games.GAME_ENDED_HOOKS.append(queue_tournament_advance)


def queue_tournament_advance(*, game_id: int, state=None) -> None:
    """GAME_ENDED_HOOK (already called on commit): advance the game's tournament, if it has one."""
    from kombu.exceptions import OperationalError as BrokerError

    from .models import Table
    from .tasks import tournament_advance

    tournament_id = Table.objects.filter(game_id=game_id).values_list("tournament_id", flat=True).first()
    if tournament_id is None:
        return
    try:
        tournament_advance.delay(tournament_id)
    except BrokerError:  # the periodic tournaments_arena_tick advances every running tournament
        logger.exception("tournaments: could not queue tournament_advance for tournament %s", tournament_id)
