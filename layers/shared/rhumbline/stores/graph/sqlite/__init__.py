"""The embedded graph backend: one SQLite file, stdlib `sqlite3` only (`store.SqliteGraphStore`)."""
