"""The game store: SQLite by default, Redis as an option, one interface."""
