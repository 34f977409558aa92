from django.apps import AppConfig


class PagesConfig(AppConfig):
    """The public site's pages that gather several apps: home, player, game (docs/site.md).

    The top of the layering (docs/architecture.md): it reads through the selectors of every app
    below it (tournaments, ratings, goat.games, goat.players) and nothing imports it.
    """

    name = "pages"
    verbose_name = "public pages"
