"""The table's presenter (goat.games.table) and its one pip tile: what each viewer is shown, and that the
admin's replay, the site's game page and the play page draw tiles one way only."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied
from django.template.loader import render_to_string
from factories import finished_game, make_players, play, start_game

from goat.engine.tiles import tiles_str
from goat.games import selectors, table
from goat.games.models import GameEvent

REPO = Path(__file__).resolve().parents[2]
#: a tile as table/_tile.html draws it, its name captured
TILE = re.compile(r'class="tile[^"]*" role="img" aria-label="([0-6]-[0-6])"')


def test_each_face_is_drawn_with_its_pips_on_the_grid():
    drawn = table.tile("6-1")
    assert drawn["label"] == "6-1" and not drawn["double"]
    assert [len(half) for half in drawn["halves"]] == [6, 1]
    assert table.tile("4-4")["double"]
    html = render_to_string("table/_tile.html", {"t": table.tile("3-5")})
    assert TILE.findall(html) == ["3-5"] and html.count('class="pip ') == 8
    assert 'aria-hidden="true"' in html  # the pips are drawing; the name is the tile's text


def test_the_tile_set_holds_every_face_once_both_ways_round():
    names = [t["label"] for t in table.tile_set()]
    assert len(names) == len(set(names)) == 49
    assert {"0-0", "3-5", "5-3", "6-6"} <= set(names)
    html = render_to_string("table/_tile_set.html", {"tile_set": table.tile_set()})
    assert html.count("<template") == 1 and sorted(TILE.findall(html)) == sorted(names)


@pytest.mark.django_db
def test_the_live_table_holds_the_viewers_own_hand_only():
    players = make_players("ann", "ben")
    game = play(start_game(players), players, seed=3, max_moves=3)
    state = selectors.game_state(game=game)
    for seat, user in enumerate(players):
        live = table.table_model(game=game, user=user)
        assert live["hand"] == state.hands_str()[seat] and not live["face_up"]
        assert live["line"]["tiles"] == state.table.line_str()
        assert all(s["hand"] is None for s in live["seats"]) and "bazaar" not in live
    spectator = table.table_model(game=game, user=AnonymousUser())
    assert spectator["hand"] == [] and all(s["hand"] is None for s in spectator["seats"])


@pytest.mark.django_db
def test_the_replay_of_a_running_game_is_refused_to_everyone_but_an_auditor(django_user_model):
    from django.contrib.auth.models import Permission

    players = make_players("ann", "ben")
    game = play(start_game(players), players, seed=3, max_moves=3)
    for user in (AnonymousUser(), players[0], django_user_model.objects.create_user(username="eve", password="x")):
        with pytest.raises(PermissionDenied):
            table.replay_model(game=game, step=game.version, user=user)
        with pytest.raises(PermissionDenied):
            table.table_model(game=game, user=user, step=game.version)
    auditor = django_user_model.objects.create_user(username="judge", password="x", is_staff=True)
    auditor.user_permissions.add(Permission.objects.get(codename="audit_game"))
    auditor = django_user_model.objects.get(pk=auditor.pk)
    step = table.replay_model(game=game, step=game.version, user=auditor)
    hands = [[t["label"] for t in s["hand"]] for s in step["table"]["seats"]]
    assert hands == selectors.game_state(game=game).hands_str()


@pytest.mark.django_db
def test_a_replay_step_shows_every_hand_the_bazaar_and_what_the_event_moved():
    players = make_players("ann", "ben")
    game = finished_game(players, options={"limit": 25, "move_time": 0}, seed=4)
    drawn = GameEvent.objects.filter(game=game, type="tile_drawn").order_by("seq").first()
    played = GameEvent.objects.filter(game=game, type="tile_played").order_by("seq")[2]
    for event in filter(None, (drawn, played)):
        step = table.replay_model(game=game, step=event.seq, user=AnonymousUser())
        model = step["table"]
        state = selectors.game_state(game=game, upto=event.seq)
        assert [t["label"] for t in model["line"]["faces"]] == model["line"]["tiles"] == state.table.line_str()
        assert [[t["label"] for t in s["hand"]] for s in model["seats"]] == state.hands_str()
        assert [t["label"] for t in model["bazaar"]] == tiles_str(state.table.bazaar)
        lit = [t["label"] for t in model["line"]["faces"] if t["highlight"]]
        lit += [t["label"] for s in model["seats"] for t in s["hand"] if t["highlight"]]
        if event.type == "tile_played":
            line = state.table.line_str()
            assert lit == [line[0] if event.data["end"] == "left" else line[-1]]
        else:
            assert lit == [event.data["tile"]]
        assert table.parts_text(step["caption"]) and step["event"]["seq"] == event.seq
        # the same model as any table: the scoresheet so far and the notes, from the events up to the step
        assert len(model["scoresheet"]["rows"]) == len(state.rounds)
        assert max(n["seq"] for n in model["notes"]) <= event.seq
    first = table.replay_model(game=game, step=0, user=AnonymousUser())
    assert first["table"] is None and table.parts_text(first["caption"])
    last = table.replay_model(game=game, step=game.version, user=AnonymousUser())
    assert last["table"]["result"] is not None and last["table"]["round_over"]


def test_tiles_are_drawn_by_one_template_only():
    """No other template or script draws a pip or a tile's halves: the admin's replay, the site's game
    page and the play page all go through table/_tile.html (the play page's script clones it)."""
    drawers = []
    for path in [*REPO.glob("*/templates/**/*.html"), *REPO.glob("*/*/templates/**/*.html"),
                 *REPO.glob("*/static/**/*.js"), *REPO.glob("*/*/static/**/*.js")]:
        if ".venv" in path.parts or path == REPO / "goat/games/templates/table/_tile.html":
            continue
        text = path.read_text()
        if re.search(r'class="pip|"half"|class="tile[" ]|\.half\b|className = "half', text):
            drawers.append(str(path.relative_to(REPO)))
    assert drawers == []
    for page in ("pages/templates/pages/_game_main.html", "goat/games/templates/table/_replay.html",
                 "goat/games/templates/table/_tile_set.html"):
        assert '{% include "table/_tile.html" %}' in (REPO / page).read_text(), page
