"""Loading strategies by built-in name, file, module and entry point, and every bad reference."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from arena.engine import CLASSIC
from arena.players import StrategyError, available_strategies, load_player_spec, play_match

REPO = Path(__file__).resolve().parents[1]

BOT = """
from arena.players import Action


class SafeBot:
    \"\"\"Keeps the most points and banks whenever it may.\"\"\"

    name = "safe-bot"

    def __init__(self, margin: int = 0, careful: bool = False) -> None:
        self.margin = margin
        self.careful = careful

    def decide(self, view):
        keep = view.legal_keeps[0]
        return Action(keep.dice, view.bank_allowed(keep))
"""


def write(path: Path, text: str) -> Path:
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_builtin_with_typed_parameters() -> None:
    spec = load_player_spec("threshold:bank_at=450,min_dice=2")
    assert spec.params == {"bank_at": 450, "min_dice": 2} and spec.source == "built-in"
    assert spec.label == "threshold:bank_at=450,min_dice=2"
    assert spec.create().bank_at == 450


def test_file_with_class_and_with_a_single_class(tmp_path: Path) -> None:
    path = write(tmp_path / "safe.py", BOT)
    for text in (f"{path}:SafeBot", str(path)):
        spec = load_player_spec(text)
        assert spec.cls.__name__ == "SafeBot" and spec.source == "file"
        assert play_match(CLASSIC, [spec.create(), spec.create()], 1).reason == "target"
    spec = load_player_spec(f"{path}:SafeBot:margin=100,careful=true")
    assert spec.params == {"margin": 100, "careful": True}
    assert spec.label == "safe-bot:margin=100,careful=true"


def test_module_class(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "mybots"
    package.mkdir()
    write(package / "__init__.py", "")
    write(package / "safe.py", BOT)
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = load_player_spec("mybots.safe:SafeBot")
    assert spec.source == "module" and spec.create().name == "safe-bot"


def test_entry_point_of_an_installed_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A tiny distribution as an installer leaves it: the module plus its .dist-info folder.
    write(tmp_path / "arena_plugin_demo.py", BOT)
    info = tmp_path / "arena_plugin_demo-1.0.dist-info"
    info.mkdir()
    write(info / "METADATA", "Metadata-Version: 2.1\nName: arena-plugin-demo\nVersion: 1.0\n")
    write(info / "entry_points.txt", "[arena.strategies]\nsafe-plugin = arena_plugin_demo:SafeBot\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = load_player_spec("safe-plugin:margin=50")
    assert spec.cls.__name__ == "SafeBot" and spec.params == {"margin": 50}
    assert spec.source == "plugin arena-plugin-demo"
    listed = {a.spec: a for a in available_strategies(folder=None)}
    assert listed["safe-plugin"].description == "Keeps the most points and banks whenever it may."
    assert play_match(CLASSIC, [spec.create(), load_player_spec("greedy").create()], 2).reason == "target"


def test_strategies_list_shows_builtins_and_the_example_folder() -> None:
    listed = {a.spec: a for a in available_strategies(REPO / "strategies")}
    for name in ("random", "greedy", "threshold", "tactician", "optimal"):
        assert listed[name].source == "built-in" and listed[name].description.endswith(".")
    files = [s for s, a in listed.items() if a.source == "file"]
    assert len(files) >= 3 and any(s.endswith("template.py:Template") for s in files)


@pytest.mark.parametrize("example", sorted((REPO / "strategies").glob("*.py")), ids=lambda p: p.name)
def test_every_example_strategy_plays_a_legal_game(example: Path) -> None:
    spec = load_player_spec(str(example))
    result = play_match(CLASSIC, [spec.create(), load_player_spec("optimal").create()], 11)
    assert result.reason == "target"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("nope", "unknown strategy 'nope': use a built-in"),
        ("greddy", "unknown strategy 'greddy' (did you mean 'greedy'?): use a built-in"),
        ("tactitian:bank_at=300", "unknown strategy 'tactitian' (did you mean 'tactician'?)"),
        ("", "empty player spec"),
        ("threshold:bank=400", "threshold: unknown parameter 'bank' (parameters: bank_at, min_dice)"),
        ("threshold:bank_at=lots", "threshold: bank_at must be int, got 'lots'"),
        ("threshold:min_dice=9", "threshold: min_dice must be 1 to 6, got 9"),
        ("threshold:bank_at", "threshold: parameters are NAME=VALUE, got 'bank_at'"),
        ("greedy:x=1", "greedy: unknown parameter 'x' (parameters: none)"),
        ("missing/bot.py", "missing/bot.py: no such file"),
        ("no_such_module_xyz:Bot", "no_such_module_xyz:Bot: no module named 'no_such_module_xyz'"),
        ("arena.players.protocol:Nope", "no class 'Nope' in arena.players.protocol"),
        ("arena.players.protocol:GameInfo", "GameInfo is not a Player class (it needs a decide method)"),
    ],
)
def test_bad_references_are_one_clear_line(text: str, message: str) -> None:
    with pytest.raises(StrategyError) as info:
        load_player_spec(text)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("source", "ref", "message"),
    [
        ("class A:\n    pass\n", "", "no Player class in the file"),
        (
            BOT + "\nclass Other(SafeBot):\n    pass\n",
            "",
            "several Player classes (Other, SafeBot); name one as",
        ),
        (BOT, ":Missing", "no class 'Missing' in the file; its Player classes: SafeBot"),
        (BOT, ":SafeBt", "no class 'SafeBt' in the file (did you mean 'SafeBot'?); its Player classes"),
        ("class A:\n    pass\n", ":Gaper", "no class 'Gaper' in the file; it has no Player class"),
        ("def broken(:\n", "", "importing it failed: SyntaxError"),
        ("raise RuntimeError('boom')\n", "", "importing it failed: RuntimeError: boom"),
        (
            "class NoName:\n    def decide(self, view):\n        return None\n",
            "",
            "is not a Player: it needs name",
        ),
    ],
)
def test_bad_files(tmp_path: Path, source: str, ref: str, message: str) -> None:
    path = write(tmp_path / f"bot_{abs(hash(source))}.py", source)
    with pytest.raises(StrategyError) as info:
        load_player_spec(f"{path}{ref}")
    assert message in str(info.value)
