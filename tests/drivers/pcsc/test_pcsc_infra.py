"""The PC/SC test fixtures say why pcscd is not usable, and say it once."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.drivers.pcsc.conftest import Pcscd

Failed = pytest.fail.Exception


def test_a_failure_shows_the_log_that_ci_test_keeps_next_to_its_pid_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pidfile = tmp_path / "croupier-pcscd.abc"
    pidfile.write_text("12345\n")
    (tmp_path / "croupier-pcscd.abc.log").write_text("pcscd: vpcd driver failed to load\n")
    monkeypatch.setenv("TESTS_PCSCD_PIDFILE", str(pidfile))
    daemon = Pcscd(scard=None, log_path=tmp_path / "session" / "pcscd.log")
    with pytest.raises(Failed) as caught:
        daemon._fail("pcscd showed no vpcd readers")
    assert "vpcd driver failed to load" in str(caught.value)
    assert str(pidfile) + ".log" in str(caught.value)


def test_a_failure_is_not_waited_for_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TESTS_PCSCD_PIDFILE", raising=False)
    daemon = Pcscd(scard=None, log_path=tmp_path / "pcscd.log")
    with pytest.raises(Failed, match="no pcscd log here"):
        daemon._fail("pcscd exited with status 1")
    for step in (daemon.wait_ready, daemon.ensure_running):
        with pytest.raises(Failed, match="pcscd exited with status 1"):
            step()
