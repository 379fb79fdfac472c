"""The CLI starts without its heavy dependencies: pandas, numpy, msgspec and the optional extras
are imported by the commands that use them, so ``arena --help`` and ``arena score`` start fast.
A test of the import graph, not of the clock: it fails when someone adds an eager import."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

#: Top-level packages the light commands must not load (each costs 5 ms to over a second).
HEAVY = (
    "pandas",
    "numpy",
    "openskill",
    "dask",
    "distributed",
    "matplotlib",
    "msgspec",
    "multiprocess",
    "dill",
)

# Runs the commands in one fresh interpreter, then prints every heavy module it loaded.
CHECK = """
import sys
from arena.cli.main import cli
for args in {commands!r}:
    try:
        cli(args, prog_name="arena", standalone_mode=False)
    except SystemExit:
        pass
print(" ".join(sorted({{m for m in sys.modules if m.split(".")[0] in {heavy!r}}})))
"""

LIGHT_COMMANDS = [
    ["--help"],
    ["score", "1", "1", "1", "5"],
    ["rules", "list"],
    ["odds", "--help"],
    ["tournament", "--help"],
    ["duel", "--help"],
    ["report", "--help"],
    ["compare", "--help"],
    ["play", "--help"],
    ["solve", "--help"],
    ["tune", "--help"],
    ["strategies", "--help"],
]


def heavy_modules_after(commands: list[list[str]]) -> tuple[list[str], str]:
    """The heavy modules loaded after running ``commands`` in a fresh interpreter, and the output."""
    proc = subprocess.run(
        [sys.executable, "-c", CHECK.format(commands=commands, heavy=HEAVY)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    *out, last = proc.stdout.split("\n")[:-1]
    return last.split(), "\n".join(out)


def test_the_cli_and_its_light_commands_load_no_heavy_module() -> None:
    loaded, out = heavy_modules_after(LIGHT_COMMANDS)
    assert out.count("Usage: arena") == len(LIGHT_COMMANDS) - 2  # every --help ran
    assert "1050  (three 1s 1000 + a 5 50)" in out and "standard" in out  # and score, rules list
    assert loaded == [], f"imported eagerly: {', '.join(loaded)}"


def test_a_command_that_reads_a_run_loads_pandas(tmp_path: Path) -> None:
    """The check sees a heavy import: ``arena report`` on a run with no finished game yet reads
    its games.csv with pandas before it says so."""
    (tmp_path / "games.csv").write_text(
        "ruleset,game,deal,seed,seat,player,score,rank,win,turns,farkles,status,reason\n"
    )
    loaded, _ = heavy_modules_after([["report", str(tmp_path)]])
    assert "pandas" in loaded and "numpy" in loaded


def test_a_seat_process_loads_none_of_the_parents_side() -> None:
    """arena's host for Python strategies (the program of every isolated seat) imports the
    protocol and the strategy, not the parent's side of the sandbox (seat pools, walls, root
    building) nor the plugin machinery: each seat starts that much sooner, once per player,
    seat order and chunk."""
    code = (
        "import sys\n"
        "from arena.sandbox.host import main\n"
        "from arena.players.loading import load_player_spec\n"
        "load_player_spec('greedy')\n"
        "watched = ('arena.sandbox.', 'importlib.metadata')\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith(watched))))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    loaded = set(proc.stdout.split())
    assert {"arena.sandbox.host", "arena.sandbox.wire"} <= loaded
    assert not loaded & {
        "arena.sandbox.seats",
        "arena.sandbox.process",
        "arena.sandbox.exposure",
        "arena.sandbox.seat_root",
        "arena.sandbox.cgroups",
        "arena.sandbox.syscalls",
        "importlib.metadata",
    }, sorted(loaded)
