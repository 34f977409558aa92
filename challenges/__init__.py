"""Challenges: a player invites named players (or anyone holding a link) to a game (docs/api.md "Challenges")."""
