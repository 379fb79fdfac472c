"""Seat logs that travel back from Dask workers: taken from a host's private folder chunk by
chunk, appended by the main process in game order under the per-player cap of a local run."""

from __future__ import annotations

from pathlib import Path

from arena.sandbox.seats import log_name
from arena.tournaments.seat_logs import LEFT_OUT, append_logs, take_logs

LABELS = ("talker", "quiet one", "spammer")


def test_a_chunks_logs_are_taken_and_removed_so_the_next_chunk_starts_afresh(tmp_path: Path) -> None:
    (tmp_path / log_name("talker")).write_bytes(b"hello\n")
    (tmp_path / log_name("spammer")).write_bytes(b"x" * 50)
    assert take_logs(tmp_path, LABELS, cap=1000) == ((0, b"hello\n"), (2, b"x" * 50))
    assert list(tmp_path.iterdir()) == []
    assert take_logs(tmp_path, LABELS, cap=1000) == ()
    assert take_logs(None, LABELS, cap=1000) == ()


def test_a_chunk_log_is_read_no_further_than_the_cap_and_its_note(tmp_path: Path) -> None:
    (tmp_path / log_name("spammer")).write_bytes(b"x" * 10_000)
    ((index, data),) = take_logs(tmp_path, LABELS, cap=100)
    assert index == 2 and len(data) == 100 + len(LEFT_OUT)


def test_a_players_log_is_capped_over_all_its_chunks_and_says_so_once(tmp_path: Path) -> None:
    logs = tmp_path / "seat-logs"
    for chunk in range(5):
        append_logs(logs, LABELS, ((2, bytes([65 + chunk]) * 40), (0, b"chunk %d\n" % chunk)), cap=100)
    assert (logs / "spammer.log").read_bytes() == b"A" * 40 + b"B" * 40 + b"C" * 20 + LEFT_OUT
    assert (logs / "talker.log").read_text().splitlines() == [f"chunk {k}" for k in range(5)]
    assert not (logs / log_name("quiet one")).exists()


def test_a_log_is_named_by_the_spec_never_by_the_worker(tmp_path: Path) -> None:
    logs = tmp_path / "seat-logs"
    append_logs(logs, LABELS, ((3, b"no such player"), (-1, b"nor this"), (1, b"ok")), cap=100)
    assert sorted(p.name for p in logs.iterdir()) == [log_name("quiet one")]
