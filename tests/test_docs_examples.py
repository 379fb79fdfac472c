"""Every console example of the README and the docs site prints what its page shows.

A ```console block holds commands (lines starting with ``$ ``), each followed by the output it
prints (the lines until the next ``$ ``; blank lines at its end are not part of it).  The
commands of a block run in order, with bash, in a fresh temporary folder holding copies of the
repository's strategies/ and rulesets/ and of the files in docs/examples/ (so a later command
can read what an earlier one wrote), with the virtual environment's ``arena`` first on the
PATH; stdout and stderr are read together, as a terminal shows them.  The output must be the
page's, line for line (trailing spaces aside), but for two explicit wildcards, for what can't
be the same from run to run (timings, dates, absolute paths):

- a line ``...`` matches any lines, none included;
- ``[...]`` inside a line matches any text within that line.

Blocks that are illustrative only (a command that runs for minutes, or needs a Dask cluster or
a terminal) use another fence language (```text, ```sh) and are not run.

``python tests/test_docs_examples.py PAGE...`` prints what each console block of the pages
prints now, to paste into a page.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
COPIED = ("strategies", "rulesets")  # what the examples' folder holds, with the files of EXAMPLES
EXAMPLES = ROOT / "docs" / "examples"  # files the pages use (my_bot.py), copied to the folder itself
COMMAND_TIMEOUT = 120
FENCE = re.compile(r"^(`{3,})console\s*$")


@dataclass
class Step:
    command: str
    expected: list[str]


@dataclass
class Block:
    page: Path
    line: int  # of the opening fence, 1-based
    steps: list[Step]

    @property
    def name(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def console_blocks(page: Path) -> list[Block]:
    """The ```console blocks of ``page``, each split into commands and their expected output."""
    blocks: list[Block] = []
    lines = page.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        start, fence = i + 1, match.group(1)
        body: list[str] = []
        i += 1
        while i < len(lines) and lines[i].rstrip() != fence:
            body.append(lines[i])
            i += 1
        i += 1
        steps: list[Step] = []
        for text in body:
            if text.startswith("$ "):
                steps.append(Step(text[2:], []))
            elif steps:
                steps[-1].expected.append(text)
            elif text.strip():
                raise ValueError(f"{page.relative_to(ROOT)}:{start}: output before the first `$ ` command")
        for step in steps:
            step.expected = trimmed(step.expected)
        blocks.append(Block(page, start, steps))
    return blocks


def trimmed(lines: list[str]) -> list[str]:
    lines = [line.rstrip() for line in lines]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def line_matches(pattern: str, line: str) -> bool:
    if "[...]" not in pattern:
        return pattern == line
    regex = ".*".join(re.escape(part) for part in pattern.split("[...]"))
    return re.fullmatch(regex, line) is not None


def output_matches(expected: list[str], actual: list[str]) -> bool:
    """Whether ``actual`` is ``expected`` line by line, a line ``...`` standing for any lines."""
    memo: dict[tuple[int, int], bool] = {}

    def match(e: int, a: int) -> bool:
        if (e, a) not in memo:
            if e == len(expected):
                result = a == len(actual)
            elif expected[e] == "...":
                result = any(match(e + 1, k) for k in range(a, len(actual) + 1))
            else:
                result = a < len(actual) and line_matches(expected[e], actual[a]) and match(e + 1, a + 1)
            memo[e, a] = result
        return memo[e, a]

    return match(0, 0)


def example_folder(tmp: Path) -> Path:
    for name in COPIED:
        shutil.copytree(ROOT / name, tmp / name, ignore=shutil.ignore_patterns("__pycache__"))
    for file in EXAMPLES.iterdir():
        if file.is_file():
            shutil.copy2(file, tmp / file.name)
    return tmp


def run(command: str, cwd: Path) -> list[str]:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONUNBUFFERED"] = "1"  # stdout and stderr interleaved as on a terminal
    # A Dask cluster of the suite's own tests may hold Dask's default HTTP port; a LocalCluster
    # started by an example then warns that it moved to another port.  That says nothing about
    # the example, and on a machine of its own it is not printed.
    env["PYTHONWARNINGS"] = "ignore:Port 8787 is already in use:UserWarning"
    done = subprocess.run(
        ["bash", "-c", command],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=COMMAND_TIMEOUT,
    )
    return trimmed(done.stdout.splitlines())


BLOCKS = [block for page in PAGES for block in console_blocks(page)]
#: Blocks that play games take seconds: marked slow, so the quick `pytest -q` leaves them out.
PLAYS_GAMES = re.compile(r"\barena (tournament|duel|tune|report|compare|league run)\b|\bpython ")


def block_param(block: Block) -> object:
    slow = any(PLAYS_GAMES.search(step.command) for step in block.steps)
    return pytest.param(block, id=block.name, marks=[pytest.mark.slow] if slow else [])


def test_the_pages_have_console_examples() -> None:
    assert len(BLOCKS) >= 20, [block.name for block in BLOCKS]
    assert all(block.steps for block in BLOCKS), [block.name for block in BLOCKS if not block.steps]


@pytest.mark.parametrize("block", [block_param(block) for block in BLOCKS])
def test_console_example_prints_what_the_page_shows(block: Block, tmp_path: Path) -> None:
    folder = example_folder(tmp_path)
    for step in block.steps:
        actual = run(step.command, folder)
        if not output_matches(step.expected, actual):
            pytest.fail(
                f"{block.name}: `$ {step.command}` printed\n"
                + "\n".join(actual)
                + "\n\nwhere the page shows\n"
                + "\n".join(step.expected),
                pytrace=False,
            )


SHOWN_WHOLE = [
    *sorted(EXAMPLES.glob("*.py")),
    ROOT / "strategies" / "bank_at_500.py",
    ROOT / "strategies" / "declarative.py",
    ROOT / "arena" / "engine" / "variants" / "house.toml",
]


def without_module_docstring(text: str) -> str:
    """The code of a module after its docstring and ``from __future__`` imports, as pages show it."""
    if text.startswith('"""'):
        text = text[text.index('"""', 3) + 3 :]
    lines = [line for line in text.split("\n") if not line.startswith("from __future__ import")]
    return "\n".join(lines).lstrip("\n")


@pytest.mark.parametrize("file", SHOWN_WHOLE, ids=lambda file: file.name)
def test_files_the_pages_show_whole_are_shown_as_they_are(file: Path) -> None:
    """The pages show these files whole (in a code block, or as `cat` prints them), so what the
    examples run is what the reader sees."""
    code = without_module_docstring(file.read_text(encoding="utf-8"))
    assert any(code in page.read_text(encoding="utf-8") for page in PAGES), file.name


def test_the_wildcards() -> None:
    assert output_matches(["a", "...", "d"], ["a", "b", "c", "d"])
    assert output_matches(["a", "...", "b"], ["a", "b"])
    assert output_matches(["took [...] s, [...] games/s"], ["took 1.5 s, 20,220 games/s"])
    assert not output_matches(["a", "b"], ["a", "c"])
    assert not output_matches(["a"], ["a", "b"])
    assert not output_matches(["took [...] s"], ["took 1.5 s\nmore"])
    assert not output_matches(["a [...] b"], ["a x c"])


if __name__ == "__main__":  # print what the console blocks of the given pages print now
    import tempfile

    for argument in sys.argv[1:]:
        for block in console_blocks(Path(argument).resolve()):
            print(f"=== {block.name}")
            with tempfile.TemporaryDirectory() as tmp:
                folder = example_folder(Path(tmp))
                for step in block.steps:
                    print(f"$ {step.command}")
                    print("\n".join(run(step.command, folder)))
