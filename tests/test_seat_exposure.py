"""Issue 22, point 3: a seat sees its own entry's files and no other entry's.

Three holes an adversarial review found in what :mod:`arena.sandbox.exposure` lets a seat see:
a symbolic link among an entry's files (``model -> /``) showed its target; a program named by
its path in a shared ``bots/bin/`` showed the folder above it, with every other entry in it;
and a module spec ``entries.alice.bot:Bot`` showed the whole top-level package ``entries``.
"""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli.main import cli
from arena.players import StrategyError
from arena.sandbox import exposure, load_player


@pytest.fixture
def entries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Two entries handed to an organiser: alice's brings a link to ``/`` and one to bob's
    folder; bob's holds his bot."""
    monkeypatch.chdir(tmp_path)
    alice = tmp_path / "entries" / "alice"
    bob = tmp_path / "entries" / "bob"
    alice.mkdir(parents=True)
    bob.mkdir(parents=True)
    (alice / "run.py").write_text("print('hi')\n")
    (alice / "weights.txt").write_text("1 2 3\n")
    (alice / "model").symlink_to("/")
    (alice / "peek").symlink_to(bob)
    (alice / "near").symlink_to("weights.txt")
    (bob / "bot.py").write_text("SECRET = 'bob'\n")
    return tmp_path


def _own(argv: list[str], spec: str, cwd: Path) -> list[Path]:
    everything = exposure.seat_paths(argv, spec, command=spec.startswith("cmd:"), cwd=cwd, hidden=())
    runtime = {*exposure.system_paths(), *exposure.python_paths()}
    return [p for p in everything if p not in runtime]


@pytest.mark.parametrize(
    "argument", ["entries/alice/model", "entries/alice/peek/bot.py", "entries/alice/near"]
)
def test_a_path_through_a_link_among_an_entrys_files_is_refused(entries: Path, argument: str) -> None:
    with pytest.raises(StrategyError, match="is a symbolic link"):
        exposure.argument_paths([argument], entries, ())


def test_the_entrys_real_files_are_seen_and_a_linked_current_folder_is_fine(
    entries: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    assert exposure.argument_paths(["entries/alice/run.py", "entries/alice/weights.txt"], entries, ()) == [
        entries / "entries/alice/run.py",
        entries / "entries/alice/weights.txt",
    ]
    # The organiser's own folders may be links: only the part an argument names is checked.
    way_in = tmp_path_factory.mktemp("elsewhere") / "contest"
    way_in.symlink_to(entries)
    assert exposure.link_on_the_way("entries/alice/run.py", way_in) is None
    assert exposure.link_on_the_way("/lib/x", Path("/")) is None  # the system's /lib -> usr/lib


def test_a_cmd_bot_whose_argument_is_a_link_to_root_is_refused_at_load_in_one_line(entries: Path) -> None:
    spec = f"cmd:{sys.executable} entries/alice/run.py entries/alice/model"
    with pytest.raises(StrategyError, match=r"entries/alice/model is a symbolic link \(to /\)"):
        load_player(spec, isolate=True, limits=None, move_timeout=5.0)
    result = CliRunner().invoke(
        cli, ["tournament", "-p", spec, "-p", "greedy", "--games", "2", "--out", "out"]
    )
    assert result.exit_code == 2
    assert "symbolic link" in result.output and "Traceback" not in result.output
    assert not (entries / "out").exists()


def test_a_program_named_by_its_path_is_seen_without_its_neighbours(entries: Path) -> None:
    bin_folder = entries / "bots" / "bin"
    bin_folder.mkdir(parents=True)
    for name in ("alice", "bob"):
        (bin_folder / name).write_text("#!/bin/sh\n")
        (bin_folder / name).chmod(0o755)
    program = str(bin_folder / "alice")
    assert _own([program], "cmd:bots/bin/alice", entries) == [Path(program)]


def test_a_program_found_on_path_is_seen_with_its_installation(
    entries: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    installation = tmp_path_factory.mktemp("toolchain")
    (installation / "bin").mkdir()
    (installation / "bin" / "botlang").write_text("#!/bin/sh\n")
    program = str(installation / "bin" / "botlang")
    assert exposure.program_paths(program, [entries], found_on_path=True) == [Path(program), installation]
    assert exposure.program_paths(program, [entries], found_on_path=False) == [Path(program)]
    # An installation that holds the current folder would show it: left out.
    assert exposure.program_paths(program, [installation / "x"], found_on_path=True) == [Path(program)]


@pytest.fixture
def package_of_entries(entries: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``entries`` as a package of packages, importable from the current folder; alice's bot
    fails to load if it can read bob's."""
    (entries / "entries" / "__init__.py").write_text("")
    for name in ("alice", "bob"):
        (entries / "entries" / name / "__init__.py").write_text("")
    (entries / "entries" / "alice" / "bot.py").write_text(
        textwrap.dedent(
            """
            import os

            class Bot:
                name = "alice"

                def __init__(self):
                    bob = os.path.join(os.getcwd(), "entries", "bob", "bot.py")
                    if os.path.exists(bob):
                        raise RuntimeError("alice read bob's bot: " + open(bob).read().strip())

                def decide(self, view):
                    return view.legal_actions()[0]
            """
        )
    )
    monkeypatch.syspath_prepend(str(entries))
    return entries


def test_a_module_spec_shows_its_own_file_and_the_packages_above_it(package_of_entries: Path) -> None:
    root = package_of_entries / "entries"
    assert exposure.module_paths("entries.alice.bot") == [
        root / "__init__.py",
        root / "alice" / "__init__.py",
        root / "alice" / "bot.py",
    ]
    assert exposure.module_paths("entries.alice") == [root / "__init__.py", root / "alice"]
    assert exposure.module_paths("entries.nobody") == []


@pytest.mark.skipif(os.geteuid() != 0, reason="a seat's own root needs root or user namespaces")
def test_an_isolated_module_entry_does_not_see_the_other_entries_of_its_package(
    package_of_entries: Path,
) -> None:
    player = load_player("entries.alice.bot:Bot", isolate=True, limits=None, move_timeout=5.0)
    assert player.label == "alice"


def test_an_argument_linking_into_the_runtime_is_accepted_and_adds_nothing(entries: Path) -> None:
    python = entries / "entries" / "alice" / "python"
    python.symlink_to(sys.executable)
    assert exposure.argument_paths(["entries/alice/python", "entries/alice/run.py"], entries, ()) == [
        entries / "entries/alice/run.py"
    ]


def test_a_module_reached_through_a_linked_package_folder_is_refused(package_of_entries: Path) -> None:
    # A namespace package folder that is a link to / would show the whole machine.
    (package_of_entries / "entries" / "carol").symlink_to("/")
    with pytest.raises(StrategyError, match=r"entries/carol is a symbolic link \(to /\)"):
        exposure.module_paths("entries.carol")
    (package_of_entries / "entries" / "dave").symlink_to(package_of_entries / "entries" / "bob")
    with pytest.raises(StrategyError, match="entries/dave is a symbolic link"):
        exposure.strategy_paths("entries.dave.bot:Bot", package_of_entries)
