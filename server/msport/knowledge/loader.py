"""Load and validate the rule data in ``rules/``.

Rules are data, so they are checked like input: every problem names the file, the entry and
the field, and one bad entry never hides the others. The bundled rules must load without a
single problem (a test asserts it); a user's extra rules file may not, and then its bad
entries are skipped and reported.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, List, Mapping, Optional, Tuple

from ..regular_files import read_regular_file
from . import toml
from .model import ALL_BACKENDS, STATUSES, ApiRule, Target, Version

SEVERITIES = ("error", "warning", "info", "hint")
CATEGORIES = ("missing-api", "divergent-api", "equivalent-api", "dynamic-shape", "graph-mode", "replacement", "second-order", "sparse", "syntax-error", "config")
FIRST_VERSION: Version = (2, 2)
LAST_VERSION: Version = (2, 10)


@dataclass(frozen=True)
class RuleProblem:
    file: str
    entry: str
    field: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}"
        if self.entry:
            where += f", {self.entry}"
        if self.field:
            where += f", field '{self.field}'"
        return f"{where}: {self.message}"


class RuleFileError(Exception):
    """Raised by ``read_toml`` when a file is not readable TOML."""


def rules_dir() -> Path:
    """The bundled rules: beside the package in a wheel, at the repository top in a checkout."""
    here = Path(__file__).resolve().parent.parent
    packaged = here / "rules"
    if packaged.is_dir():
        return packaged
    return here.parent.parent / "rules"


#: Largest rule file read. msport's biggest is ~0.2 MB; a user's file (setting extend-rules)
#: larger than this is a mistake or a hostile repository (a link to /dev/zero).
MAX_RULE_FILE_SIZE = 16_000_000


def read_toml(path: Path) -> Dict[str, Any]:
    """A rule file's data. Only a regular file of at most MAX_RULE_FILE_SIZE bytes is read: a
    FIFO or a device named in extend-rules is refused, never opened (it could block or never end)."""
    from .cache import toml_document  # cache.py imports model.py, as this module does

    try:
        # Through a JSON copy keyed by the text (knowledge/cache.py): the rule files are read at
        # every start of the server, and JSON reads them back ~10x faster than tomllib parses.
        # Named by folder and file: rules/ and rules/messages/ hold files of the same name.
        text = read_regular_file(path, MAX_RULE_FILE_SIZE).decode("utf-8")
        return toml_document(f"{path.parent.name}.{path.stem}", text, toml.loads)
    except RecursionError:
        raise RuleFileError(f"{path}: its arrays or tables are nested too deeply to read") from None
    except OSError as exc:
        raise RuleFileError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise RuleFileError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except toml.TOMLDecodeError as exc:
        raise RuleFileError(f"{path}: invalid TOML: {exc}") from None


def file_problem(file: str, exc: RuleFileError) -> RuleProblem:
    """A rule file that cannot be read, as the problem naming it (the error less its path)."""
    return RuleProblem(file, "", "", str(exc).split(": ", 1)[-1])


def toml_parser(file: str):
    """A TOML parser for the text of the rule file *file* whose error names the file, as
    ``read_toml``'s do (for text read in parts or through the parse cache)."""
    def parse(text: str) -> Dict[str, Any]:
        try:
            return toml.loads(text)
        except toml.TOMLDecodeError as exc:
            raise RuleFileError(f"{file}: invalid TOML: {exc}") from None

    return parse


class _Entry:
    """Typed access to one TOML table that records a problem for each bad field."""

    def __init__(self, table: Mapping[str, Any], file: str, entry: str, problems: List[RuleProblem]):
        self.table, self.file, self.entry, self.problems = table, file, entry, problems
        #: Whether a text a person reads must carry its translations (said()).
        self.translations_required = True

    def problem(self, field: str, message: str) -> None:
        self.problems.append(RuleProblem(self.file, self.entry, field, message))

    def text(self, field: str, *, required: bool = False, choices: Iterable[str] = ()) -> Optional[str]:
        value = self.table.get(field)
        if value is None:
            if required:
                self.problem(field, "is required")
            return None
        if not isinstance(value, str) or not value.strip():
            self.problem(field, f"expected a non-empty string, got {value!r}")
            return None
        choices = tuple(choices)
        if choices and value not in choices:
            self.problem(field, f"expected one of {', '.join(choices)}, got {value!r}")
            return None
        return value

    def said(self, field: str, table: Optional[Mapping[str, Any]] = None, prefix: str = "") -> Optional[str]:
        """A text a person reads (a note, a consequence) with its translations (``note_zh-CN``),
        from *table* (default: the entry's own); a problem names ``prefix + field``. The bundled
        rules must carry every translation; a user's rule file may leave them out (English is
        shown in their place)."""
        from .rule_texts import read_text  # rule_texts reads RuleProblem from here

        table = self.table if table is None else table
        if table.get(field) is None:
            return None
        found: List[RuleProblem] = []
        text = read_text(table, field, self.file, self.entry, found)
        for problem in found:
            if self.translations_required or table.get(problem.field) is not None:
                self.problem(prefix + problem.field, problem.message)
        return text

    def strings(self, field: str) -> Tuple[str, ...]:
        value = self.table.get(field, [])
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return tuple(value)
        self.problem(field, f"expected a list of strings, got {value!r}")
        return ()

    def unknown_fields(self, allowed: Iterable[str]) -> None:
        allowed = set(allowed)
        for key in self.table:
            if key not in allowed:
                self.problem(key, f"unknown field; expected one of {', '.join(sorted(allowed))}")


def parse_versions(text: str) -> Tuple[Version, Version]:
    """``"2.5-"``, ``"-2.6"``, ``"2.3-2.8"`` or ``"2.4"`` -> inclusive (first, last)."""
    lo, sep, hi = text.partition("-")
    first = _version(lo) if lo.strip() else FIRST_VERSION
    last = _version(hi) if hi.strip() else (LAST_VERSION if sep else first)
    if first > last:
        raise ValueError(f"range {text!r} is empty")
    return first, last


def _version(text: str) -> Version:
    parts = text.strip().split(".")
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        raise ValueError(f"{text!r} is not a MindSpore version like 2.5")
    return int(parts[0]), int(parts[1])


def entries(tables: List[Any], file: str, kind: str, key: str, problems: List[RuleProblem]) -> Iterator[_Entry]:
    """Each table of an array of tables, labelled "<kind> #n (<its key>)"; one that is not a
    table is a problem, and skipped."""
    for index, table in enumerate(tables):
        label = f"{kind} #{index + 1} ({table.get(key, '?')})" if isinstance(table, dict) else f"{kind} #{index + 1}"
        if not isinstance(table, dict):
            problems.append(RuleProblem(file, label, "", "expected a table"))
            continue
        yield _Entry(table, file, label, problems)


_API_FIELDS = (
    "torch", "status", "mindspore", "note", "note_zh-CN", "diff", "consequence", "consequence_zh-CN", "versions",
    "backends", "targets", "aliases", "renames", "basis", "torch_removed",
)
_TARGET_FIELDS = ("mindspore", "versions", "backends", "status", "note", "note_zh-CN", "renames", "diff", "consequence",
                  "consequence_zh-CN", "tables")
BASES = ("tables", "curated", "inferred")


def load_api_rules(path: Path, problems: List[RuleProblem], label: Optional[str] = None) -> List[ApiRule]:
    """The rules of one file; *label* names it in problems (default: its file name)."""
    data = read_toml(path)
    file_label = label or path.name
    tables = data.get("api", [])
    if not isinstance(tables, list) or (label and not tables):
        # A user's file (with a label) that defines nothing is a mistake worth naming.
        problems.append(RuleProblem(file_label, "", "api", f"expected [[api]] tables (found keys: {', '.join(sorted(data)) or 'none'})"))
        return []
    rules = []
    for entry in entries(tables, file_label, "entry", "torch", problems):
        entry.translations_required = label is None  # a user's own rules may be English only
        before = len(problems)
        rule = _api_rule(entry)
        if rule is not None and len(problems) == before:
            rules.append(rule)
    return rules


def _api_rule(entry: _Entry) -> Optional[ApiRule]:
    entry.unknown_fields(_API_FIELDS)
    torch = entry.text("torch", required=True)
    status = entry.text("status", required=True, choices=STATUSES)
    note = entry.said("note") or ""
    default = _target(entry, entry.table, "")
    targets: List[Target] = []
    subs = entry.table.get("targets", [])
    if not isinstance(subs, list):
        entry.problem("targets", "expected a list of inline tables")
        subs = []
    for position, sub in enumerate(subs):
        if not isinstance(sub, dict):
            entry.problem(f"targets[{position}]", "expected an inline table")
            continue
        sub_entry = _Entry(sub, entry.file, entry.entry, entry.problems)
        sub_entry.translations_required = entry.translations_required
        sub_entry.unknown_fields(_TARGET_FIELDS)
        target = _target(sub_entry, sub, f"targets[{position}].", inherit=default)
        if target:
            targets.append(target)
    if not targets and default and (default.mindspore or status == "missing"):
        targets.append(default)
    if status is not None and status != "missing" and not any(t.mindspore for t in targets):
        entry.problem("mindspore", f"a {status} API needs a MindSpore target ('mindspore' or 'targets')")
    # A target's own fields win; the entry's note, diff and consequence describe the targets
    # that share the entry's status (an equivalent mint target must not inherit the note of a
    # divergent ops target).
    resolved = []
    consequence = entry.said("consequence")
    for position, target in enumerate(targets):
        target_status = target.status or status
        shares = target_status == status
        target = replace(
            target,
            status=target_status,
            note=target.note or (note if shares else None) or None,
            diff=target.diff or (entry.table.get("diff") if shares else None) or None,
            consequence=target.consequence or (consequence if shares else None) or None,
        )
        if target_status in ("divergent", "missing") and not target.note:
            field = "note" if "targets" not in entry.table else f"targets[{position}].note"
            entry.problem(field, f"is required when status is {target_status}: say what differs or why it is missing")
        resolved.append(target)
    if not targets and status in ("divergent", "missing") and not note:
        entry.problem("note", f"is required when status is {status}: say what differs or why it is missing")
    basis = entry.text("basis", choices=BASES) or "curated"
    if not torch or not status:
        return None
    return ApiRule(
        torch=torch,
        status=status,
        note=note,
        diff=entry.text("diff"),
        consequence=consequence,
        targets=tuple(resolved),
        aliases=entry.strings("aliases"),
        origin=f"{entry.file}, {entry.entry}",
        basis=basis,
        torch_removed=entry.text("torch_removed"),
    )


def _target(entry: _Entry, table: Mapping[str, Any], prefix: str, inherit: Optional[Target] = None) -> Optional[Target]:
    first, last = (inherit.first, inherit.last) if inherit else (FIRST_VERSION, LAST_VERSION)
    if "versions" in table:
        try:
            first, last = parse_versions(str(table["versions"]))
        except ValueError as exc:
            entry.problem(prefix + "versions", str(exc))
            return None
    backends = inherit.backends if inherit else ALL_BACKENDS
    if "backends" in table:
        names = table["backends"]
        if not isinstance(names, list) or not set(names) <= ALL_BACKENDS or not names:
            entry.problem(prefix + "backends", f"expected a non-empty list drawn from ascend, gpu, cpu, got {names!r}")
            return None
        backends = frozenset(names)
    renames = table.get("renames", {})
    if not isinstance(renames, dict) or not all(isinstance(v, str) for v in renames.values()):
        entry.problem(prefix + "renames", f"expected a table of torch_name = \"mindspore_name\", got {renames!r}")
        renames = {}
    status = table.get("status") if prefix else None
    if status is not None and status not in STATUSES:
        entry.problem(prefix + "status", f"expected one of {', '.join(STATUSES)}, got {status!r}")
    mindspore = table.get("mindspore", inherit.mindspore if inherit else None)
    if mindspore is not None and (not isinstance(mindspore, str) or not mindspore.startswith("mindspore")):
        entry.problem(prefix + "mindspore", f"expected a qualified name starting with 'mindspore', got {mindspore!r}")
        return None
    for name in ("note", "diff", "consequence", "tables"):
        value = table.get(name)
        if prefix and value is not None and (not isinstance(value, str) or not value.strip()):
            entry.problem(prefix + name, f"expected a non-empty string, got {value!r}")
    return Target(
        mindspore=mindspore,
        first=first,
        last=last,
        backends=backends,
        status=status,
        note=entry.said("note", table, prefix) if prefix else None,
        renames=tuple(sorted(renames.items())) or (inherit.renames if inherit else ()),
        diff=table.get("diff") if prefix else None,
        consequence=entry.said("consequence", table, prefix) if prefix else None,
        tables=table.get("tables") if prefix else None,
    )
