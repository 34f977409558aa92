"""Tournaments: registration, seating, standings, public pages."""
