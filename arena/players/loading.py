"""Find strategies: built-ins by name, Python files, importable modules and installed plugins.

A player spec is ``REFERENCE[:PARAMS]``:

- ``greedy``: a built-in strategy (``arena strategies list`` shows them);
- ``strategies/my_bot.py:MyBot``: a class in a file; ``strategies/my_bot.py`` alone if the file
  holds a single Player class;
- ``my_package.bots:MyBot``: a class in an importable module;
- ``my-bot``: a strategy an installed package declares as an entry point in the group
  ``arena.strategies``;
- ``threshold:bank_at=400,min_dice=3``: any of these with constructor parameters.

Every bad reference raises :class:`StrategyError` with one line that says what is wrong.
"""

from __future__ import annotations

import contextlib
import difflib
import importlib
import importlib.util
import inspect
import json
import os
import select
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.engine import Ruleset
from arena.perfect import why_not_perfect
from arena.players.builtin.greedy import GreedyPlayer
from arena.players.builtin.optimal import OptimalPlayer
from arena.players.builtin.perfect import PerfectPlayer
from arena.players.builtin.random_player import RandomPlayer
from arena.players.builtin.tactician import Tactician
from arena.players.builtin.threshold import ThresholdPlayer
from arena.players.names import name_refusal, normal_name, player_label
from arena.players.parameters import Parameter, strategy_parameters
from arena.players.protocol import Player
from arena.players.text import visible
from arena.safe_files import SOURCE_FILE_LIMIT, check_entry_file

ENTRY_POINT_GROUP = "arena.strategies"
#: Seconds a strategy's constructor may take when its spec is loaded (the default move timeout).
LOAD_TIMEOUT = 10.0

BUILTINS: dict[str, type] = {
    "random": RandomPlayer,
    "greedy": GreedyPlayer,
    "threshold": ThresholdPlayer,
    "tactician": Tactician,
    "optimal": OptimalPlayer,
    "perfect": PerfectPlayer,
}


class StrategyError(ValueError):
    """A player spec that can't be turned into a player; the message is one line."""


@dataclass(frozen=True)
class PlayerSpec:
    """A resolved player spec: how to make a fresh player for each game.

    An *isolated* player (``--isolate``, or a ``cmd:`` program) plays in a seat process of its
    own (:mod:`arena.sandbox`): its class was never imported here, so ``cls`` is None, and what
    the seat process told about it at load time is in ``about``."""

    text: str  # as the user wrote it
    label: str  # the name shown in results
    cls: type | None
    params: dict[str, Any] = field(default_factory=dict)
    source: str = "built-in"
    isolated: bool = False
    about: str = ""  # the description, for an isolated player

    def create(self) -> Player:
        if self.cls is None:
            raise RuntimeError(f"{self.label} plays in a seat process of its own (arena.sandbox), not here")
        return self.cls(**self.params)

    @property
    def description(self) -> str:
        """The first sentence of the strategy's docstring (or the seat's account of itself)."""
        return self.about if self.cls is None else description(self.cls)


def why_not_seated(player: PlayerSpec, rules: Ruleset, n_players: int) -> str | None:
    """Why ``player`` can't play games of ``n_players`` seats under ``rules``, in one line, or None.

    Asked before any game starts, so a run is refused at once rather than failing mid-way.  Only
    arena's own strategies are asked (a user's class is not run in arena's process)."""
    if isinstance(player.cls, type) and issubclass(player.cls, PerfectPlayer):
        why = why_not_perfect(rules, n_players)
        if why:
            return f"{player.label} {why}"
    return None


def description(cls: type) -> str:
    """The first sentence of a strategy's docstring, on one line."""
    doc = inspect.getdoc(cls) or ""
    paragraph = " ".join(doc.strip().split("\n\n")[0].split()).replace("``", "")
    if not paragraph:
        return "(no description)"
    sentence, dot, _ = paragraph.partition(". ")
    return sentence + "." if dot else paragraph


def split_spec(text: str) -> tuple[str, str | None]:
    """``REFERENCE[:PARAMS]`` -> (reference, params or None); params are the part after the
    last colon when it holds an ``=``."""
    head, sep, tail = text.rpartition(":")
    if sep and "=" in tail:
        return head, tail
    return text, None


def parse_params(cls: type, text: str | None, ref: str) -> dict[str, Any]:
    """``bank_at=400,min_dice=3`` -> typed keyword arguments for ``cls``; one-line errors."""
    if not text:
        return {}
    accepted = {p.name: p for p in strategy_parameters(cls)}
    names = ", ".join(accepted) or "none"
    params: dict[str, Any] = {}
    for item in text.split(","):
        key, eq, raw = item.partition("=")
        key, raw = key.strip(), raw.strip()
        if not eq or not key:
            raise StrategyError(f"{ref}: parameter {item!r} is not NAME=VALUE")
        param = accepted.get(key)
        if param is None:
            raise StrategyError(f"{ref}: unknown parameter {key!r} (parameters: {names})")
        params[key] = convert_param(raw, param.kind, f"{ref}: {key}")
    return params


def convert_param(raw: str, kind: Any, where: str) -> Any:
    """A parameter's text as its type (``kind``: a parameter's annotated or default type, or None)."""
    if kind is bool:
        lowered = raw.lower()
        if lowered in ("true", "yes", "1"):
            return True
        if lowered in ("false", "no", "0"):
            return False
        raise StrategyError(f"{where} must be true or false, got {raw!r}")
    if kind in (int, float):
        try:
            return kind(raw)
        except ValueError:
            raise StrategyError(f"{where} must be {kind.__name__}, got {raw!r}") from None
    if kind is str:
        return raw
    for guess in (int, float):  # no annotation: take the narrowest number that fits
        try:
            return guess(raw)
        except ValueError:
            pass
    return raw


def is_player_class(obj: object) -> bool:
    return inspect.isclass(obj) and callable(getattr(obj, "decide", None))


def load_player_spec(text: str, *, timeout: float | None = LOAD_TIMEOUT) -> PlayerSpec:
    """Resolve a player spec and check it makes a valid player; raises :class:`StrategyError`.

    The player is built once to check it and read its name.  A strategy's own code (file,
    module, plugin) is built in a forked child process with ``timeout`` seconds: one that calls
    ``sys.exit`` or ``os._exit``, crashes, or never returns is then one line, and arena goes on
    (see :func:`check_player`)."""
    text = text.strip()
    if not text:
        raise StrategyError("empty player spec")
    ref, param_text = split_spec(text)
    cls, source = _resolve(ref)
    params = parse_params(cls, param_text, ref)
    name = check_player(cls, params, ref, timeout=None if source == "built-in" else timeout)
    return PlayerSpec(text, player_label(name, param_text), cls, params, source)


def check_player(cls: type, params: dict[str, Any], ref: str, *, timeout: float | None = LOAD_TIMEOUT) -> str:
    """Build ``cls(**params)`` once, check it is a Player and return its name (spaces folded);
    raises :class:`StrategyError` with one line if it can't be built or its name breaks the
    name rule (:mod:`arena.players.names`).

    With a ``timeout``, in the main thread of a system that can fork, it is built in a child
    process that the caller kills after ``timeout`` seconds: nothing the constructor does
    (sleep, ``sys.exit``, ``os._exit``, a crash) reaches this process.  Otherwise it is built
    here, and only its exceptions are caught."""
    forkable = hasattr(os, "fork") and threading.current_thread() is threading.main_thread()
    if timeout is None or not forkable:
        kind, text = _try_player(cls, params, ref)
    else:
        kind, text = _try_player_in_child(cls, params, ref, timeout)
    if kind != "ok":
        raise StrategyError(text)
    return text


def _try_player(cls: type, params: dict[str, Any], ref: str) -> tuple[str, str]:
    """("ok", the player's name) or ("error", a one-line message)."""
    try:
        player = cls(**params)
    except KeyboardInterrupt:
        raise
    except (TypeError, ValueError) as exc:
        return "error", f"{ref}: {_clip(safe_text(exc))}"
    except BaseException as exc:  # SystemExit too: a strategy may not end arena
        return "error", f"{ref}: creating the player failed: {_clip(described(exc))}"
    try:
        missing = [m for m in ("name", "decide") if not hasattr(player, m)]
        if missing:
            return "error", (
                f"{ref}: {cls.__name__} is not a Player: it needs {' and '.join(missing)} "
                "(a name and a decide(view) -> Action method)"
            )
        name = str(player.name)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:
        return "error", f"{ref}: reading the player's name failed: {_clip(described(exc))}"
    refusal = name_refusal(name)
    if refusal is not None:
        return "error", f"{ref}: {refusal}"
    return "ok", normal_name(name)


def in_child(reply: Callable[[], bytes], timeout: float) -> tuple[bytes, bool, int]:
    """``reply()`` in a forked child that is the leader of its own process group, killed with
    the group after ``timeout`` seconds.  Returns what it sent (up to a newline), whether it
    answered in time, and its wait status: nothing it does (sleep, ``sys.exit``, ``os._exit``, a
    crash) reaches this process."""
    for stream in (sys.stdout, sys.stderr):  # else the child would write our pending output again
        with contextlib.suppress(Exception):
            stream.flush()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: send the reply on one line, and leave without cleaning up
        status = 0
        try:
            os.close(read_end)
            with contextlib.suppress(OSError):
                os.setpgid(0, 0)  # its own group, so anything it starts is killed with it
            data = reply() + b"\n"
            while data:
                data = data[os.write(write_end, data) :]
            for stream in (sys.stdout, sys.stderr):
                with contextlib.suppress(Exception):
                    stream.flush()
        except BaseException:
            status = 70
        finally:
            os._exit(status)
    os.close(write_end)
    with contextlib.suppress(OSError):
        os.setpgid(pid, pid)  # as the child does: whichever runs first, the group exists
    try:
        data, in_time = _read_reply(read_end, timeout)
    finally:
        os.close(read_end)
        _kill_group(pid)
        _, status = os.waitpid(pid, 0)
    return data, in_time, status


def _try_player_in_child(cls: type, params: dict[str, Any], ref: str, timeout: float) -> tuple[str, str]:
    """:func:`_try_player` in a forked child (:func:`in_child`)."""
    reply_bytes, in_time, status = in_child(
        lambda: json.dumps(_try_player(cls, params, ref)).encode(), timeout
    )
    if not in_time:
        return "error", f"{ref}: creating the player took longer than {timeout:g} s (the move timeout)"
    try:
        kind, text = json.loads(reply_bytes)
        return str(kind), str(text)
    except ValueError:
        how = (
            f"signal {os.WTERMSIG(status)}"
            if os.WIFSIGNALED(status)
            else f"exit status {os.waitstatus_to_exitcode(status)}"
        )
        return "error", f"{ref}: creating the player ended its process ({how})"


def _read_reply(fd: int, timeout: float) -> tuple[bytes, bool]:
    """Bytes from ``fd`` up to a newline or end of file; and False if ``timeout`` ran out first."""
    deadline = time.monotonic() + timeout
    data = b""
    while not data.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0:
            return data, False
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            data += chunk
    return data, True


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def safe_text(exc: BaseException) -> str:
    """``str(exc)`` on one line; a strategy's exception whose ``__str__`` raises gets a stand-in."""
    try:
        return " ".join(str(exc).split())
    except BaseException:
        return f"<{type(exc).__name__} whose text can't be shown>"


def described(exc: BaseException) -> str:
    """``Type: message`` on one line."""
    text = safe_text(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _clip(text: str, limit: int = 300) -> str:
    """A strategy's text for a one-line message: hidden characters made visible, cut."""
    text = visible(text[: 2 * limit])
    return text if len(text) <= limit else text[:limit] + "..."


def _resolve(ref: str) -> tuple[type, str]:
    if ref in BUILTINS:
        return BUILTINS[ref], "built-in"
    plugin = _entry_points().get(ref)
    if plugin is not None:
        try:
            obj = plugin.load()
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # SystemExit too: a plugin may not end arena
            raise StrategyError(
                f"{ref}: the plugin's entry point {plugin.value!r} failed to load: {_clip(described(exc))}"
            ) from None
        if not is_player_class(obj):
            raise StrategyError(f"{ref}: entry point {plugin.value!r} is not a Player class")
        return obj, f"plugin {plugin.dist.name if plugin.dist else ''}".strip()
    path_part, _, class_name = ref.partition(".py:")
    if ref.endswith(".py") or class_name:
        path = Path(ref if ref.endswith(".py") else path_part + ".py")
        return _from_file(path, class_name or None), "file"
    module_name, colon, class_name = ref.partition(":")
    if colon and (module_name in BUILTINS or module_name in _entry_points()):
        raise StrategyError(f"{module_name}: parameters are NAME=VALUE, got {class_name!r}")
    if colon and module_name and class_name:
        return _from_module(module_name, class_name), "module"
    known = ", ".join(BUILTINS)
    raise StrategyError(
        f"unknown strategy {ref!r}{_did_you_mean(ref, [*BUILTINS, *_entry_points()])}: use a built-in "
        f"({known}), an installed plugin, a file (path/to/bot.py[:Class]) or a module "
        "(package.module:Class)"
    )


def _did_you_mean(name: str, known: list[str]) -> str:
    """`` (did you mean 'greedy'?)`` for the nearest known name, or nothing if none is near."""
    close = difflib.get_close_matches(name, known, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _entry_points() -> dict[str, Any]:
    from importlib.metadata import entry_points  # 50 ms to import: only where plugins are looked up

    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def _import_file(path: Path) -> Any:
    """The module of a strategy file, imported once per process.  The file is checked first as
    every file an entry names is (:func:`arena.safe_files.check_entry_file`): a FIFO, device or
    socket, or a source past :data:`~arena.safe_files.SOURCE_FILE_LIMIT`, is refused in one
    line before Python's import opens it, so it can neither hang nor fill memory."""
    if not os.path.lexists(path):
        raise StrategyError(f"{path}: no such file")
    try:
        check_entry_file(path, SOURCE_FILE_LIMIT)
    except FileNotFoundError:
        raise StrategyError(f"{path}: no such file (a link to nothing)") from None
    except OSError as exc:
        raise StrategyError(f"{path}: cannot be read as a strategy file: {exc.strerror}") from None
    module_name = f"arena_user_strategy_{abs(hash(str(path.resolve()))):x}"
    module = sys.modules.get(module_name)
    if module is not None:
        return module
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise StrategyError(f"{path}: cannot be imported as Python")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # so dataclasses, pickling and workers find it
    try:
        spec.loader.exec_module(module)
    except BaseException as exc:  # SystemExit too: a strategy file may not end arena
        del sys.modules[module_name]
        if isinstance(exc, KeyboardInterrupt):
            raise
        said = _clip(described(exc))
        # A SyntaxError's text names its line already ("(bot.py, line 5)"): say it once.
        line = exc.lineno if isinstance(exc, SyntaxError) else None
        where = f" (line {line})" if line and f"line {line}" not in said else ""
        raise StrategyError(f"{path}: importing it failed: {said}{where}") from None
    return module


def _player_classes(module: Any) -> list[type]:
    """Player classes defined in ``module`` itself (not imported into it), in name order."""
    return sorted(
        (obj for obj in vars(module).values() if is_player_class(obj) and obj.__module__ == module.__name__),
        key=lambda c: c.__name__,
    )


def _named_class(module: Any, class_name: str, ref: str, place: str) -> type:
    """``module.class_name`` if it is a Player class; else a one-line error about ``ref``."""
    obj = getattr(module, class_name, None)
    if obj is None:
        names = [c.__name__ for c in _player_classes(module)]
        has = f"; its Player classes: {', '.join(names)}" if names else "; it has no Player class"
        near = _did_you_mean(class_name, names)
        raise StrategyError(f"{ref}: no class {class_name!r} in {place}{near}{has}")
    if not is_player_class(obj):
        raise StrategyError(f"{ref}: {class_name} is not a Player class (it needs a decide method)")
    return obj


def _from_file(path: Path, class_name: str | None) -> type:
    module = _import_file(path)
    if class_name:
        return _named_class(module, class_name, str(path), "the file")
    classes = _player_classes(module)
    if len(classes) == 1:
        return classes[0]
    if not classes:
        raise StrategyError(f"{path}: no Player class in the file (a class with a decide method)")
    names = ", ".join(c.__name__ for c in classes)
    raise StrategyError(f"{path}: several Player classes ({names}); name one as {path}:CLASS")


def _from_module(module_name: str, class_name: str) -> type:
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and module_name.startswith(exc.name):
            raise StrategyError(_not_importable(module_name, class_name, exc.name)) from None
        raise StrategyError(f"{module_name}: importing it failed: {_clip(safe_text(exc))}") from None
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # SystemExit too
        raise StrategyError(f"{module_name}: importing it failed: {_clip(described(exc))}") from None
    return _named_class(module, class_name, f"{module_name}:{class_name}", module_name)


def _not_importable(module_name: str, class_name: str, missing: str) -> str:
    """Why ``module_name:class_name`` can't be imported (``missing`` is the module Python did not
    find), and how to fix it: a folder on PYTHONPATH, an installed package, or the file itself."""
    ref = f"{module_name}:{class_name}"
    if "." in missing:  # the package was found, only a module inside it is missing
        return f"{ref}: no module named {missing!r}"
    head = f"{ref}: no module named {missing!r} on the Python path"
    file = Path(*module_name.split(".")).with_suffix(".py")
    if file.is_file():  # the usual slip: the module sits right here, but `arena` doesn't look here
        where = file.as_posix()
        return (
            f"{head}; it is the file {where} here: name the file (-p {where}:{class_name}) "
            "or put this folder on the path (PYTHONPATH=. arena ...)"
        )
    return (
        f"{head}; add the folder that holds {missing} to PYTHONPATH (PYTHONPATH=/that/folder arena ...), "
        f"or install the package that provides it (pip install -e /its/folder for your own)"
    )


@dataclass(frozen=True)
class Available:
    """One strategy of ``arena strategies list``: its spec, where it comes from, the first
    sentence of its docstring and the parameters its spec may set."""

    spec: str
    source: str
    description: str
    parameters: tuple[Parameter, ...] = ()


def _available(spec: str, source: str, cls: type) -> Available:
    return Available(spec, source, description(cls), tuple(strategy_parameters(cls)))


def available_strategies(
    folder: Path | None = Path("strategies"), extra: Sequence[Path] = ()
) -> list[Available]:
    """Built-ins, installed plugins, and the Player classes in the ``*.py`` files of ``folder``
    and of each folder in ``extra`` (a folder named twice is listed once)."""
    found = [_available(name, "built-in", cls) for name, cls in BUILTINS.items()]
    for name, ep in sorted(_entry_points().items()):
        try:
            found.append(_available(name, "plugin", ep.load()))
        except Exception as exc:
            found.append(Available(name, "plugin", f"(fails to load: {type(exc).__name__}: {exc})"))
    seen: set[Path] = set()
    for place in ([folder] if folder is not None else []) + list(extra):
        if not place.is_dir() or place.resolve() in seen:
            continue
        seen.add(place.resolve())
        for path in sorted(place.glob("*.py")):
            if path.name.startswith("_"):
                continue
            try:
                classes = _player_classes(_import_file(path))
            except StrategyError as exc:
                found.append(Available(path.as_posix(), "file", f"(fails to load: {exc})"))
                continue
            for cls in classes:
                found.append(_available(f"{path.as_posix()}:{cls.__name__}", "file", cls))
    return found
