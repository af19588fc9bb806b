"""A compiled cache of the validated API rules, so that the editor does not re-parse TOML.

Parsing and validating ~1,300 rules takes about 0.3 s; reading them back from JSON takes a
few milliseconds. The cache is keyed by the bytes of every rule file and of the loader's own
code, so any change to either rebuilds it. It is plain JSON (never pickle: a cache directory
must not be a way to run code) in ``$MSPORT_CACHE_DIR`` or the user's cache directory, and any
failure to read or write it just falls back to parsing.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Iterable, List, Optional

from .model import ApiRule, Target
from .rule_texts import RuleText

_FORMAT = 2
_CODE = [Path(__file__).with_name(name) for name in ("loader.py", "model.py", "cache.py", "rule_texts.py")]
#: The fields a person reads, kept with their translations: [english, {language: text}].
_TEXTS = ("note", "consequence")


def cache_dir() -> Optional[Path]:
    if os.environ.get("MSPORT_NO_CACHE"):
        return None
    explicit = os.environ.get("MSPORT_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or (Path.home() / ".cache")
    return Path(base) / "msport"


def key(files: Iterable[Path]) -> str:
    digest = hashlib.sha256(str(_FORMAT).encode())
    for path in [*_CODE, *files]:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:32]


def _compact(data: dict) -> dict:
    """Leave out empty fields (the dataclass defaults): the cache stays small and fast to read."""
    return {k: v for k, v in data.items() if v not in (None, (), "", [])}


def _texts(data: dict, decode: bool = False) -> dict:
    for name in _TEXTS:
        value = data.get(name)
        if decode and isinstance(value, list):
            data[name] = RuleText(value[0], value[1].items())
        elif not decode and isinstance(value, RuleText):
            data[name] = [str(value), dict(value.translations)]
    return data


def _encode(rule: ApiRule) -> dict:
    data = _texts(_compact(dict(rule.__dict__, targets=())))
    data["targets"] = [_texts(_compact(dict(t.__dict__, backends="".join(sorted(b[0] for b in t.backends))))) for t in rule.targets]
    return data


_BACKENDS = {"a": "ascend", "c": "cpu", "g": "gpu"}


def _decode(data: dict) -> ApiRule:
    targets = tuple(
        Target(**dict(_texts(t, decode=True), mindspore=t.get("mindspore"), first=tuple(t["first"]), last=tuple(t["last"]), backends=frozenset(_BACKENDS[b] for b in t["backends"]),
                      renames=tuple(tuple(r) for r in t.get("renames", ()))))
        for t in data["targets"]
    )
    return ApiRule(**dict(_texts(data, decode=True), targets=targets, aliases=tuple(data.get("aliases", ()))))


def read(cache_key: str) -> Optional[List[ApiRule]]:
    directory = cache_dir()
    if directory is None:
        return None
    try:
        payload = json.loads((directory / f"rules-{cache_key}.json").read_text(encoding="utf-8"))
        return [_decode(item) for item in payload["rules"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def write(cache_key: str, rules: List[ApiRule]) -> None:
    directory = cache_dir()
    if directory is None:
        return
    try:
        directory.mkdir(parents=True, exist_ok=True)
        for old in directory.glob("rules-*.json"):
            old.unlink()
        # Write then rename: a concurrent reader never sees half a file.
        handle, temp = tempfile.mkstemp(dir=directory, suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump({"rules": [_encode(r) for r in rules]}, out)
        os.replace(temp, directory / f"rules-{cache_key}.json")
    except OSError:
        pass


def toml_document(name: str, text: str, parse) -> dict:
    """*text* (a part of rules file *name*) parsed by *parse* (TOML text -> dict), through a JSON
    copy cached by the text: the measured support tables are hundreds of kilobytes, which tomllib
    takes ~0.1 s to parse and JSON ~2 ms. Any failure to use the cache just parses."""
    directory = cache_dir()
    if directory is None:
        return parse(text)
    digest = hashlib.sha256(f"{_FORMAT}\n{text}".encode("utf-8")).hexdigest()[:32]
    cached = directory / f"toml-{name}-{digest}.json"
    try:
        return json.loads(cached.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        pass
    data = parse(text)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        for old in directory.glob(f"toml-{name}-*.json"):
            old.unlink()
        handle, temp = tempfile.mkstemp(dir=directory, suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(data, out)
        os.replace(temp, cached)
    except (OSError, TypeError, ValueError):
        pass
    return data
