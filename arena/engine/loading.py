"""Find a ruleset by name (a preset, or a variant arena ships) or load a custom one from a TOML file.

The variants are the common variants the general guide (002) lists, each a TOML file in
``arena/engine/variants/`` that extends a preset, shipped inside the package and named by its
file's stem (``--rules house``, ``--rules exact-target``): :func:`variant_names`.

A custom ruleset file names the preset it extends and changes some of its fields::

    extends = "classic"
    name = "classic-six-dice"
    dice = 6
    three_pairs = true
    three_pairs_value = 1500

Keys are the field names of :class:`~arena.engine.rules.Ruleset` (``arena rules show`` lists
them).  Unknown keys, wrong types and impossible combinations raise :class:`RulesetError`
naming the key.
"""

from __future__ import annotations

import difflib
import tomllib
from pathlib import Path
from typing import Any

from arena.engine.presets import PRESETS
from arena.engine.rules import Ruleset, RulesetError, rule_types

EXTENDS_KEY = "extends"
#: The variants' files, shipped with the package (pyproject's package-data).
VARIANTS_FOLDER = Path(__file__).resolve().parent / "variants"


def variant_names() -> tuple[str, ...]:
    """The names of the variants arena ships, sorted."""
    return tuple(sorted(path.stem for path in VARIANTS_FOLDER.glob("*.toml")))


def load_ruleset(name_or_path: str | Path | Ruleset) -> Ruleset:
    """A preset by name (``standard``, ``short``, ``classic``), a shipped variant by name
    (:func:`variant_names`) or a ruleset from a TOML file."""
    if isinstance(name_or_path, Ruleset):
        return name_or_path
    text = str(name_or_path)
    if text in PRESETS:
        return PRESETS[text]
    variants = variant_names()
    if text in variants:
        return load_ruleset_file(VARIANTS_FOLDER / f"{text}.toml")
    path = Path(text)
    if path.suffix.lower() != ".toml" and not path.exists():
        close = difflib.get_close_matches(text, [*PRESETS, *variants], n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise RulesetError(
            text, f"unknown ruleset{hint}: use a preset ({', '.join(PRESETS)}), a variant "
            "(`arena rules list` lists them) or a .toml file"
        )
    return load_ruleset_file(path)


def load_ruleset_file(path: Path) -> Ruleset:
    """Read a TOML file that extends a preset; see the module docstring for its form."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RulesetError(str(path), "no such ruleset file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise RulesetError(str(path), f"cannot read it: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise RulesetError(str(path), f"not valid TOML: {exc}") from None
    try:
        return ruleset_from_mapping(data, default_name=path.stem)
    except RulesetError as exc:
        raise RulesetError(exc.key, f"{exc.detail} (in {path})") from None


def ruleset_from_mapping(data: dict[str, Any], *, default_name: str = "custom") -> Ruleset:
    """Build a ruleset from a mapping of field names, extending the preset named by ``extends``."""
    data = dict(data)
    base_name = data.pop(EXTENDS_KEY, None)
    if base_name is None:
        raise RulesetError(EXTENDS_KEY, f"missing: name the preset to extend ({', '.join(PRESETS)})")
    if not isinstance(base_name, str) or base_name not in PRESETS:
        raise RulesetError(EXTENDS_KEY, f"must name one of {', '.join(PRESETS)}, got {base_name!r}")
    types = rule_types()
    for key, value in data.items():
        if key not in types:
            close = difflib.get_close_matches(key, types, n=1)
            hint = f"did you mean {close[0]!r}?" if close else "`arena rules show standard` lists them"
            raise RulesetError(key, f"unknown rule; {hint}")
        expected = types[key]
        if type(value) is not expected:
            raise RulesetError(key, f"must be {expected.__name__}, got {type(value).__name__} {value!r}")
    data.setdefault("name", default_name)
    data.setdefault("description", f"{PRESETS[base_name].name} with changes from a file")
    return PRESETS[base_name].replace(**data)
