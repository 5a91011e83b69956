"""The kernel choices for the live edge, measured side by side in one run (issue 30 item 1): the same whole
numbers (every final position's weight for a shoe) from

- the C extension the package builds (``controller/core/bets/_kernel.c``, what ships);
- numpy, vectorised: gathers and products level by level, ``np.add.reduceat`` per position (int64, exact for
  up to 8 decks);
- the same C loop as a plain shared library called through ctypes (what cffi's ABI mode does too), compiled on
  the spot with ``cc`` (skipped without one);
- the pure-Python packed path and the reference, for scale.

Each is checked equal to the reference on the measured shoes before it is timed. Import cost: a fresh
interpreter importing the library, minus a bare one. Run: ``python -m benchmarks.edge_choices`` (or
``python -m benchmarks.edge --choices``).
"""

from __future__ import annotations

import ctypes
import statistics
import subprocess
import sys
import tempfile
import time
from array import array
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

from controller.core.bets import kernel, tables
from controller.core.bets.exact import Shoe, position_weights
from controller.core.bets.packed import packed_position_weights
from controller.core.shoe import shuffled_shoe

MS = 1000
PLAIN_C = r"""
#include <stdint.h>
void position_sums(long multisets, const uint32_t *parent, const uint8_t *factor, long positions,
                   const uint8_t *cards, const int64_t *first, const uint32_t *member, const uint8_t *orderings,
                   const uint64_t *counts, uint64_t *weights, uint64_t *out) {
    uint64_t falling[60]; uint64_t left = 0;
    for (int v = 0; v < 10; v++) left += counts[v];
    for (int j = 0; j < 6; j++)
        for (int v = 0; v < 10; v++) falling[j * 10 + v] = counts[v] > (uint64_t)j ? counts[v] - j : 0;
    weights[0] = 1;
    for (long m = 1; m < multisets; m++) weights[m] = weights[parent[m]] * falling[factor[m]];
    uint64_t fill[7] = {0, 0, 0, 0, (left - 4) * (left - 5), left - 5, 1};
    for (long p = 0; p < positions; p++) {
        uint64_t total = 0;
        for (int64_t e = first[p]; e < first[p + 1]; e++) total += weights[member[e]] * orderings[e];
        out[p] = total * fill[cards[p]];
    }
}
"""

Weights = Callable[[Sequence[int]], dict[tuple[int, int, int, int], int]]


class _Flat:
    """The tables flattened: every multiset in one array (level by level), each entry's global index."""

    def __init__(self) -> None:
        parents, factors, positions = tables.load()
        starts, sizes = [0], [1]
        for level in parents:
            starts.append(starts[-1] + sizes[-1])
            sizes.append(len(level))
        self.starts, self.sizes = starts, sizes
        self.parent = [0] + [starts[n] + p for n, level in enumerate(parents) for p in level]
        self.factor = [0] + [f for level in factors for f in level]
        self.cards = [p[2] + p[3] for p, _, _ in positions]
        self.first = [0]
        for _, found, _ in positions:
            self.first.append(self.first[-1] + len(found))
        self.member = [starts[p[2] + p[3]] + m for p, found, _ in positions for m in found]
        self.orderings = [o for _, _, orderings in positions for o in orderings]


def extension() -> Weights:
    sums = kernel.PositionSums([index] for index in range(len(tables.position_order())))
    return lambda values: _as_dict(sums(values))


def numpy_path() -> Weights | None:
    try:
        import numpy as np
    except ImportError:
        return None
    flat = _Flat()
    total = len(flat.parent)
    parent = [np.array(flat.parent[flat.starts[n]:flat.starts[n] + flat.sizes[n]], dtype=np.int64)
              for n in range(1, 7)]
    factor = [np.array(flat.factor[flat.starts[n]:flat.starts[n] + flat.sizes[n]], dtype=np.int64)
              for n in range(1, 7)]
    member = np.array(flat.member, dtype=np.int64)
    orderings = np.array(flat.orderings, dtype=np.int64)
    offsets = np.array(flat.first[:-1], dtype=np.int64)
    cards = np.array(flat.cards)
    depth = np.arange(6)[:, None]

    def weights(values: Sequence[int]) -> dict[tuple[int, int, int, int], int]:
        left = sum(values)
        falling = np.maximum(np.array(values, dtype=np.int64)[None, :] - depth, 0).ravel()
        weight = np.empty(total, dtype=np.int64)
        weight[0] = 1
        for n in range(1, 7):
            start = flat.starts[n]
            weight[start:start + flat.sizes[n]] = weight[parent[n - 1]] * falling[factor[n - 1]]
        sums = np.add.reduceat(weight[member] * orderings, offsets)
        fill = np.where(cards == 4, (left - 4) * (left - 5), np.where(cards == 5, left - 5, 1))
        return _as_dict((sums * fill).tolist())

    return weights


def ctypes_path(scratch: Path) -> Weights | None:
    source, library = scratch / "plain.c", scratch / "libplain.so"
    source.write_text(PLAIN_C, encoding="utf-8")
    try:
        subprocess.run(["cc", "-O3", "-shared", "-fPIC", str(source), "-o", str(library)], check=True,
                       capture_output=True, timeout=120)
    except (OSError, subprocess.CalledProcessError):
        return None
    flat = _Flat()
    arrays = (array("I", flat.parent), array("B", flat.factor), array("B", flat.cards), array("q", flat.first),
              array("I", flat.member), array("B", flat.orderings))
    parent, factor, cards, first, member, orderings = arrays
    scratch_weights = array("Q", bytes(8 * len(flat.parent)))
    out = array("Q", bytes(8 * len(flat.cards)))
    function = ctypes.CDLL(str(library)).position_sums

    def pointer(numbers: array[int]) -> ctypes.c_void_p:
        return ctypes.c_void_p(numbers.buffer_info()[0])

    fixed = (ctypes.c_long(len(flat.parent)), pointer(parent), pointer(factor), ctypes.c_long(len(flat.cards)),
             pointer(cards), pointer(first), pointer(member), pointer(orderings))

    def weights(values: Sequence[int]) -> dict[tuple[int, int, int, int], int]:
        counts = array("Q", values)
        assert arrays  # the tables the pointers in ``fixed`` point into stay alive with this function
        function(*fixed, pointer(counts), pointer(scratch_weights), pointer(out))
        return _as_dict(out.tolist())

    return weights


def shoes(count: int = 80) -> list[tuple[int, ...]]:
    """The value counts left at every fifth card of a seeded 8-deck shoe."""
    cards = shuffled_shoe(30, 8)
    return [Shoe.of(8, Counter(cards[:seen])).values for seen in range(0, 5 * count, 5)]


def _as_dict(found: list[int]) -> dict[tuple[int, int, int, int], int]:
    return {position: weight for position, weight in zip(tables.position_order(), found, strict=True) if weight}


def time_path(weights: Weights, measured: list[tuple[int, ...]], repeat: int) -> tuple[float, float]:
    """p50 and p99 of the thread CPU time of one call, in ms."""
    samples = []
    for _ in range(repeat):
        for values in measured:
            start = time.thread_time()
            weights(values)
            samples.append(time.thread_time() - start)
    samples.sort()
    return statistics.median(samples) * MS, samples[int(0.99 * len(samples))] * MS


def import_cost(statement: str) -> float:
    """Median wall ms of a fresh interpreter running ``statement``, less one running ``pass``."""
    def run(code: str) -> float:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        return time.perf_counter() - start

    bare = statistics.median(run("pass") for _ in range(5))
    return max(0.0, statistics.median(run(statement) for _ in range(5)) - bare) * MS


def choices_section() -> str:
    measured = shoes()
    reference = [position_weights(list(values)) for values in measured]
    with tempfile.TemporaryDirectory() as scratch:
        candidates: list[tuple[str, Weights | None, int, str | None]] = [
            ("C extension (`_kernel.c`, built by the package's setup.py), what ships", extension(), 50,
             "import controller.core.bets._kernel"),
            ("numpy, vectorised (int64 gathers, `np.add.reduceat`)", numpy_path(), 10, "import numpy"),
            ("the same C loop through ctypes (as cffi's ABI mode), compiled with `cc -O3`",
             ctypes_path(Path(scratch)), 50, "import ctypes"),
            ("pure-Python packed path (`packed.py`), the fallback", lambda v: packed_position_weights(list(v)), 2,
             None),
            ("the reference (`exact.position_weights`)", lambda v: position_weights(list(v)), 1, None),
        ]
        lines = ["Kernel choices, measured in one run on the same 80 shoes (every fifth card of a seeded 8-deck "
                 "shoe): one call gives every final position's weight; each path was first checked equal to the "
                 "reference on all of them.", "",
                 "| choice | CPU per call p50 / p99 | import, fresh interpreter | exact |", "|---|---|---|---|"]
        for label, weights, repeat, statement in candidates:
            if weights is None:
                lines.append(f"| {label} | not available here | - | - |")
                continue
            exact = all(weights(values) == expected for values, expected in zip(measured, reference, strict=True))
            p50, p99 = time_path(weights, measured, repeat)
            cost = "-" if statement is None else f"{import_cost(statement):.0f} ms"
            lines.append(f"| {label} | {p50:.3f} / {p99:.3f} ms | {cost} | {'yes' if exact else 'NO'} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(choices_section())
