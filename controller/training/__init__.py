"""Dealer training on the simulated table: the drill (which call is due, what the rules expect and
why), its scoring and its report. See ``docs/training.md``."""
