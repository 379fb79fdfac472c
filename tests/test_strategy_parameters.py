"""Strategy parameters for every kind of spec, `arena strategies list` with them, the hint for a
module that can't be imported, and the distribution name in every install hint."""

from __future__ import annotations

import json
import re
import sys
import tomllib
from collections.abc import Iterator
from importlib.metadata import version
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli.main import cli
from arena.distribution import DISTRIBUTION, install_hint
from arena.players import StrategyError, available_strategies, load_player_spec
from arena.players.parameters import strategy_parameters

REPO = Path(__file__).resolve().parents[1]

STEADY = '''
from arena.players import Action


class Steady:
    """Keeps the most points and banks at bank_at."""

    def __init__(self, bank_at: int = 350, careful: bool = False, style="calm", *, margin: float = 0.5):
        self.bank_at, self.careful, self.style, self.margin = bank_at, careful, style, margin
        self.name = "steady"

    def decide(self, view):
        keep = view.legal_keeps[0]
        return Action(keep.dice, view.turn_points + keep.points >= self.bank_at and view.may_bank(keep))
'''


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def bots(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "steadybots"
    folder.mkdir()
    (folder / "steady.py").write_text(STEADY, encoding="utf-8")
    yield folder
    for name in [m for m in sys.modules if m == "steadybots" or m.startswith("steadybots.")]:
        del sys.modules[name]  # imported as a package from this test's folder: gone with it


def test_a_files_class_takes_parameters_with_their_types(bots: Path) -> None:
    spec = load_player_spec(f"{bots}/steady.py:bank_at=500,careful=yes,style=bold,margin=0.25")
    player = spec.create()
    assert (player.bank_at, player.careful, player.style, player.margin) == (500, True, "bold", 0.25)
    assert spec.label == "steady:bank_at=500,careful=yes,style=bold,margin=0.25"
    with pytest.raises(StrategyError, match=r"bank_at must be int, got 'lots'"):
        load_player_spec(f"{bots}/steady.py:bank_at=lots")
    with pytest.raises(
        StrategyError, match=r"unknown parameter 'bank' \(parameters: bank_at, careful, style"
    ):
        load_player_spec(f"{bots}/steady.py:Steady:bank=5")


def test_parameters_are_read_from_annotations_and_defaults() -> None:
    class Needs:
        def __init__(self, shape: str, level=3, maybe: int | None = None, *rest: int, **more: int) -> None:
            pass

        def decide(self, view: object) -> None:
            pass

    found = {p.name: p for p in strategy_parameters(Needs)}
    assert list(found) == ["shape", "level", "maybe"]  # *args and **kwargs are not spec parameters
    assert found["shape"].shown() == "shape: str (required)"
    assert found["level"].shown() == "level: int = 3" and found["maybe"].type_name == "int | None"
    assert found["shape"].as_json() == {"name": "shape", "type": "str", "default": None, "required": True}


def test_strategies_list_shows_every_strategys_parameters(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    code, out, _ = run("strategies", "list")
    assert code == 0
    lines = out.splitlines()
    below = {lines[i].split()[0]: lines[i + 1].strip() for i in range(len(lines) - 1) if lines[i][:1].strip()}
    assert below["threshold"] == "parameters: bank_at: int = 300, min_dice: int = 3"
    assert below["strategies/catch_up.py:CatchUp"] == "parameters: base: int = 300, share_of_gap: float = 0.5"
    assert not below["greedy"].startswith("parameters")  # a strategy without parameters has no such line
    assert "-p mybots/steady.py:bank_at=500" in out
    data = {a["spec"]: a for a in json.loads(run("strategies", "list", "--json")[1])}
    assert data["threshold"]["parameters"] == [
        {"name": "bank_at", "type": "int", "default": 300, "required": False},
        {"name": "min_dice", "type": "int", "default": 3, "required": False},
    ]
    assert data["optimal"]["parameters"] == []


def test_strategies_list_scans_a_folder_given_with_path(bots: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    code, out, _ = run("strategies", "list", "--path", str(bots), "--path", str(bots))
    assert code == 0
    assert out.count(f"{bots.as_posix()}/steady.py:Steady") == 1  # a folder named twice is listed once
    assert "strategies/template.py:Template" in out  # ./strategies/ is still scanned
    assert (
        "parameters: bank_at: int = 350, careful: bool = False, style: str = 'calm', margin: float = 0.5"
        in out
    )
    listed = {a.spec: a for a in available_strategies(folder=None, extra=[bots])}
    assert [p.name for p in listed[f"{bots.as_posix()}/steady.py:Steady"].parameters] == [
        "bank_at",
        "careful",
        "style",
        "margin",
    ]


@pytest.mark.parametrize(("make", "message"), [(False, "no such folder"), (True, "not a folder")])
def test_strategies_list_refuses_a_path_that_is_no_folder(tmp_path: Path, make: bool, message: str) -> None:
    path = tmp_path / "bots.py"
    if make:
        path.write_text("", encoding="utf-8")
    code, out, err = run("strategies", "list", "--path", str(path))
    assert code == 2 and out == "" and err == f"arena: error: --path {path}: {message}\n"


def test_a_module_that_is_not_importable_says_how_to_fix_it(
    bots: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(bots.parent)  # steadybots/steady.py is here, but not on the Python path
    with pytest.raises(StrategyError) as here:
        load_player_spec("steadybots.steady:Steady")
    assert str(here.value) == (
        "steadybots.steady:Steady: no module named 'steadybots' on the Python path; it is the file "
        "steadybots/steady.py here: name the file (-p steadybots/steady.py:Steady) or put this folder on "
        "the path (PYTHONPATH=. arena ...)"
    )
    code, _, err = run("play", "-p", "nowhere_pkg.bots:Bot")
    assert code == 2
    assert err.startswith(
        "arena: error: nowhere_pkg.bots:Bot: no module named 'nowhere_pkg' on the Python path;"
    )
    assert "PYTHONPATH=/that/folder" in err and "pip install -e /its/folder" in err
    with pytest.raises(StrategyError, match=r"^arena\.nope:Bot: no module named 'arena\.nope'$"):
        load_player_spec("arena.nope:Bot")  # arena is importable: only its module is missing
    monkeypatch.syspath_prepend(str(bots.parent))  # the fix the hint gives
    assert load_player_spec("steadybots.steady:Steady:bank_at=400").create().bank_at == 400


def test_the_distribution_name_is_in_pyproject_and_in_every_install_hint() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["name"] == DISTRIBUTION != "arena"
    assert project["scripts"] == {"arena": "arena.cli.main:cli"}  # the command keeps its name
    assert install_hint("plot") == (
        "pip install 'zehntausend-arena[plot]' (in a checkout of arena: pip install -e '.[plot]')"
    )
    from arena.tournaments.dask_backend import INSTALL_HINT

    assert install_hint("dask") in INSTALL_HINT
    # No hint anywhere in the code names the unrelated distribution `arena` on the package index.
    wrong = re.compile(r"pip install[^\n]*(?<![\w.-])arena\[")
    offenders = [
        str(path.relative_to(REPO))
        for folder in ("arena", "strategies", "benchmarks")
        for path in (REPO / folder).rglob("*.py")
        # distribution.py quotes the wrong command to say why the name differs
        if path.name != "distribution.py" and wrong.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []
    code, out, _ = run("--version")
    assert code == 0 and out == f"arena ({DISTRIBUTION}) {version(DISTRIBUTION)}\n"
