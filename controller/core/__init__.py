"""The pure core: cards, rules, the round machine, the table, settlement, odds, inputs.

No I/O, clock, threads, sqlite or file/environment config (checked by import-linter)."""
