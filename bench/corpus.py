"""The files every measurement runs on: real model code and concatenations of it.

The real code is timm (pytorch-image-models) from its PyPI wheel (version pinned below), plus
the repository's examples/.
Concatenations of timm's model files (taken in name order until the line count is reached) give
files of about 1k, 3k, 7k and 28k lines; they stay valid Python, so ``ast.parse`` and both
servers see the same well-formed module.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
WORK = BENCH / "work"
#: The corpus: downloaded with `pip download --no-deps`, never installed. Pinned, so that every run
#: and every machine measures the same text.
TIMM = "timm==1.0.31"

#: name -> target line count of a concatenation.
CONCAT_SIZES = {"concat_1k": 1_000, "concat_3k": 3_000, "concat_7k": 7_000, "concat_28k": 28_000}
#: Real files measured as they are (relative to the timm package or the repository).
REAL_FILES = {
    "examples/yolox_head.py": REPO / "examples" / "yolox_head.py",
    "timm/models/resnet.py": None,
    "timm/models/vision_transformer.py": None,
}


@dataclass(frozen=True)
class BenchFile:
    name: str
    path: Path
    text: str

    @property
    def lines(self) -> int:
        return self.text.count("\n") + (0 if self.text.endswith("\n") else 1)


def timm_tree(python: str = sys.executable) -> Path:
    """timm's sources unpacked from its wheel (downloaded once into bench/work/downloads)."""
    requirement = TIMM
    version = requirement.split("==", 1)[1]
    target = WORK / "corpus" / f"timm-{version}"
    if (target / "timm" / "__init__.py").exists():
        return target / "timm"
    downloads = WORK / "downloads"
    downloads.mkdir(parents=True, exist_ok=True)
    wheels = sorted(downloads.glob(f"timm-{version}-*.whl"))
    if not wheels:
        subprocess.run(
            [python, "-m", "pip", "download", "--no-deps", "--quiet", "--dest", str(downloads), requirement],
            check=True,
        )
        wheels = sorted(downloads.glob(f"timm-{version}-*.whl"))
    partial = target.with_suffix(".partial")
    shutil.rmtree(partial, ignore_errors=True)
    with zipfile.ZipFile(wheels[0]) as wheel:
        for member in wheel.namelist():
            if member.startswith("timm/"):
                wheel.extract(member, partial)
    shutil.rmtree(target, ignore_errors=True)
    partial.rename(target)
    return target / "timm"


def python_files(tree: Path) -> List[Path]:
    return sorted(p for p in tree.rglob("*.py") if p.is_file())


def count_lines(paths: List[Path]) -> int:
    return sum(p.read_bytes().count(b"\n") for p in paths)


def _without_future_imports(text: str) -> str:
    # `from __future__` is only legal at the top of a module; the concatenation has one there.
    return "\n".join(line for line in text.split("\n") if not line.startswith("from __future__ import"))


def concatenation(sources: List[Path], target_lines: int) -> str:
    """Whole files in name order, skipping any that would overshoot the target by more than 5%."""
    parts = ["from __future__ import annotations\n"]
    total = 1
    for path in sources:
        text = _without_future_imports(path.read_text(encoding="utf-8"))
        if not text.endswith("\n"):
            text += "\n"
        size = text.count("\n") + 2
        if total + size > target_lines * 1.05:
            continue
        parts.append(f"# ---- {path.name} ----\n{text}\n")
        total += size
        if total >= target_lines * 0.95:
            break
    return "".join(parts)


def build(timm: Path, quick: bool = False) -> Dict[str, BenchFile]:
    """Write the LSP corpus into bench/work/lsp/ and return it by name (real files first)."""
    out = WORK / "lsp"
    out.mkdir(parents=True, exist_ok=True)
    files: Dict[str, BenchFile] = {}
    for name, path in REAL_FILES.items():
        path = path or timm.parent / name
        files[name] = BenchFile(name, path, path.read_text(encoding="utf-8"))
    models = python_files(timm / "models")
    for name, size in CONCAT_SIZES.items():
        path = out / f"{name}.py"
        text = concatenation(models, size)
        ast.parse(text)  # a concatenation that does not parse would measure error recovery instead
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
        files[name] = BenchFile(name, path, text)
    return files


def variant(text: str, index: int) -> str:
    """*text* with a comment after every top-level statement, distinct per *index*.

    Each repetition of a cold open gets text no server has seen, so that a cache keyed by
    chunk text (msport's) cannot answer it: every top-level chunk differs from earlier runs.
    """
    if index == 0:
        return text
    lines = text.split("\n")
    for node in ast.parse(text).body:
        last = (node.end_lineno or node.lineno) - 1
        lines[last] = f"{lines[last]}  # bench variant {index}"
    return "\n".join(lines)


def edit_site(text: str) -> Tuple[int, str]:
    """(0-based line, indentation) of a simple statement inside a function near the middle.

    Edits are typed there: a realistic keystroke lands inside one function body, not at the
    top of the file (which would touch imports) or at the end.
    """
    tree = ast.parse(text)
    middle = text.count("\n") // 2
    best: Optional[Tuple[int, int, str]] = None
    lines = text.split("\n")
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for stmt in node.body:
            if isinstance(stmt, (ast.Assign, ast.Return, ast.AugAssign)) and stmt.lineno == stmt.end_lineno:
                line = stmt.lineno - 1
                indent = lines[line][: len(lines[line]) - len(lines[line].lstrip())]
                distance = abs(line - middle)
                if best is None or distance < best[0]:
                    best = (distance, line, indent)
                break
    if best is None:
        raise ValueError("no function body to type into")
    return best[1], best[2]


def hover_sites(text: str, limit: int) -> List[Tuple[int, int, str]]:
    """Up to *limit* (line, UTF-16 column, dotted name) positions on torch API names, spread evenly."""
    roots = {"torch", "nn", "F"}
    found: List[Tuple[int, int, str]] = []
    lines = text.split("\n")
    nodes = list(ast.walk(ast.parse(text)))
    # Only the outermost name of a chain: `torch.nn.functional.relu`, not `torch.nn` inside it.
    inner = {id(n.value) for n in nodes if isinstance(n, ast.Attribute)}
    for node in nodes:
        if not isinstance(node, ast.Attribute) or node.lineno != node.end_lineno or id(node) in inner:
            continue
        base = node.value
        parts = [node.attr]
        while isinstance(base, ast.Attribute):
            parts.append(base.attr)
            base = base.value
        if not isinstance(base, ast.Name) or base.id not in roots:
            continue
        line = node.end_lineno - 1
        # ast columns are UTF-8 byte offsets; LSP (UTF-16 negotiated by default) needs code units.
        raw = lines[line].encode("utf-8")[: node.end_col_offset - 1].decode("utf-8", "replace")
        column = len(raw.encode("utf-16-le")) // 2
        found.append((line, column, ".".join([base.id, *reversed(parts)])))
    found.sort()
    if len(found) <= limit:
        return found
    step = len(found) / limit
    return [found[int(i * step)] for i in range(limit)]
