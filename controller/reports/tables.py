"""The dealers report as text for a person and as CSV rows."""

from __future__ import annotations

import csv
from collections.abc import Mapping
from typing import Any, TextIO

from babel.numbers import get_decimal_symbol

from controller.i18n.catalogue import ENGLISH, Catalogue
from controller.i18n.counts import rounds as counted_rounds
from controller.i18n.numbers import format_fixed
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


def _number(value: float | None, digits: int, language: str) -> str:
    return "-" if value is None else format_fixed(value, digits, language)


def _who(row: Mapping[str, Any], words: Catalogue) -> str:
    if row["dealer"] is None:
        return words.say("report.no_badge", "(no badge)")
    return f"{row['name']} ({row['dealer']})" if row["name"] else str(row["dealer"])


def _line(row: Mapping[str, Any], words: Catalogue) -> str:
    language = words.language
    misdeals = ", ".join(f"{kind} {rate:g}".replace(".", get_decimal_symbol(language)) if rate is not None
                         else f"{kind} -"  # misdeals in no round: a rate of none, never "none"
                         for kind, rate in row["misdeals_per_100_rounds"].items()) or words.say("report.none", "none")
    return words.say("report.line", "{rounds} in {hours} h ({per_hour}/h), {mean} s a round (p90 {p90}), "
                     "misdeals per 100 rounds: {misdeals}; voids {voids}, approvals {approvals}",
                     rounds=counted_rounds(row["rounds"]), hours=_number(row["hours"], 2, language),
                     per_hour=_number(row["rounds_per_hour"], 1, language),
                     mean=_number(row["mean_seconds_per_round"], 1, language),
                     p90=_number(row["p90_seconds_per_round"], 1, language), misdeals=misdeals, voids=row["voids"],
                     approvals=row["approvals"])


def text_lines(report: Mapping[str, Any], words: Catalogue = ENGLISH) -> list[str]:
    """The report for a person, in ``words``' language: each dealer, then each shift (dealer ids, tables,
    times and misdeal kinds stay as recorded)."""
    say = words.say
    lines = [say("report.dealers", "Dealers:")]
    lines.extend(say("report.dealer", "  {who}: {shifts} shift(s), {line}", who=_who(row, words),
                     shifts=row["shifts"], line=_line(row, words)) for row in report["dealers"])
    lines.append(say("report.shifts", "Shifts:"))
    lines.extend(say("report.shift", "  {table} {start} to {end} {who}: {line}", table=row["table"],
                     start=row["start"], end=row["end"], who=_who(row, words), line=_line(row, words))
                 for row in report["shifts"])
    return lines
