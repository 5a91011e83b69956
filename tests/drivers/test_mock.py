"""The mock shoe: a first-class driver, held to the same contract as the hardware ones."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.core.exceptions import DriverURLError, ScriptError
from controller.core.inputs import Input, InputKind, card_read
from controller.core.shoe import shoe_with_cut_card
from drivers import driver_class, open_source
from drivers.base import CardSource
from drivers.mock import MockShoe, read_script
from tests.drivers.contract import CardSourceContract, MakeSource
from tests.inprocess import croupier_in_process


class TestMockShoeContract(CardSourceContract):
    """Through a script file, as a user would write one."""

    @pytest.fixture
    def make_source(self, tmp_path: Path) -> Iterator[MakeSource]:
        opened: list[CardSource] = []

        def make(tokens: list[str]) -> CardSource:
            script = tmp_path / f"shoe{len(opened)}.txt"
            script.write_text("# contract shoe\n" + " ".join(tokens) + "\n", encoding="utf-8")
            source = open_source(f"mock://?script={script}")
            opened.append(source)
            return source

        yield make
        for source in opened:
            source.close()


def test_registry_selects_the_mock_by_url() -> None:
    assert driver_class("mock://?seed=1") is MockShoe


def test_same_seed_same_shoe_and_the_next_shoe_on_new_shoe() -> None:
    first = MockShoe("mock://?seed=42&decks=8")
    second = MockShoe("mock://?seed=42&decks=8")
    tokens = [item.token() for item in iter(lambda: first.recv(0), None)]
    assert tokens == [item.token() for item in iter(lambda: second.recv(0), None)]
    assert tokens == shoe_with_cut_card(42, 8, 0)
    assert len([t for t in tokens if t != "@cut"]) == 416
    assert tokens.index("@cut") == 416 - 16
    second.indicate("new_shoe")
    next_shoe = [item.token() for item in iter(lambda: second.recv(0), None)]
    assert next_shoe == shoe_with_cut_card(42, 8, 1)
    assert next_shoe != tokens


def test_position_and_seek_continue_where_a_run_stopped() -> None:
    source = MockShoe("mock://?seed=5&decks=1&cut=12")
    for _ in range(10):
        source.recv(0)
    source.indicate("new_shoe")
    for _ in range(3):
        source.recv(0)
    shoe, offset = source.position
    expected = source.recv(0)
    resumed = MockShoe("mock://?seed=5&decks=1&cut=12")
    resumed.seek(shoe, offset)
    assert resumed.recv(0) == expected


@pytest.mark.parametrize("url, fragment", [
    ("mock://?seed=x", "seed='x' is not a whole number"),
    ("mock://?decks=9", "decks=9 is out of range; expected 1-8"),
    ("mock://?cut=3", "cut=3 is out of range; expected 12-100"),
    ("mock://?speed=3", "unknown option 'speed'"),
    ("mock://?seed=1&seed=2", "given 2 times"),
])
def test_bad_urls_name_the_option_and_the_expected_form(url: str, fragment: str) -> None:
    with pytest.raises(DriverURLError, match=fragment):
        MockShoe(url)


@pytest.mark.parametrize("option", ["seed=3", "decks=6", "cut=20", "shoe=2", "seed=3&cut=20"])
def test_a_scripts_url_refuses_the_options_a_script_leaves_unused(tmp_path: Path, option: str) -> None:
    script = tmp_path / "shoe.txt"
    script.write_text("3S KD 5H 9C\n", encoding="utf-8")
    url = f"mock://?script={script}&{option}"
    for refuse in (MockShoe.check_url, MockShoe):
        with pytest.raises(DriverURLError, match="the script gives every card; leave out") as refused:
            refuse(url)
        assert all(name.split("=")[0] in str(refused.value) for name in option.split("&"))
    done = croupier_in_process("run", "--driver", url)
    assert done.returncode == 2 and "leave out" in done.stderr and "Traceback" not in done.stderr, done


def test_script_errors_name_the_file_line_and_token(tmp_path: Path) -> None:
    script = tmp_path / "bad.txt"
    script.write_text("AS KD\n# fine\n5H @sneeze\n", encoding="utf-8")
    with pytest.raises(ScriptError, match=r"bad.txt line 3 token 2 '@sneeze' is not a token"):
        MockShoe(f"mock://?script={script}")
    with pytest.raises(ScriptError, match="no such script file"):
        MockShoe(f"mock://?script={tmp_path / 'absent.txt'}")


@pytest.mark.parametrize("kind", ["directory", "not utf-8", "link loop"])
def test_a_script_that_cannot_be_read_says_what_is_wrong_and_what_to_give(tmp_path: Path, kind: str) -> None:
    """The refusal showed Python's own wording ("[Errno 21] Is a directory: '...'", "'utf-8' codec can't decode byte
    0xff in position 7: invalid start byte") and said nothing of what to give instead."""
    script = tmp_path / "drill.txt"
    if kind == "directory":
        script.mkdir()
    elif kind == "not utf-8":
        script.write_bytes(b"AS KD 5H \xff\xfe 9C\n")
    else:
        script.symlink_to(tmp_path / "other.txt")
        (tmp_path / "other.txt").symlink_to(script)
    with pytest.raises(ScriptError) as refused:
        MockShoe(f"mock://?script={script}")
    said = str(refused.value)
    assert said.startswith(f"{script}: ") and "Errno" not in said and "codec" not in said, said
    assert "give the path of a shoe script" in said or "save it as UTF-8" in said, said
    if kind == "not utf-8":
        assert "byte 9 is 0xff" in said, said
    for command in (["simulate", "--script", str(script)], ["train", "--script", str(script)],
                    ["shoe-emulator", "--script", str(script)]):
        done = croupier_in_process(*command)
        assert done.returncode == 2 and "Traceback" not in done.stderr, done
        assert done.stderr.splitlines() == [f"croupier {command[0]}: {said}"], done.stderr


def test_a_script_far_larger_than_any_shoe_is_refused_before_it_is_read_whole(tmp_path: Path) -> None:
    """A path that is no script (a disk image, a video, ``/dev/zero``) was read whole into memory: ``--script
    /dev/zero`` grew until the kernel killed the command (SIGKILL, no word). Anything longer than 16 MiB (some
    twelve thousand shoes) is refused after reading that much, in one line."""
    script = tmp_path / "image.bin"
    with script.open("wb") as sparse:
        sparse.truncate(16 * 1024 * 1024 + 1)
    said = (f"{script}: longer than 16 MiB, far more than a shoe script holds; give the path of a shoe script "
            "file")
    with pytest.raises(ScriptError) as refused:
        read_script(script)
    assert str(refused.value) == said
    done = croupier_in_process("simulate", "--script", str(script))
    assert done.returncode == 2 and done.stderr.splitlines() == [f"croupier simulate: {said}"], done.stderr


def test_script_is_delivered_exactly_then_exhausted(tmp_path: Path) -> None:
    script = tmp_path / "s.txt"
    script.write_text("5h ?? @cut\n@manual 7C  # hand entry\n", encoding="utf-8")
    with MockShoe(f"mock://?script={script}") as source:
        got = [source.recv(0) for _ in range(4)]
        assert got == [Input(InputKind.CARD, "5h"), Input(InputKind.UNREADABLE), Input(InputKind.CUT),
                       Input(InputKind.MANUAL, "7C")]
        assert source.exhausted
        assert source.recv(0.01) is None
    assert source.closed


def test_a_script_saved_with_a_byte_order_mark_deals_its_first_card(tmp_path: Path) -> None:
    """A BOM before the first token made it '\\ufeff5H', an unknown card: the drill halted on its first card."""
    script = tmp_path / "drill.txt"
    script.write_bytes(b"\xef\xbb\xbf5H 2C\n")
    assert read_script(script) == [card_read("5H"), card_read("2C")]
