"""Rating ledger, skill ratings, chips and leaderboards."""
