"""What a seat may read: the runtime it needs and its own entry's files, worked out in arena's
process from the player spec alone (no code of the entry runs here).

- The runtime: the system folders, a few files of ``/etc`` that programs read as they start,
  and arena's Python (its prefixes, the folders of its import path that hold installed
  packages, and arena's own package), which a Python strategy's host runs on and a ``cmd:``
  wrapper script may run.  A ``cmd:`` program outside the
  system folders is seen with the installation it belongs to: the folder above its ``bin/``
  (or ``shims/``) folder, as with a pyenv or nvm interpreter.
- The entry's own files: a strategy file (``path/to/bot.py``: that file alone), a module's
  top-level package or file (``package.module:Class``), a ``cmd:`` program and every file its
  arguments name, or a folder they name that holds neither the current folder nor the run
  folder.

Everything else (other entries' files, run folders, home folders, sockets) is left out of the
seat's root (:mod:`arena.sandbox.seat_root`).
"""

from __future__ import annotations

import os
import site
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

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


def program_paths(program: str, keep_out: Sequence[Path]) -> list[Path]:
    """A ``cmd:`` program (an absolute path) and, outside the system folders, its installation
    (unless that holds one of ``keep_out``: the current folder, the run folder)."""
    path = Path(program)
    runtime = [Path(os.path.realpath(p)) for p in system_paths()]
    if _inside(Path(os.path.realpath(path)), runtime):
        return [path]
    installation = path.parent.parent
    if (
        path.parent.name in INSTALL_BIN
        and installation != Path("/")
        and not any(installation == k or installation in k.parents for k in keep_out)
    ):
        return [path, installation]
    return [path]


def _module_location(module_name: str) -> Path | None:
    """Where ``import module_name`` would find its top-level package or file, by looking along
    the import path as the import system does (without importing anything)."""
    top = module_name.partition(".")[0]
    for entry in sys.path:
        folder = Path(entry or os.getcwd())
        if not folder.is_dir():
            continue
        if (folder / top).is_dir():
            return folder / top
        for candidate in sorted(folder.glob(f"{top}.*")):
            if candidate.suffix in (".py", ".pyc", ".so", ".pyd") and candidate.is_file():
                return candidate
    return None


def strategy_paths(spec_text: str, cwd: Path) -> list[Path]:
    """The files of a Python strategy spec (a built-in or a plugin has none of its own)."""
    from arena.players.loading import split_spec

    ref, _ = split_spec(spec_text.strip())
    path_part, _, class_name = ref.partition(".py:")
    if ref.endswith(".py") or class_name:
        file = Path(ref if ref.endswith(".py") else path_part + ".py")
        return [Path(os.path.abspath(cwd / file))]
    module_name, colon, _ = ref.partition(":")
    if colon and module_name:
        location = _module_location(module_name)
        return [location] if location is not None else []
    return []


def argument_paths(arguments: Sequence[str], cwd: Path, hidden: Sequence[Path]) -> list[Path]:
    """The files (and folders) that a ``cmd:`` program's arguments name.  A folder that holds
    the current folder or a hidden folder (``.``, ``..``, ``/``, the run folder's parents) is
    left out: it would show everything below it."""
    found = []
    keep_out = [cwd, *hidden]
    for argument in arguments:
        if not argument or argument.startswith("-"):
            continue
        path = Path(os.path.abspath(cwd / argument))
        if path.is_file() or (path.is_dir() and not any(k == path or path in k.parents for k in keep_out)):
            found.append(path)
    return found


def seat_paths(
    argv: Sequence[str], spec_text: str, *, command: bool, cwd: Path, hidden: Sequence[Path]
) -> list[Path]:
    """Everything a seat for ``argv`` (from the spec ``spec_text``) may read."""
    if command:
        own = [*program_paths(argv[0], [cwd, *hidden]), *argument_paths(argv[1:], cwd, hidden)]
    else:
        own = strategy_paths(spec_text, cwd)
    # arena's Python is runtime for a program too: a wrapper script may run it, as bots do.
    return [*system_paths(), *python_paths(), *own]
