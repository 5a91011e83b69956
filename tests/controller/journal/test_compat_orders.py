"""A checkpoint written before each earlier shoe's order was kept as one string keeps lists of codes, in the
table's state and in the whole state an undo point keeps: the replay check compares the replay with it in
that form, everywhere."""

from __future__ import annotations

from config.loader import load_config
from controller.core.snapshot import snapshot
from controller.core.table import Table
from controller.journal.compat import as_kept
from controller.journal.store import canonical
from tests.controller.journal.forger import with_listed_orders
from tests.tokens import dealt


def test_an_older_checkpoint_with_an_undo_point_is_compared_in_its_own_form() -> None:
    settings = load_config(environ={}, overrides={"table": {"decks": 1}, "shoe": {"burn": "none"}})
    table = Table(settings)
    dealt("@shoe 3S KD 5H 9C @close @shoe AS ?? @manual 4D", table, confirm=False)
    body = {"state": snapshot(table)}
    kept = with_listed_orders(body)
    point = kept["state"]["undo"]["point"]
    assert point is not None, "the hand-entered card can be taken back"
    assert kept["state"]["earlier_shoes"] and point["state"]["earlier_shoes"]
    assert isinstance(point["state"]["earlier_shoes"][0][1], list)
    assert canonical(as_kept(kept, body)) == canonical(kept)
    assert canonical(as_kept(body, body)) == canonical(body)  # today's checkpoints stay as they are
