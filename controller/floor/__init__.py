"""The casino floor: a table's journal published over MQTT (docs/floor.md)."""
