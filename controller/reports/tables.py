"""The dealers report as text for a person and as CSV rows."""

from __future__ import annotations

import csv
from collections.abc import Mapping
from typing import Any, TextIO

from controller.reports.dealers import MISDEAL_KINDS

CSV_COLUMNS: tuple[str, ...] = (
    "scope", "dealer", "name", "table", "start", "end", "shifts", "hours", "rounds", "rounds_per_hour", "voids",
    "approvals", "mean_seconds_per_round", "p90_seconds_per_round",
    *(f"misdeals_per_100_rounds_{kind}" for kind in MISDEAL_KINDS),
)
"""The CSV header: one row per dealer (``scope`` ``dealer``) then one per shift (``shift``)."""


def write_csv(report: Mapping[str, Any], out: TextIO) -> None:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for scope, rows in (("dealer", report["dealers"]), ("shift", report["shifts"])):
        for row in rows:
            rates = row["misdeals_per_100_rounds"]
            values = {**row, "scope": scope, **{f"misdeals_per_100_rounds_{kind}": rates.get(kind, 0 if row["rounds"]
                                                                                             else None)
                                               for kind in MISDEAL_KINDS}}
            writer.writerow(["" if values.get(column) is None else values[column] for column in CSV_COLUMNS])


def _number(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _who(row: Mapping[str, Any]) -> str:
    if row["dealer"] is None:
        return "(no badge)"
    return f"{row['name']} ({row['dealer']})" if row["name"] else str(row["dealer"])


def _line(row: Mapping[str, Any]) -> str:
    misdeals = ", ".join(f"{kind} {rate:g}" for kind, rate in row["misdeals_per_100_rounds"].items()
                         if rate is not None) or "none"
    return (f"{row['rounds']} rounds in {_number(row['hours'], 2)} h ({_number(row['rounds_per_hour'])}/h), "
            f"{_number(row['mean_seconds_per_round'])} s a round (p90 {_number(row['p90_seconds_per_round'])}), "
            f"misdeals per 100 rounds: {misdeals}; voids {row['voids']}, approvals {row['approvals']}")


def text_lines(report: Mapping[str, Any]) -> list[str]:
    """The report for a person: each dealer, then each shift."""
    lines = ["Dealers:"]
    lines.extend(f"  {_who(row)}: {row['shifts']} shift(s), {_line(row)}" for row in report["dealers"])
    lines.append("Shifts:")
    lines.extend(f"  {row['table']} {row['start']} to {row['end']} {_who(row)}: {_line(row)}"
                 for row in report["shifts"])
    return lines
