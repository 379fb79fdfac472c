"""What a seat may read: the runtime it needs and its own entry's files, worked out in arena's
process from the player spec alone (no code of the entry runs here).

- The runtime: the system folders, a few files of ``/etc`` that programs read as they start,
  and arena's Python (its prefixes, the folders of its import path that hold installed
  packages, and arena's own package), which a Python strategy's host runs on and a ``cmd:``
  wrapper script may run.  A ``cmd:`` program found on ``PATH`` outside the system folders is
  seen with the installation it belongs to: the folder above its ``bin/`` (or ``shims/``)
  folder, as with a pyenv or nvm interpreter.  A program named by its path (``cmd:bots/bin/x``)
  is seen alone: the folder above it may hold other entries.
- The entry's own files: a strategy file (``path/to/bot.py``: that file alone); a module
  (``package.module:Class``): the module's own file, or its folder if it is a package, and the
  ``__init__.py`` of each package above it, not their other modules (``entries.alice.bot``
  must not show ``entries/bob``); a ``cmd:`` program and every file its arguments name, or a
  folder they name that holds neither the current folder nor the run folder.

An entry's files are seen where they are, never through a symbolic link: a folder handed to an
organiser may hold ``model -> /``, and following it would show the whole machine.  A spec or
argument that names a path through a link is refused at load with one line
(:class:`~arena.players.loading.StrategyError`), unless the link leads into the runtime, which
the seat sees anyway (a virtual environment's ``bin/python``).

Everything else (other entries' files, run folders, home folders, sockets) is left out of the
seat's root (:mod:`arena.sandbox.seat_root`).
"""

from __future__ import annotations

import os
import shlex
import site
import sys
from collections.abc import Iterable, Sequence
from importlib.machinery import all_suffixes
from pathlib import Path

from arena.players.loading import StrategyError, split_spec
from arena.safe_files import named_file

#: System folders (or the links to them of a merged /usr).
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
#: Files and folders of /etc that the dynamic loader, the C library and interpreters read as
#: they start (not /etc as a whole: it can hold keys and passwords that root may read).
ETC = (
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "localtime",
    "passwd",
    "group",
    "nsswitch.conf",
    "alternatives",
    "mime.types",
    "ssl/certs",
    "ssl/openssl.cnf",
)
#: Folder names whose parent is an installation of the program inside them.
INSTALL_BIN = ("bin", "sbin", "shims")


def _inside(path: Path, folders: Iterable[Path]) -> bool:
    return any(path == f or f in path.parents for f in folders)


def _existing(paths: Iterable[str | Path]) -> list[Path]:
    return [Path(p) for p in paths if p and os.path.lexists(p)]


def system_paths() -> list[Path]:
    etc = [Path("/etc") / name for name in ETC]
    etc += sorted(Path("/etc").glob("python3*"))  # Debian's site settings for its Python
    return _existing([*SYSTEM, *etc])


def python_paths() -> list[Path]:
    """arena's Python: its prefixes, the import path's installed packages and arena itself."""
    import arena

    prefixes = _existing(
        {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, os.path.dirname(sys.executable)}
    )
    real_prefixes = [Path(os.path.realpath(p)) for p in prefixes]
    installed: list[Path] = []
    user_site = site.getusersitepackages() if site.ENABLE_USER_SITE else ""
    for entry in sys.path:
        path = Path(entry)
        if not entry or not path.is_absolute() or not path.exists():
            continue
        real = Path(os.path.realpath(path))
        if _inside(real, real_prefixes):
            continue
        if path.name in ("site-packages", "dist-packages") or entry == user_site:
            installed.append(path)
    package = Path(arena.__file__).resolve().parent
    return [*prefixes, *installed, package]


def program_paths(program: str, keep_out: Sequence[Path], *, found_on_path: bool) -> list[Path]:
    """A ``cmd:`` program (an absolute path) and, if it was found on ``PATH`` outside the
    system folders, its installation (unless that holds one of ``keep_out``: the current
    folder, the run folder)."""
    path = Path(program)
    runtime = [Path(os.path.realpath(p)) for p in system_paths()]
    if not found_on_path or _inside(Path(os.path.realpath(path)), runtime):
        return [path]
    installation = path.parent.parent
    real_installation = Path(os.path.realpath(installation))
    if (
        path.parent.name in INSTALL_BIN
        and real_installation != Path("/")
        and not any(_inside(Path(os.path.realpath(k)), [real_installation]) for k in keep_out)
    ):
        return [path, installation]
    return [path]


def link_on_the_way(name: str, cwd: Path) -> Path | None:
    """The first symbolic link that the path ``name`` passes through (or is), looked up from the
    current folder's real place (from ``/`` if ``name`` is absolute), not counting the system's
    own top-level links (``/lib -> usr/lib``); None if there is none."""
    current = Path("/") if os.path.isabs(name) else Path(os.path.realpath(cwd))
    for part in Path(name).parts:
        if part == "/":
            continue
        # No link was followed so far, so ".." here is the real parent folder.
        current = current.parent if part == ".." else current / part
        if current.is_symlink() and str(current) not in SYSTEM:
            return current
        if not os.path.lexists(current):
            return None
    return None


def _runtime_holds(path: Path) -> bool:
    """Whether ``path``, links followed, lies in the runtime that every seat sees anyway."""
    real = Path(os.path.realpath(path))
    return _inside(real, [Path(os.path.realpath(p)) for p in (*system_paths(), *python_paths())])


def _refuse_link(name: str, link: Path | None, what: str) -> None:
    if link is not None:
        raise StrategyError(
            f"{what} {name}: {link} is a symbolic link (to {os.readlink(link)}); an isolated "
            "seat sees an entry's files only where they are, so name the real path"
        )


def _refuse_unreadable(name: str, path: Path, what: str = "the argument") -> None:
    """StrategyError in one line if ``path`` is not what arena reads of an entry
    (:func:`arena.safe_files.named_file`: a FIFO, socket or device, a file past the cap), so a
    seat is never started on one (its program would read a sparse giant for minutes)."""
    try:
        named_file(str(path))
    except OSError as exc:
        raise StrategyError(f"{what} {name}: {exc.strerror}") from None


def _find(part: str, folders: Sequence[str]) -> tuple[Path, list[Path] | None] | None:
    """Where the import system finds ``part`` among ``folders``, as (the folder it was found
    in, the package's folders, or None for a plain module), or None.  A regular package or a
    module in an earlier folder wins; folders without ``__init__.py`` make a namespace
    package, as in PEP 420."""
    portions: list[Path] = []
    first: Path | None = None
    for entry in folders:
        folder = Path(entry or os.getcwd())
        candidate = folder / part
        if candidate.is_dir():
            if any((candidate / f"__init__{suffix}").is_file() for suffix in all_suffixes()):
                return folder, [candidate]
            portions.append(candidate)
            first = first or folder
        elif any((folder / f"{part}{suffix}").is_file() for suffix in all_suffixes()):
            return folder, None
    return (first, portions) if first is not None else None


def module_paths(module_name: str) -> list[Path]:
    """What ``import module_name`` reads, looked up along the import path as the import system
    does (without importing anything): the module's file, or its folder if it is a package,
    and the ``__init__.py`` of each package above it.  Empty if it can't be found (the seat's
    own import then says why).  Raises StrategyError if one of them is reached through a
    symbolic link below the import path's folder that holds the top-level package."""
    found: list[Path] = []
    folders: Sequence[str] = sys.path
    base: Path | None = None
    parts = module_name.split(".")
    for depth, part in enumerate(parts, 1):
        place = _find(part, folders)
        if place is None:
            return []
        folder, package = place
        base = base or folder
        if package is None:
            if depth < len(parts):
                return []
            found += [folder / f"{part}{s}" for s in all_suffixes() if (folder / f"{part}{s}").is_file()][:1]
        elif depth == len(parts):
            found += package
        else:
            found += [p / "__init__.py" for p in package if (p / "__init__.py").is_file()]
            folders = [str(p) for p in package]
    for path in found:
        if base is not None:
            _refuse_link(module_name, link_on_the_way(os.path.relpath(path, base), base), "the module")
    return found


def strategy_paths(spec_text: str, cwd: Path) -> list[Path]:
    """The files of a Python strategy spec (a built-in or a plugin has none of its own).
    Raises StrategyError for a file reached through a symbolic link."""
    ref, _ = split_spec(spec_text.strip())
    path_part, _, class_name = ref.partition(".py:")
    if ref.endswith(".py") or class_name:
        name = ref if ref.endswith(".py") else path_part + ".py"
        _refuse_link(name, link_on_the_way(name, cwd), "the strategy file")
        return [Path(os.path.abspath(cwd / name))]
    module_name, colon, _ = ref.partition(":")
    if not (colon and module_name):
        return []
    return module_paths(module_name)


def argument_paths(
    arguments: Sequence[str], cwd: Path, hidden: Sequence[Path], what: str = "the argument"
) -> list[Path]:
    """The files (and folders) that a ``cmd:`` program's arguments name.  A folder that holds
    the current folder or a hidden folder (``.``, ``..``, ``/``, the run folder's parents) is
    left out: it would show everything below it.  Raises StrategyError for a path through a
    symbolic link."""
    found = []
    keep_out = [Path(os.path.realpath(k)) for k in (cwd, *hidden)]
    for argument in arguments:
        if not argument or argument.startswith("-"):
            continue
        path = Path(os.path.abspath(cwd / argument))
        if not os.path.lexists(path):
            continue
        if _runtime_holds(path):
            continue  # such as a virtual environment's python: seen already, as runtime
        _refuse_link(argument, link_on_the_way(argument, cwd), what)
        _refuse_unreadable(argument, path, what)
        if path.is_file() or (path.is_dir() and not any(_inside(k, [path]) for k in keep_out)):
            found.append(path)
    return found


def parameter_paths(spec_text: str, cwd: Path, hidden: Sequence[Path]) -> list[Path]:
    """The files that a Python strategy spec's parameter values name (``table=q.npz``: a trained
    policy's table, :mod:`arena.envs.table_player`), found as a ``cmd:`` program's arguments are
    (:func:`argument_paths`), files only: a value naming a folder shows nothing of it."""
    _, params = split_spec(spec_text.strip())
    values = [item.partition("=")[2].strip() for item in (params or "").split(",")]
    found = argument_paths(values, cwd, hidden, "the parameter value")
    return [path for path in found if path.is_file()]


def own_paths(seen: Sequence[Path]) -> list[Path]:
    """The entry's own files among ``seen`` (what :func:`seat_paths` returned): everything but
    the runtime's paths."""
    runtime = {*system_paths(), *python_paths()}
    return [path for path in seen if path not in runtime]


def seat_paths(
    argv: Sequence[str], spec_text: str, *, command: bool, cwd: Path, hidden: Sequence[Path]
) -> list[Path]:
    """Everything a seat for ``argv`` (from the spec ``spec_text``) may read; raises
    StrategyError where the spec names an entry's file through a symbolic link."""
    if command:
        named = shlex.split(spec_text.strip().partition(":")[2])[0]  # as the user wrote it
        program = program_paths(argv[0], [cwd, *hidden], found_on_path="/" not in named)
        own = [*program, *argument_paths(argv[1:], cwd, hidden)]
    else:
        own = [*strategy_paths(spec_text, cwd), *parameter_paths(spec_text, cwd, hidden)]
    # arena's Python is runtime for a program too: a wrapper script may run it, as bots do.
    return [*system_paths(), *python_paths(), *own]
