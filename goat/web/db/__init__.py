"""Database helpers every app shares: fixed SQL texts and their rows, reads from a standby, locks across processes."""
