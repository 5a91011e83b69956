"""The journal: hash-chained SQLite store, verification and replay."""
