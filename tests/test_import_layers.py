"""Imports run one way: walking every import of arena/ (lazy ones and those under
TYPE_CHECKING included), no two rooms (the folders of arena/) import each other, and no modules
import each other in a circle inside a room."""

from __future__ import annotations

import ast
from pathlib import Path

ARENA = Path(__file__).resolve().parents[1] / "arena"


def modules() -> dict[str, Path]:
    found = {}
    for path in ARENA.rglob("*.py"):
        parts = ("arena", *path.relative_to(ARENA).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def import_graph() -> dict[str, set[str]]:
    """Module -> the arena modules it imports.  ``from package import name`` counts as
    importing the submodule ``package.name`` where there is one, else the package."""
    known = modules()
    graph: dict[str, set[str]] = {name: set() for name in known}
    for name, path in known.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                subs = [f"{node.module}.{a.name}" for a in node.names]
                targets = [s for s in subs if s in known]
                if len(targets) < len(subs):
                    targets.append(node.module)
            for target in targets:
                while target and target not in known:
                    target = target.rpartition(".")[0]
                if target.startswith("arena") and target != name:
                    graph[name].add(target)
    return graph


def room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and (ARENA / parts[1]).is_dir()) else ""


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_two_rooms_import_each_other() -> None:
    graph = import_graph()
    rooms: dict[str, set[str]] = {}
    for module, targets in graph.items():
        here = room(module)
        if here:
            rooms.setdefault(here, set()).update(room(t) for t in targets if room(t) not in ("", here))
    assert len(rooms) >= 10  # the walk found the rooms
    assert circles({r: rooms.get(r, set()) for r in rooms}) == []


def test_no_modules_import_each_other_inside_a_room() -> None:
    graph = import_graph()
    # A package's __init__ re-exports its modules, which import their siblings: that is not a
    # circle of modules, so a package is left out of the walk inside its own room.
    inner = {
        module: {t for t in targets if room(t) == room(module) and t != f"arena.{room(module)}"}
        for module, targets in graph.items()
        if room(module) and module != f"arena.{room(module)}"
    }
    assert circles(inner) == []


def test_the_walk_sees_a_lazy_import() -> None:
    # policy.py imports the solver inside a function: the walk must count it.
    assert "arena.players.solver" in import_graph()["arena.players.policy"]
