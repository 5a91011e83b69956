"""The casino floor: a table's journal over MQTT, the PostgreSQL archive, the pit dashboard.

Floor code sits above the journal (it reads journals and their records) and below the command line.
See ``docs/floor.md``.
"""
