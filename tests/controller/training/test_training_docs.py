"""docs/training.md names every field of the drill's events, and every misdeal kind has a CSV column."""

from __future__ import annotations

from pathlib import Path

from controller.core.events import event_names, fields_of
from controller.core.misdeals import POLICIES
from controller.reports.tables import CSV_COLUMNS
from controller.training.events import TRAINING_EVENT_TYPES

ROOT = Path(__file__).resolve().parents[3]
DOC = (ROOT / "docs" / "training.md").read_text(encoding="utf-8")


def test_every_training_event_field_is_documented() -> None:
    rows = {line.split("|")[1].strip().strip("`"): line for line in DOC.splitlines() if line.startswith("| `")}
    for event_type in TRAINING_EVENT_TYPES:
        (name,) = event_names(event_type)
        assert name in rows, f"docs/training.md has no row for {name}"
        missing = [field for field in fields_of(event_type) if f"`{field}`" not in rows[name]]
        assert not missing, f"docs/training.md row {name} does not name {', '.join(missing)}"


def test_every_misdeal_kind_has_a_csv_column() -> None:
    assert {f"misdeals_per_100_rounds_{kind}" for kind in POLICIES} <= set(CSV_COLUMNS)
