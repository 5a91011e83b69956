"""The feed's and the archive's bookkeeping of delivery, without a broker: what is confirmed, what is asked for."""

from __future__ import annotations

from controller.floor.archive_book import ASK_AGAIN, GAP_GRACE, TableBook, archived_message
from controller.floor.archive_store import Head, Progress
from controller.floor.delivery import REWIND_AGAIN, Archived, Conflict, Delivery, conflict, parse_archived

MINE = {seq: f"{seq:064x}" for seq in range(1, 200)}
PLACE = ("casino", "t1")


def told(delivery: Delivery, seq: int, wants: int | None, cursor: int, now: float, hash_: str | None = None) -> None:
    delivery.archived(Archived(seq, hash_ if hash_ is not None else MINE.get(seq), wants), MINE.get(seq), cursor, now)


def test_the_archives_word_is_the_confirmed_head_and_the_mark_never_goes_back() -> None:
    delivery = Delivery(0, 0, now=0.0)
    told(delivery, 40, None, cursor=50, now=1.0)
    assert (delivery.confirmed, delivery.mark, delivery.resending) == (40, 40, False)
    told(delivery, 0, 1, cursor=50, now=2.0)  # an archive on an empty database: it wants everything again
    assert (delivery.confirmed, delivery.mark) == (0, 40)
    assert (delivery.resend_next, delivery.resend_end) == (1, 50)


def test_another_journals_record_is_never_confirmed() -> None:
    delivery = Delivery(3, 3, now=0.0)
    told(delivery, 9, None, cursor=20, now=1.0, hash_="f" * 64)
    assert delivery.foreign == 9 and delivery.confirmed == 3 and delivery.mark == 3


def test_a_head_past_a_journal_the_archive_confirmed_records_of_says_it_is_an_older_copy() -> None:
    assert conflict(162, None, resumed_end=68, confirmed=53) is Conflict.OLDER_COPY
    assert conflict(162, "e" * 64, resumed_end=68, confirmed=53) is Conflict.OLDER_COPY, "dealt past it since"
    assert conflict(162, None, resumed_end=68, confirmed=0) is Conflict.AHEAD, "nothing of it ever confirmed"


def test_a_head_this_journal_holds_with_another_hash_is_a_fork() -> None:
    assert conflict(48, "e" * 64, resumed_end=60, confirmed=0) is Conflict.FORKED
    assert conflict(48, "e" * 64, resumed_end=60, confirmed=40) is Conflict.FORKED
    assert conflict(70, "e" * 64, resumed_end=60, confirmed=0) is Conflict.FORKED


def test_a_request_is_answered_once_while_the_archive_takes_the_resend() -> None:
    delivery = Delivery(0, 0, now=0.0)
    told(delivery, 10, 11, cursor=100, now=1.0)
    assert (delivery.resend_next, delivery.resend_end) == (11, 100)
    for seq in range(11, 60):
        delivery.resent(seq)
    told(delivery, 30, 31, cursor=120, now=2.0)  # the archive is still taking what was sent again
    assert delivery.resend_next == 60, "the resend goes on, not restarted"
    told(delivery, 30, 31, cursor=120, now=2.0 + REWIND_AGAIN + 1)  # the head stopped: send again from 31
    assert (delivery.resend_next, delivery.resend_end) == (31, 120)


def test_a_request_for_what_was_not_sent_yet_waits_for_it() -> None:
    delivery = Delivery(0, 0, now=0.0)
    told(delivery, 0, 1, cursor=0, now=1.0)
    assert not delivery.resending


def test_a_restart_sends_again_from_the_confirmed_mark_to_the_published_one() -> None:
    delivery = Delivery(12, 30, now=0.0)
    assert (delivery.resend_next, delivery.resend_end) == (13, 30)
    for seq in range(13, 31):
        delivery.resent(seq)
    assert not delivery.resending


def test_bad_archived_payloads_are_ignored() -> None:
    assert parse_archived(archived_message(Head(5, "a" * 64), 6)) == Archived(5, "a" * 64, 6)
    assert parse_archived(archived_message(Head(), 1)) == Archived(0, None, 1)
    for payload in (b"", b"null", b"[]", b'{"seq": -1}', b'{"seq": 3}', b'{"seq": true, "hash": "x"}',
                    b'{"seq": 1, "hash": "x", "wants": 0}', b"\xff", b"[" * 100000):
        assert parse_archived(payload) is None, payload


def test_an_archived_head_or_request_beyond_a_record_number_is_not_one() -> None:
    """A forged ``archived`` with a seq past 2^63 - 1 (the largest a journal or the archive holds) stopped the
    table's feed for the rest of the run: its journal could not even be asked for such a record (SQLite's
    OverflowError)."""
    top = 2 ** 63 - 1
    assert parse_archived(archived_message(Head(top, "a" * 64), top)) == Archived(top, "a" * 64, top)
    for payload in (b'{"seq": 9223372036854775808, "hash": "x"}', b'{"seq": 18446744073709551616, "hash": "x"}',
                    b'{"seq": 3, "hash": "x", "wants": 9223372036854775808}'):
        assert parse_archived(payload) is None, payload


def test_the_book_tells_each_new_head_and_asks_again_while_a_gap_lasts() -> None:
    book = TableBook()
    first = book.after_batch({PLACE: Progress(Head(5, "a"), None)}, now=0.0)
    assert [(a.head.seq, a.wants) for a in first] == [(5, None)]
    assert book.after_batch({PLACE: Progress(Head(5, "a"), None)}, now=1.0) == [], "nothing new: nothing said"
    gap = book.after_batch({PLACE: Progress(Head(5, "a"), 6, pending=2)}, now=2.0)
    assert [(a.head.seq, a.wants) for a in gap] == [(5, 6)]
    assert book.after_batch({PLACE: Progress(Head(5, "a"), 6, pending=2)}, now=3.0) == []
    again = book.after_batch({PLACE: Progress(Head(5, "a"), 6, pending=2)}, now=2.0 + ASK_AGAIN)
    assert [(a.head.seq, a.wants) for a in again] == [(5, 6)]


def test_a_table_whose_published_head_stays_ahead_is_asked_after_the_grace() -> None:
    book = TableBook()
    book.state(PLACE, Head(80, "h"), now=0.0)
    assert book.unknown_heads() == [PLACE]
    book.heads_read({PLACE: Head(50, "g")})
    assert book.requests_due(now=GAP_GRACE - 0.5) == []
    due = book.requests_due(now=GAP_GRACE + 0.5)
    assert [(a.place, a.head.seq, a.wants) for a in due] == [(PLACE, 50, 51)]
    assert book.requests_due(now=GAP_GRACE + 1.0) == [], "asked: not again before ASK_AGAIN"
    book.after_batch({PLACE: Progress(Head(80, "h"), None)}, now=GAP_GRACE + 2.0)
    assert book.requests_due(now=GAP_GRACE + ASK_AGAIN + 10) == [], "caught up: nothing to ask"


def test_a_table_the_archive_is_catching_up_on_is_not_asked_while_its_head_moves() -> None:
    """After an outage the archive stores a table's backlog batch after batch: it is behind the table's head, but
    not staying behind; asking then would have the table send its whole backlog again."""
    book = TableBook()
    book.after_batch({PLACE: Progress(Head(50, "g"), None)}, now=0.0)
    book.state(PLACE, Head(400, "h"), now=0.0)
    for step in range(1, 11):  # a batch a second, each moving the head on
        book.after_batch({PLACE: Progress(Head(50 + 30 * step, "g"), None)}, now=float(step))
        assert book.requests_due(now=step + 0.5) == [], f"asked while catching up, at {step + 0.5} s"
    due = book.requests_due(now=10.0 + GAP_GRACE + 0.5)  # the head stopped moving, still behind
    assert [(a.head.seq, a.wants) for a in due] == [(350, 351)]
