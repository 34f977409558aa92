"""Computer opponents (docs/computer.md, issue 27 items 1, 2 and 5): games that seat
built-in computer players, their moves as tasks queued on commit, stale and repeated tasks, the
refusals, and whole games of every ruleset played by computers and one human."""

from __future__ import annotations

import pytest
from django.contrib.auth import authenticate
from django.test import Client, RequestFactory
from rest_framework.test import APIClient

from apitest import assert_problem, token_client
from computer_play import drain, play_out, queue_catch, state_of
from goat import engine
from goat.engine.tiles import tile_str
from goat.games import computer, eventstore, services, verification
from goat.games.models import Game, GameStatus, Seat
from goat.players.models import ComputerAccount
from goat.players.services import computer_accounts

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "x" * 12


@pytest.fixture
def queued(monkeypatch):
    return queue_catch(monkeypatch)


@pytest.fixture
def human(django_user_model):
    user = django_user_model.objects.create_user(username="hana", password=PASSWORD)
    return user, token_client(user)


def create(client, **body):
    return client.post("/api/games/", {"ruleset": "goat-classic", "seats": 4, **body}, format="json")


# --- creating a game with computers -----------------------------------------------------------------


def test_computers_take_their_seats_at_once_and_the_game_waits_for_the_humans(human, queued):
    user, client = human
    response = create(client, computer_players=2, computer_level="random")
    assert response.status_code == 201, response.content
    view = response.json()
    assert view["status"] == "waiting" and view["rated"] is False and view["computer_level"] == "random"
    assert [(s["player"], s["computer"]) for s in view["seats"]] == [
        ("hana", False), ("computer-1", True), ("computer-2", True), (None, False)]
    assert queued == []

    other = token_client(type(user).objects.create_user(username="olga", password=PASSWORD))
    joined = other.post(f"/api/games/{view['id']}/join/", {}, format="json").json()
    assert joined["status"] == "running" and joined["your_seat"] == 3
    game = Game.objects.get(pk=view["id"])
    assert game.computers == 0b0110 and not game.rated
    # the summary says which seats are computers' too
    summary = client.get("/api/games/", {"status": "running"}).json()["results"][0]
    assert summary["rated"] is False
    assert [s["computer"] for s in summary["seats"]] == [False, True, True, False]


def test_a_game_without_computers_is_rated_and_says_so(human):
    _user, client = human
    view = create(client, seats=2).json()
    assert view["rated"] is True and view["computer_level"] is None
    assert all(s["computer"] is False for s in view["seats"])


def test_the_level_defaults_to_strong_and_the_accounts_are_made_once(human, queued):
    _user, client = human
    first = create(client, computer_players=3).json()
    second = create(client, computer_players=3).json()
    assert first["computer_level"] == "strong" and first["status"] == "running"
    assert [s["player"] for s in second["seats"][1:]] == ["computer-1", "computer-2", "computer-3"]
    assert ComputerAccount.objects.count() == 3
    assert computer_accounts(count=2) == computer_accounts(count=2)


def test_a_game_without_computer_players_asks_for_no_account(django_assert_num_queries):
    """A game or rematch with no computer seat (the usual case) costs no query for the computer accounts."""
    with django_assert_num_queries(0):
        assert computer_accounts(count=0) == []


def test_the_first_move_is_queued_when_the_deal_gives_a_computer_the_lead(human, queued):
    _user, client = human
    for _ in range(20):  # the leader is whoever holds the opening double: some deal gives it to a computer
        view = create(client, seats=2, computer_players=1).json()
        if view["turn"] == 1:
            break
        game = Game.objects.get(pk=view["id"])  # frees its place (GOAT_COMPUTER_GAMES_PER_PLAYER)
        services.game_resign(game_id=game.pk, player=game.created_by)
    else:
        pytest.fail("no deal gave the computer the lead")
    assert queued == [(view["id"], view["version"])]
    assert drain(queued) == 1
    after = state_of(view["id"])
    assert after.version > view["version"] and after.turn == 0


def test_the_move_is_queued_with_the_think_time_as_its_countdown(human, settings, monkeypatch):
    from goat.celery import app

    settings.GOAT_COMPUTER_THINK_SECONDS = 0.25
    calls = []
    monkeypatch.setattr(app.tasks[services.COMPUTER_MOVE_TASK], "apply_async",
                        lambda args, countdown: calls.append((args, countdown)))
    services.computer_move_queue(game_id=7, version=12)()
    assert calls == [((7, 12), 0.25)]


# --- stale and repeated tasks -----------------------------------------------------------------------


def computer_to_move(client, queued) -> dict:
    """A two-seat game where the computer (seat 1) is to move, its move queued."""
    for _ in range(30):
        queued.clear()
        view = create(client, seats=2, computer_players=1, computer_level="random").json()
        if view["turn"] == 1:
            return view
        services.game_play_tile(game_id=view["id"], player=Game.objects.get(pk=view["id"]).created_by,
                                tile=view["legal_moves"][0]["tile"], end=view["legal_moves"][0]["end"])
        if state_of(view["id"]).turn == 1:
            return {"id": view["id"], "version": state_of(view["id"]).version}
        game = Game.objects.get(pk=view["id"])
        if not game.ended:  # frees its place (GOAT_COMPUTER_GAMES_PER_PLAYER)
            services.game_resign(game_id=game.pk, player=game.created_by)
    pytest.fail("the computer never got the turn")


def test_a_redelivered_task_plays_once(human, queued):
    _user, client = human
    view = computer_to_move(client, queued)
    task = queued.pop()
    assert task == (view["id"], view["version"])
    assert computer.computer_move(game_id=task[0], version=task[1]) is True
    version = state_of(view["id"]).version
    assert computer.computer_move(game_id=task[0], version=task[1]) is False  # the same message again
    assert state_of(view["id"]).version == version


def test_a_stale_task_does_nothing(human, queued):
    user, client = human
    view = computer_to_move(client, queued)
    queued.clear()
    game = Game.objects.get(pk=view["id"])
    # the computer's clock runs out before its task runs: the ticker times it out
    assert services.game_time_out(game_id=game.pk, expected_version=game.version,
                                  now=game.deadline + (game.deadline - game.deadline).__class__(seconds=1))
    ended = state_of(game.pk)
    assert ended.status == "interrupted" and ended.result.goats == (1,)
    assert computer.computer_move(game_id=game.pk, version=view["version"]) is False
    assert state_of(game.pk).version == ended.version


def test_a_task_for_a_version_the_game_moved_past_does_nothing_while_it_runs(human, queued):
    _user, client = human
    view = computer_to_move(client, queued)
    assert computer.computer_move(game_id=view["id"], version=view["version"] - 1) is False
    assert state_of(view["id"]).version == view["version"]


def test_a_task_of_a_deleted_or_humans_turn_does_nothing(human, queued):
    user, client = human
    assert computer.computer_move(game_id=987654, version=3) is False
    view = create(client, seats=2).json()  # no computers at all
    other = token_client(type(user).objects.create_user(username="olga", password=PASSWORD))
    other.post(f"/api/games/{view['id']}/join/", {}, format="json")
    game = Game.objects.get(pk=view["id"])
    assert computer.computer_move(game_id=game.pk, version=game.version) is False


# --- refusals ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("body, field", [
    ({"seats": 2, "computer_players": 2}, "computer_players"),
    ({"seats": 4, "computer_players": 4}, "computer_players"),
    ({"seats": 3, "computer_players": -1}, "computer_players"),
    ({"seats": 3, "computer_players": "1"}, "computer_players"),
    ({"seats": 3, "computer_players": True}, "computer_players"),
    ({"seats": 3, "computer_players": 1, "computer_level": "genius"}, "computer_level"),
    ({"seats": 3, "computer_players": 1, "computer_level": None}, "computer_level"),
])
def test_computer_counts_out_of_range_and_unknown_levels_are_400_naming_the_field(human, body, field):
    _user, client = human
    problem = assert_problem(create(client, **body), 400, "invalid")
    assert field in problem["errors"] and field in problem["detail"]
    assert Game.objects.count() == 0


def test_the_service_refuses_what_the_serializer_refuses(human):
    user, _client = human
    with pytest.raises(services.ServiceError) as caught:
        services.game_create(player=user, ruleset="goat-classic", seats=2, computer_players=2)
    assert list(caught.value.errors) == ["computer_players"]
    with pytest.raises(services.ServiceError) as caught:
        services.game_create(player=user, ruleset="goat-classic", seats=2, computer_players=1, computer_level="x")
    assert "computer_level" in caught.value.errors


def test_an_ante_with_computers_is_400_invalid_options_and_the_preset_ante_is_left_out(human, queued):
    _user, client = human
    problem = assert_problem(create(client, ruleset="goat-gamesburg", seats=2, computer_players=1,
                                    options={"ante": 10}), 400, "invalid_options")
    assert "ante" in problem["detail"]
    view = create(client, ruleset="goat-gamesburg", seats=2, computer_players=1).json()
    assert view["options"]["ante"] == 0 and view["rated"] is False
    plain = create(client, ruleset="goat-gamesburg", seats=2).json()
    assert plain["options"]["ante"] == 10  # without computers the preset stands


def test_a_move_for_a_computers_seat_is_403(human, queued):
    _user, client = human
    view = computer_to_move(client, queued)
    bot = Seat.objects.get(game_id=view["id"], seat=1).player
    as_bot = token_client(bot)  # a token staff made for it: the seat is still the computer's alone
    move = view_of(client, view["id"])
    state = state_of(view["id"])
    tile, end = engine.legal_moves(state, 1)[0]
    response = as_bot.post(f"/api/games/{view['id']}/moves/", {"tile": tile_str(tile), "end": end}, format="json")
    assert_problem(response, 403, "computer_seat")
    assert_problem(as_bot.post(f"/api/games/{view['id']}/resign/"), 403, "computer_seat")
    assert_problem(as_bot.post("/api/games/", {"ruleset": "goat-classic", "seats": 2}, format="json"),
                   403, "computer_player")
    assert state_of(view["id"]).version == move["version"]


def view_of(client, game_id):
    return client.get(f"/api/games/{game_id}/").json()


def test_a_human_moving_in_a_computers_turn_changes_nothing(human, queued):
    user, client = human
    view = computer_to_move(client, queued)
    mine = view_of(client, view["id"])
    assert mine["turn"] == 1 and mine["legal_moves"] == []
    for tile in mine["hand"]:
        response = client.post(f"/api/games/{view['id']}/moves/", {"tile": tile, "end": "left"}, format="json")
        assert response.status_code == 422 and response.json()["code"] == "not_your_turn"
    assert state_of(view["id"]).version == view["version"]
    assert drain(queued) == 1  # the computer's move still comes


def test_a_computer_account_cannot_sign_in(human, queued, settings):
    settings.AXES_FAILURE_LIMIT = 100  # many failed attempts from one address here: no lockout in between
    _user, client = human
    create(client, seats=2, computer_players=1)
    bot = ComputerAccount.objects.get(number=1).user
    assert not bot.has_usable_password()
    for password in ("", "!", "x" * 12, bot.password):
        assert authenticate(RequestFactory().post("/"), username="computer-1", password=password) is None
        wrong = APIClient().post("/api/auth/token/", {"username": "computer-1", "password": password or "?"},
                                 format="json")
        wrong_password = APIClient().post("/api/auth/token/", {"username": "hana", "password": "nope"},
                                          format="json")
        same = ("status", "code", "title", "detail")
        assert [assert_problem(wrong, 400, "invalid_credentials")[k] for k in same] == \
            [assert_problem(wrong_password, 400, "invalid_credentials")[k] for k in same]
    admin = Client()
    page = admin.post("/admin/login/", {"username": "computer-1", "password": PASSWORD, "next": "/admin/"})
    assert page.status_code == 200 and "_auth_user_id" not in admin.session


def test_nobody_signs_up_with_a_computers_name(api_client):
    response = api_client.post("/api/players/", {"username": "Computer-7", "password": PASSWORD}, format="json")
    assert_problem(response, 400, "username_taken")


def test_the_last_human_leaving_a_waiting_game_cancels_it(human, queued):
    _user, client = human
    view = create(client, seats=4, computer_players=2).json()
    left = client.post(f"/api/games/{view['id']}/leave/").json()
    assert left["status"] == "cancelled"
    assert Seat.objects.filter(game_id=view["id"]).count() == 0


def test_a_rematch_seats_the_computers_again(human, queued):
    user, client = human
    view = create(client, seats=2, computer_players=1, computer_level="random").json()
    game = play_out(view["id"], user, queued)
    rematch = client.post(f"/api/games/{game.pk}/rematch/").json()
    assert rematch["computer_level"] == "random" and rematch["seats"][1]["computer"] is True


# --- whole games ------------------------------------------------------------------------------------


@pytest.mark.parametrize("ruleset, seats, level", [
    ("goat-classic", 4, "strong"), ("goat-gamesburg", 3, "strong"), ("domino-3rounds", 2, "strong"),
    ("goat-classic", 2, "random"), ("domino-3rounds", 4, "random"), ("domino-3rounds", 3, "expert"),
])
def test_computers_play_whole_games_with_one_human_and_the_log_verifies(human, queued, ruleset, seats, level):
    user, client = human
    short = {"limit": 51} if ruleset.startswith("goat") else {}  # the goat rulesets to 51 points: a lean test
    view = create(client, ruleset=ruleset, seats=seats, computer_players=seats - 1, computer_level=level,
                  options=short).json()
    game = play_out(view["id"], user, queued, seed=seats)
    assert game.status == GameStatus.FINISHED
    assert verification.game_verify(game=game).ok
    assert client.get(f"/api/games/{game.pk}/scoresheet/").status_code == 200
    assert client.get(f"/api/games/{game.pk}/replay/").status_code == 200
    assert client.get(f"/api/games/{game.pk}/verify/").json()["replay"] is True


def test_the_admin_marks_the_computers_and_the_unrated_game(human, queued, admin_client):
    _user, client = human
    view = create(client, seats=3, computer_players=1).json()
    listing = admin_client.get("/admin/goat/game/").content.decode()
    assert "computer-1 (computer)" in listing and "hana (computer)" not in listing
    page = admin_client.get(f"/admin/goat/game/{view['id']}/change/").content.decode()
    assert "computer" in page and "rated" in page


def test_with_celery_eager_the_queued_task_itself_plays_on_commit(human):
    """No catching here: the commit queues the real task (run inline by the eager test setting), which
    plays before the human's next turn."""
    user, client = human
    view = create(client, seats=2, computer_players=1, computer_level="strong").json()
    for _ in range(6):
        state = state_of(view["id"])
        if state.ended:
            break
        assert state.turn == 0  # the computer has always answered already
        mine = client.get(f"/api/games/{view['id']}/").json()
        response = client.post(f"/api/games/{view['id']}/moves/", mine["legal_moves"][0], format="json")
        assert response.status_code == 201
    events = client.get(f"/api/games/{view['id']}/events/").json()["events"]
    assert any(e["type"] == "tile_played" and e["seat"] == 1 for e in events)


def test_two_humans_racing_a_computers_turn_change_nothing_and_its_task_plays_once(django_user_model, queued):
    """Threads (on PostgreSQL in .ci/run's second pass): both people send every tile they hold while it
    is the computer's turn, and the computer's task is delivered twice at the same moment."""
    from testkit import run_together

    ann = django_user_model.objects.create_user(username="ann", password=PASSWORD)
    ben = django_user_model.objects.create_user(username="ben", password=PASSWORD)
    for _ in range(40):
        queued.clear()
        game = services.game_create(player=ann, ruleset="goat-classic", seats=3, computer_players=1).game
        services.game_join(game_id=game.pk, player=ben)  # seats: ann 0, computer 1, ben 2
        while state_of(game.pk).turn == 0 and not queued:  # ann leads until the computer's turn
            state = state_of(game.pk)
            tile, end = engine.legal_moves(state, 0)[0]
            services.game_play_tile(game_id=game.pk, player=ann, tile=tile_str(tile), end=end)
        if state_of(game.pk).turn == 1 and queued:
            break
    else:
        pytest.fail("the computer never got the turn")
    state = state_of(game.pk)
    [(game_id, version)] = queued
    queued.clear()
    hands = {0: (ann, state.hand(0)), 2: (ben, state.hand(2))}
    tries = [(player, tile_str(tile)) for player, hand in hands.values() for tile in hand]

    def work(i):
        if i < 2:
            return computer.computer_move(game_id=game_id, version=version)
        player, tile = tries[(i - 2) % len(tries)]
        try:
            services.game_play_tile(game_id=game_id, player=player, tile=tile, end="left",
                                    expected_version=version)  # the version their clients saw
        except services.ServiceError as exc:
            return exc.code
        except engine.RulesError as exc:
            return exc.code
        return "played"

    results = run_together(2 + len(tries), work)
    assert sorted(results[:2]) == [False, True], results  # the task ran twice, played once
    assert set(results[2:]) <= {"not_your_turn", "version_mismatch"}, results
    after = state_of(game_id)
    events = eventstore.events_load(game_id=game_id, after=version)
    assert events[0].type == "tile_played" and events[0].seat == 1
    assert [e.seq for e in events] == list(range(version + 1, after.version + 1))
    assert [e.seat for e in events if e.type == "tile_played"] == [1]  # nobody else's play landed


def test_the_pages_mark_the_computers_and_the_unrated_game(human, queued):
    user, client = human
    view = create(client, seats=2, computer_players=1, computer_level="random").json()
    page = Client().get(f"/games/{view['id']}/").content.decode()
    assert 'class="badge computer">computer<' in page and 'id="game-unrated"' in page
    russian = Client().get(f"/games/{view['id']}/", HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    assert ">компьютер<" in russian and "без рейтинга" in russian
    game = play_out(view["id"], user, queued)
    for path in ("/", f"/players/{user.username}/"):
        assert 'class="badge computer">computer<' in Client().get(path).content.decode(), path
    people = Client().get(f"/games/{game.pk}/").content.decode()
    assert people.count('class="badge computer"') == 1
