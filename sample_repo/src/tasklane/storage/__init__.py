"""SQLite persistence; all SQL lives in this package."""
