"""The words of the API's problem details in the caller's language (``Accept-Language``; docs/api.md).

``title`` is the code in words, one per code (``TITLES``; the English is the code itself, capitalised);
``detail`` is the sentence the service or the engine wrote, translated where it is marked for
translation (a service's lazy text, or an engine text the games app translates). The ``code`` is
never translated. tests/web/test_i18n.py checks that every code the project raises has a title.
"""

from __future__ import annotations

from django.utils.translation import pgettext_lazy

TITLES = {
    "already_withdrawn": pgettext_lazy("problem title", "Already withdrawn"),
    "entry_condition_not_met": pgettext_lazy("problem title", "Entry condition not met"),
    "invite_code_required": pgettext_lazy("problem title", "Invite code required"),
    "invite_code_wrong": pgettext_lazy("problem title", "Invite code wrong"),
    "service_unavailable": pgettext_lazy("problem title", "Service unavailable"),
    "tournament_ended": pgettext_lazy("problem title", "Tournament ended"),
    "tournament_not_running": pgettext_lazy("problem title", "Tournament not running"),
    "tournament_not_scheduled": pgettext_lazy("problem title", "Tournament not scheduled"),
    "already_registered": pgettext_lazy("problem title", "Already registered"),
    "already_seated": pgettext_lazy("problem title", "Already seated"),
    "authentication_failed": pgettext_lazy("problem title", "Authentication failed"),
    "bad_request": pgettext_lazy("problem title", "Bad request"),
    "computer_player": pgettext_lazy("problem title", "Computer player"),
    "computer_seat": pgettext_lazy("problem title", "Computer seat"),
    "deal_mismatch": pgettext_lazy("problem title", "Deal mismatch"),
    "draw_mismatch": pgettext_lazy("problem title", "Draw mismatch"),
    "end_required": pgettext_lazy("problem title", "End required"),
    "event_after_end": pgettext_lazy("problem title", "Event after end"),
    "forced_action_missing": pgettext_lazy("problem title", "Forced action missing"),
    "game_exists": pgettext_lazy("problem title", "Game exists"),
    "game_full": pgettext_lazy("problem title", "Game full"),
    "game_not_ended": pgettext_lazy("problem title", "Game not ended"),
    "game_not_running": pgettext_lazy("problem title", "Game not running"),
    "game_not_waiting": pgettext_lazy("problem title", "Game not waiting"),
    "idempotency_key_reused": pgettext_lazy("problem title", "Idempotency key reused"),
    "illegal_move": pgettext_lazy("problem title", "Illegal move"),
    "insufficient_chips": pgettext_lazy("problem title", "Insufficient chips"),
    "invalid": pgettext_lazy("problem title", "Invalid"),
    "invalid_characters": pgettext_lazy("problem title", "Invalid characters"),
    "invalid_client_seed": pgettext_lazy("problem title", "Invalid client seed"),
    "invalid_credentials": pgettext_lazy("problem title", "Invalid credentials"),
    "invalid_end": pgettext_lazy("problem title", "Invalid end"),
    "invalid_event": pgettext_lazy("problem title", "Invalid event"),
    "invalid_idempotency_key": pgettext_lazy("problem title", "Invalid idempotency key"),
    "invalid_if_match": pgettext_lazy("problem title", "Invalid if match"),
    "invalid_options": pgettext_lazy("problem title", "Invalid options"),
    "invalid_seat": pgettext_lazy("problem title", "Invalid seat"),
    "invalid_seed": pgettext_lazy("problem title", "Invalid seed"),
    "invalid_state_format": pgettext_lazy("problem title", "Invalid state format"),
    "invalid_tile": pgettext_lazy("problem title", "Invalid tile"),
    "left_game": pgettext_lazy("problem title", "Left game"),
    "login_locked_out": pgettext_lazy("problem title", "Login locked out"),
    "malformed_event": pgettext_lazy("problem title", "Malformed event"),
    "malformed_json": pgettext_lazy("problem title", "Malformed json"),
    "method_not_allowed": pgettext_lazy("problem title", "Method not allowed"),
    "must_lead_with": pgettext_lazy("problem title", "Must lead with"),
    "no_clock": pgettext_lazy("problem title", "No clock"),
    "no_game": pgettext_lazy("problem title", "No game"),
    "no_tiles": pgettext_lazy("problem title", "No tiles"),
    "not_acceptable": pgettext_lazy("problem title", "Not acceptable"),
    "not_authenticated": pgettext_lazy("problem title", "Not authenticated"),
    "not_found": pgettext_lazy("problem title", "Not found"),
    "not_registered": pgettext_lazy("problem title", "Not registered"),
    "not_seated": pgettext_lazy("problem title", "Not seated"),
    "not_your_turn": pgettext_lazy("problem title", "Not your turn"),
    "options_not_resolved": pgettext_lazy("problem title", "Options not resolved"),
    "payload_too_large": pgettext_lazy("problem title", "Payload too large"),
    "permission_denied": pgettext_lazy("problem title", "Permission denied"),
    "registration_closed": pgettext_lazy("problem title", "Registration closed"),
    "request_in_progress": pgettext_lazy("problem title", "Request in progress"),
    "rules_error": pgettext_lazy("problem title", "Rules error"),
    "seat_taken": pgettext_lazy("problem title", "Seat taken"),
    "seats_taken": pgettext_lazy("problem title", "Seats taken"),
    "seed_mismatch": pgettext_lazy("problem title", "Seed mismatch"),
    "seed_not_revealed": pgettext_lazy("problem title", "Seed not revealed"),
    "seed_unknown": pgettext_lazy("problem title", "Seed unknown"),
    "server_error": pgettext_lazy("problem title", "Server error"),
    "signup_closed": pgettext_lazy("problem title", "Signup closed"),
    "throttled": pgettext_lazy("problem title", "Throttled"),
    "tile_does_not_fit": pgettext_lazy("problem title", "Tile does not fit"),
    "tile_not_in_hand": pgettext_lazy("problem title", "Tile not in hand"),
    "too_many_streams": pgettext_lazy("problem title", "Too many streams"),
    "tournament_full": pgettext_lazy("problem title", "Tournament full"),
    "unexpected_event": pgettext_lazy("problem title", "Unexpected event"),
    "unforced_draw": pgettext_lazy("problem title", "Unforced draw"),
    "unforced_knock": pgettext_lazy("problem title", "Unforced knock"),
    "unknown_event": pgettext_lazy("problem title", "Unknown event"),
    "unknown_ruleset": pgettext_lazy("problem title", "Unknown ruleset"),
    "unknown_state_format": pgettext_lazy("problem title", "Unknown state format"),
    "unsupported_media_type": pgettext_lazy("problem title", "Unsupported media type"),
    "username_confusable": pgettext_lazy("problem title", "Username confusable"),
    "username_taken": pgettext_lazy("problem title", "Username taken"),
    "version_mismatch": pgettext_lazy("problem title", "Version mismatch"),
    "wrong_seq": pgettext_lazy("problem title", "Wrong seq"),
}


def problem_title(code: str) -> str:
    """The title of ``code`` in the active language (a code without a title: its words, in English)."""
    title = TITLES.get(code)
    return str(title) if title is not None else code.replace("_", " ").capitalize()
