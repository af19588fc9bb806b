"""msport's settings: one immutable object, built from layered sources and validated key by key.

Sources, lowest precedence first: defaults, ``[tool.msport]`` in the nearest
``pyproject.toml``, the editor (``initializationOptions`` then ``workspace/configuration``),
command-line flags. A bad value never stops msport: it becomes a ``SettingProblem`` naming
the source and key, and the value from the layer below is kept.
"""

from __future__ import annotations

import fnmatch
import functools
import json
import os
import re
import reprlib
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple

from ..said import Said, said
from .findings import Severity

SUPPORTED_VERSIONS: Tuple[str, ...] = ("2.2", "2.3", "2.4", "2.5", "2.6", "2.7", "2.8", "2.9", "2.10")
DEFAULT_VERSION = "2.10"
BACKENDS = ("ascend", "gpu", "cpu")
MODES = ("graph", "pynative")
JIT_LEVELS = ("O0", "O1", "O2")
#: A Python file of 10 MB is ~250,000 lines; larger ones are generated data, not code to port.
DEFAULT_MAX_FILE_SIZE = 10_000_000


def parse_version(text: str) -> Tuple[int, int]:
    """``"2.10"`` or ``"2.10.0"`` -> ``(2, 10)``; raises ValueError otherwise."""
    parts = str(text).strip().split(".")
    if len(parts) < 2 or not all(p.isdigit() for p in parts[:2]):
        raise ValueError(text)
    return int(parts[0]), int(parts[1])


class SettingError(ValueError):
    """A value a validator cannot use; its text is in the catalogue."""

    def __init__(self, key: str, **arguments: Any) -> None:
        self.said = said(key, **arguments)
        super().__init__(self.said.text())


#: Where a setting was set, as msport records it (in English: the editor's "effective settings"
#: view and the tests read it), and its catalogue text for a reader of another language. File
#: paths are shown as they are.
_ORIGINS = {"default": "settings.origin.default", "command line": "settings.origin.command_line",
            "editor settings (msport.*)": "settings.origin.editor"}
_ORIGIN_FORMS = ((re.compile(r"environment \((.*)\)"), "settings.origin.environment", "variable"),
                 (re.compile(r"editor display language \((.*)\)"), "settings.origin.display_language", "locale"))


def origin_text(origin: str, language: str = "en") -> str:
    """*origin* in *language*."""
    if language == "en":
        return origin
    if origin in _ORIGINS:
        return said(_ORIGINS[origin]).text(language)
    for form, key, argument in _ORIGIN_FORMS:
        match = form.fullmatch(origin)
        if match:
            return said(key, **{argument: match.group(1)}).text(language)
    return origin


@dataclass(frozen=True)
class SettingProblem:
    origin: str  # a file path, "editor settings", "command line"
    key: str
    message: str  # in English; ``said`` holds it for every language
    fallback: str = ""  # what msport uses instead
    said: Optional[Said] = None
    fallback_said: Optional[Said] = None

    @classmethod
    def of(cls, origin: str, key: str, reason: Said, fallback: Any = "") -> "SettingProblem":
        """A problem whose reason (and fallback, when it is a text rather than a value) are
        catalogue texts."""
        if isinstance(fallback, Said):
            return cls(origin, key, reason.text(), fallback.text(), reason, fallback)
        return cls(origin, key, reason.text(), fallback, reason)

    def reason(self, language: str = "en") -> str:
        return self.said.text(language) if self.said else self.message

    def text(self, language: str = "en") -> str:
        from ..knowledge.messages import message

        fallback = self.fallback_said.text(language) if self.fallback_said else self.fallback
        where = dict(origin=origin_text(self.origin, language), setting=self.key, reason=self.reason(language))
        return message("settings.problem_fallback", language, fallback=fallback, **where) if fallback else message("settings.problem", language, **where)

    def __str__(self) -> str:
        return self.text()


@dataclass(frozen=True)
class Settings:
    target_version: str = DEFAULT_VERSION
    backend: str = "ascend"
    mode: str = "graph"
    # MindSpore 2.3+ compiles kernel-by-kernel (O0) by default; O2 is whole-graph sinking.
    jit_level: str = "O0"
    select: Tuple[str, ...] = ()
    ignore: Tuple[str, ...] = ()
    severity: Tuple[Tuple[str, Severity], ...] = ()
    per_file_ignores: Tuple[Tuple[str, Tuple[str, ...]], ...] = ()
    exclude: Tuple[str, ...] = ()
    #: Files larger than this many lines get one informational finding instead of a full analysis.
    max_lines: int = 100_000
    #: Seconds of analysis per file; past it the rest of the file is reported as not checked.
    time_budget: float = 10.0
    #: Files larger than this many bytes are not read (one informational finding says so).
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    #: The user's own API rule files (same format as rules/api/*.toml), laid over msport's.
    extend_rules: Tuple[str, ...] = ()
    #: The folder ``exclude`` and ``per-file-ignores`` patterns are relative to: the
    #: pyproject.toml's (the workspace folder's for editor settings); "" matches paths as given.
    project_root: str = ""
    #: The language of every text msport writes ("en", "zh-CN"; knowledge/messages.py).
    language: str = "en"
    problems: Tuple[SettingProblem, ...] = field(default=(), compare=False)
    #: (key, where its value was set: a file path, "editor settings", "command line"), for
    #: `msport check --show-settings` and the editor's msport/effectiveSettings.
    origins: Tuple[Tuple[str, str], ...] = field(default=(), compare=False)

    @property
    def version(self) -> Tuple[int, int]:
        return parse_version(self.target_version)

    def analysis_key(self) -> Tuple:
        """The settings the checks depend on; select/ignore/severity are applied afterwards.
        (The rule files are not: each set of them has its own analyzer, hence its own caches.)"""
        return (self.target_version, self.backend, self.mode, self.jit_level, self.language)

    # -- filters applied to findings -------------------------------------------------
    def is_enabled(self, code: str, path: Optional[str] = None) -> bool:
        if self.select and not _matches(code, self.select):
            return False
        if _matches(code, self.ignore):
            return False
        if path is not None and self.per_file_ignores:
            relative = _relative(path, self.project_root)
            for pattern, codes in self.per_file_ignores:
                if relative is not None and _path_matches(relative, pattern) and _matches(code, codes):
                    return False
        return True

    def severity_for(self, code: str, default: Severity) -> Severity:
        best = None
        for prefix, sev in self.severity:
            if code.startswith(prefix) and (best is None or len(prefix) > len(best[0])):
                best = (prefix, sev)
        return best[1] if best else default

    def is_excluded(self, path: str) -> bool:
        """Whether an ``exclude`` pattern matches *path*, taken relative to the project root:
        ``exclude = ["vendor"]`` never matches a ``vendor`` folder above the project."""
        if not self.exclude:
            return False
        relative = _relative(path, self.project_root)
        return relative is not None and any(_path_matches(relative, pattern) for pattern in self.exclude)

    # -- layering --------------------------------------------------------------------
    def merged(self, values: Mapping[str, Any], origin: str, known_codes: Iterable[str] = (), base_dir: Optional[str] = None) -> "Settings":
        """A copy with *values* (kebab-case or camelCase keys) applied, problems recorded.
        Relative file paths in them are taken from *base_dir* (the pyproject.toml's folder)."""
        known = set(known_codes)
        changes: Dict[str, Any] = {}
        problems: List[SettingProblem] = list(self.problems)
        if not isinstance(values, Mapping):
            problems.append(SettingProblem.of(origin, "msport", said("settings.not_a_table", kind=type(values).__name__), said("settings.fallback.defaults")))
            return replace(self, problems=tuple(problems))
        for raw_key, value in values.items():
            key = _canonical_key(raw_key)
            spec = _KEYS.get(key)
            if spec is None:
                close, known_keys = _closest(key), tuple(sorted(_KEYS))
                reason = said("settings.unknown_close", close=close, known=known_keys) if close else said("settings.unknown", known=known_keys)
                problems.append(SettingProblem.of(origin, raw_key, reason, said("settings.fallback.ignored")))
                continue
            attr, validator = spec
            try:
                changes[attr] = validator(value, known)
                if attr == "extend_rules" and base_dir:
                    changes[attr] = tuple(os.path.join(base_dir, p) for p in changes[attr])
            except SettingError as exc:
                problems.append(SettingProblem.of(origin, raw_key, exc.said, _describe(getattr(self, attr))))
            except (ValueError, RecursionError, TypeError, OverflowError):  # a value no validator foresaw: never a traceback
                problems.append(SettingProblem.of(origin, raw_key, said("settings.cannot_use", value=_shown(value)), _describe(getattr(self, attr))))
        if base_dir and not self.project_root:
            changes["project_root"] = os.path.abspath(base_dir)
        set_keys = {_canonical_key(k) for k in values if _KEYS.get(_canonical_key(k), ("",))[0] in changes}
        origins = tuple((k, o) for k, o in self.origins if k not in set_keys) + tuple((k, origin) for k in sorted(set_keys))
        return replace(self, **changes, problems=tuple(problems), origins=origins)

    def described(self) -> List[Tuple[str, str, str]]:
        """(key, value written as in pyproject.toml, where it was set or "default") for every
        setting: what `--show-settings` prints."""
        where = dict(self.origins)
        return [(key, _as_toml(getattr(self, attr), attr in _TABLES), where.get(key, "default")) for key, (attr, _) in _KEYS.items()]


#: Settings held as (key, value) pairs, written as TOML tables.
_TABLES = frozenset({"severity", "per_file_ignores"})


def _as_toml(value: Any, table: bool = False) -> str:
    if isinstance(value, Enum):
        value = value.value
    if table:
        return "{" + ", ".join(f" {json.dumps(k)} = {_as_toml(v)}" for k, v in value) + (" }" if value else "}")
    if isinstance(value, tuple):
        return "[" + ", ".join(_as_toml(v) for v in value) + "]"
    return json.dumps(value)


def _matches(code: str, prefixes: Iterable[str]) -> bool:
    return any(p == "ALL" or code.startswith(p) for p in prefixes)


@functools.lru_cache(maxsize=4096)
def _relative(path: str, root: str) -> Optional[str]:
    """*path* relative to *root* with forward slashes; None when it lies outside *root*; *path*
    itself when there is no root."""
    if not root:
        return path.replace("\\", "/")
    relative = os.path.relpath(os.path.abspath(path), root)
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        return None
    return relative.replace("\\", "/")


def _path_matches(path: str, pattern: str) -> bool:
    path = path.replace("\\", "/")
    if fnmatch.fnmatch(path, pattern) or fnmatch.fnmatch(path, "*/" + pattern):
        return True
    # A bare directory name excludes everything below it, as in ruff and flake8.
    return f"/{pattern.strip('/')}/" in f"/{path}"


def _describe(value: Any) -> str:
    if isinstance(value, tuple):
        return "[" + ", ".join(str(v if not isinstance(v, tuple) else v[0]) for v in value) + "]"
    return repr(value)


#: Values quoted in messages: a few levels and items deep, so that an array nested thousands of
#: levels deep (which plain repr() cannot print) or a huge table gives a one-line message.
_QUOTE = reprlib.Repr()
_QUOTE.maxlevel, _QUOTE.maxlist, _QUOTE.maxdict, _QUOTE.maxstring, _QUOTE.maxother = 3, 6, 4, 80, 80


def _shown(value: Any) -> str:
    return _QUOTE.repr(value)


# -- validators: each returns the typed value or raises SettingError with the expectation ---

def _one_of(choices: Tuple[str, ...], *, fold=str.lower):
    def check(value: Any, _known) -> str:
        if isinstance(value, str) and fold(value.strip()) in [fold(c) for c in choices]:
            return next(c for c in choices if fold(c) == fold(value.strip()))
        raise SettingError("settings.one_of", choices=tuple(choices), value=_shown(value))
    return check


def _version(value: Any, _known) -> str:
    text = str(value).strip() if isinstance(value, (str, int, float)) else None
    try:
        major, minor = parse_version(text) if text else (None, None)
    except ValueError:
        major = minor = None
    name = f"{major}.{minor}"
    if name not in SUPPORTED_VERSIONS:
        raise SettingError("settings.version", first=SUPPORTED_VERSIONS[0], last=SUPPORTED_VERSIONS[-1], value=_shown(value))
    return name


def _codes(value: Any, known) -> Tuple[str, ...]:
    if isinstance(value, str):
        value = [v for v in value.replace(" ", ",").split(",") if v]
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise SettingError("settings.codes", value=_shown(value))
    codes = tuple(v.strip().upper() for v in value)
    if known:
        unknown = [c for c in codes if c != "ALL" and not any(k.startswith(c) for k in known)]
        if unknown:
            raise SettingError("settings.unknown_codes", codes=tuple(unknown))
    return codes


def _severity_map(value: Any, known) -> Tuple[Tuple[str, Severity], ...]:
    if not isinstance(value, Mapping):
        raise SettingError("settings.severity_table", value=_shown(value))
    result = []
    for code, sev in value.items():
        _codes([code], known)
        try:
            if not isinstance(sev, str):
                raise ValueError(sev)
            result.append((str(code).upper(), Severity(sev.lower())))
        except ValueError:
            raise SettingError("settings.severity_value", code=code, value=_shown(sev)) from None
    return tuple(sorted(result))


def _per_file(value: Any, known) -> Tuple[Tuple[str, Tuple[str, ...]], ...]:
    if not isinstance(value, Mapping):
        raise SettingError("settings.per_file", value=_shown(value))
    return tuple(sorted((str(k), _codes(v, known)) for k, v in value.items()))


def _globs(value: Any, _known) -> Tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise SettingError("settings.globs", value=_shown(value))
    return tuple(value)


def _positive_number(value: Any, _known) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise SettingError("settings.seconds", value=_shown(value))
    return float(value)


def _rule_files(value: Any, _known) -> Tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) and v.strip() for v in value):
        raise SettingError("settings.rule_files", value=_shown(value))
    return tuple(os.path.expanduser(v.strip()) for v in value)


_SIZE_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "kib": 2**10, "mib": 2**20, "gib": 2**30}


def _size(value: Any, _known) -> int:
    """A size in bytes: a whole number, or a string such as "10 MB", "512 kB", "1 GiB"."""
    size = None
    if isinstance(value, int) and not isinstance(value, bool):
        size = value
    elif isinstance(value, str):
        number = value.strip().rstrip("bBiIkKmMgG ").strip()
        unit = value.strip()[len(number):].strip().lower()
        try:
            size = int(float(number) * _SIZE_UNITS[unit]) if unit in _SIZE_UNITS else None
        except ValueError:
            size = None
    if size is None or size <= 0:
        raise SettingError("settings.size", value=_shown(value))
    return size


def _language(value: Any, _known) -> str:
    from ..knowledge.messages import LANGUAGES, language_of

    primary = value.strip().replace("_", "-").split("-")[0].lower() if isinstance(value, str) else ""
    if primary in ("en", "zh"):
        return language_of(value)
    raise SettingError("settings.one_of", choices=tuple(LANGUAGES), value=_shown(value))


def _positive_int(value: Any, _known) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise SettingError("settings.positive_int", value=_shown(value))
    return value


_KEYS = {
    "target-version": ("target_version", _version),
    "backend": ("backend", _one_of(BACKENDS)),
    "mode": ("mode", _one_of(MODES)),
    "jit-level": ("jit_level", _one_of(JIT_LEVELS, fold=str.upper)),
    "select": ("select", _codes),
    "ignore": ("ignore", _codes),
    "severity": ("severity", _severity_map),
    "per-file-ignores": ("per_file_ignores", _per_file),
    "exclude": ("exclude", _globs),
    "max-lines": ("max_lines", _positive_int),
    "time-budget": ("time_budget", _positive_number),
    "max-file-size": ("max_file_size", _size),
    "extend-rules": ("extend_rules", _rule_files),
    "language": ("language", _language),
}

#: Keys an editor may send that are the client's business, not the analysis's.
CLIENT_ONLY_KEYS = frozenset({
    "interpreter", "import-strategy", "path", "show-notifications", "trace", "enable", "args",
})


def _canonical_key(key: str) -> str:
    out = []
    for ch in str(key):
        if ch.isupper():
            out.append("-" + ch.lower())
        else:
            out.append("-" if ch == "_" else ch)
    return "".join(out).lstrip("-")


def _closest(key: str) -> Optional[str]:
    import difflib

    match = difflib.get_close_matches(key, list(_KEYS), n=1, cutoff=0.6)
    return match[0] if match else None


def editor_values(values: Mapping[str, Any]) -> Dict[str, Any]:
    """Drop the client-side keys an editor sends along with analysis settings."""
    if not isinstance(values, Mapping):
        return values  # type: ignore[return-value]
    return {k: v for k, v in values.items() if _canonical_key(k) not in CLIENT_ONLY_KEYS}
