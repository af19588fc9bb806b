"""``msport`` command line. Exit status: 0 nothing found, 1 findings, 2 usage or configuration error."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Dict, Optional, Sequence

from .. import __version__

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="msport",
        description="MindSpore porting assistant: PyTorch APIs missing or divergent in MindSpore, and dynamic-shape constructs.",
    )
    parser.add_argument("--version", action="version", version=f"msport {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    check = commands.add_parser("check", help="check Python files and directories")
    check.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    check.add_argument("--format", choices=("text", "json", "sarif"), default="text")
    check.add_argument("--output", "-o", type=Path, help="write the report to this file instead of standard output")
    check.add_argument("--fix", action="store_true", help="apply the safe fixes to the files, then report what is left")
    check.add_argument("--unsafe-fixes", action="store_true", help="with --fix: apply the unsafe fixes too")
    _add_setting_flags(check)

    serve = commands.add_parser("serve", help="run the language server (stdio by default)")
    serve.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio")
    # vscode-languageclient appends --stdio for the stdio transport; it is the default anyway.
    serve.add_argument("--stdio", action="store_true", help="use standard input and output (the default)")

    rules = commands.add_parser("rules", help="list every rule code")
    rules.add_argument("--format", choices=("text", "json"), default="text")

    explain = commands.add_parser("explain", help="what msport knows about one PyTorch or MindSpore API, or a rule code")
    explain.add_argument("name", help="a qualified name (torch.nn.GELU, mindspore.ops.cat), a unique tail (Tensor.view) or a code (MS101)")
    _add_setting_flags(explain, checks=False)

    report = commands.add_parser("report", help="project migration report: API uses by status, top missing/divergent APIs, readiness")
    report.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    report.add_argument("--format", choices=("html", "md", "csv", "json"), help="default: from the -o file's extension, else md")
    report.add_argument("--output", "-o", type=Path, help="write the report to this file instead of standard output")
    report.add_argument("--source-url", metavar="TEMPLATE", help="link lines to e.g. https://git.example.com/repo/blob/main/{path}#L{line}")
    _add_setting_flags(report)
    return parser


def _add_setting_flags(parser: argparse.ArgumentParser, checks: bool = True) -> None:
    parser.add_argument("--target-version", metavar="V", help="MindSpore version to port to (2.2 ... 2.10; default 2.10)")
    parser.add_argument("--backend", metavar="B", help="ascend, gpu or cpu (default ascend)")
    if checks:
        parser.add_argument("--mode", metavar="M", help="graph or pynative (default graph)")
        parser.add_argument("--jit-level", metavar="L", help="O0, O1 or O2 (default O0)")
        parser.add_argument("--select", metavar="CODES", help="comma-separated codes or prefixes to report (e.g. MS1,MS201)")
        parser.add_argument("--ignore", metavar="CODES", help="comma-separated codes or prefixes to leave out")


def _flag_values(args: argparse.Namespace) -> Dict[str, str]:
    names = ("target_version", "backend", "mode", "jit_level", "select", "ignore")
    return {name.replace("_", "-"): getattr(args, name) for name in names if getattr(args, name, None) is not None}


def main(argv: Optional[Sequence[str]] = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:
        # `msport check . | head`: the reader left; that is not an error worth a traceback.
        sys.stderr.close()
        return EXIT_CLEAN


def _main(argv: Optional[Sequence[str]] = None) -> int:
    args = _parser().parse_args(argv)
    if args.command is None:
        _parser().print_help()
        return EXIT_ERROR
    if args.command == "serve":
        from ..lsp.server import run

        return run(args.tcp)
    if args.command == "rules":
        from .rules import print_rules

        return print_rules(args.format)
    if args.command == "explain":
        from .explain import explain

        return explain(args.name, _flag_values(args))
    if args.command == "report":
        from .report import report

        return report(args.paths, args.format, args.output, _flag_values(args), args.source_url)
    return check(args)


def check(args: argparse.Namespace) -> int:
    from ..analysis.engine import Analyzer
    from ..analysis.settings import Settings
    from ..config import settings_for
    from .files import python_files, read_source
    from .output import format_json, format_sarif, format_text, summary

    analyzer = Analyzer()
    known = analyzer.knowledge.codes
    flags = _flag_values(args)
    flag_settings = Settings().merged(flags, "command line", known)
    if args.unsafe_fixes and not args.fix:
        print("msport: error: --unsafe-fixes applies fixes only together with --fix", file=sys.stderr)
        return EXIT_ERROR
    fixed_count = 0
    if flag_settings.problems:
        for problem in flag_settings.problems:
            print(f"msport: error: --{problem.key}: {problem.message}", file=sys.stderr)
        return EXIT_ERROR
    missing = [str(p) for p in args.paths if not p.exists()]
    if missing:
        print(f"msport: error: no such file or directory: {', '.join(missing)}", file=sys.stderr)
        return EXIT_ERROR

    reported_problems = set()
    config_error = False
    results = []
    files_checked = 0
    stream = args.format == "text" and args.output is None
    for path in python_files(list(args.paths)):
        settings, _ = settings_for(path.resolve(), known_codes=known)
        if flags:
            settings = settings.merged(flags, "command line", known)
        for problem in settings.problems:
            config_error = True
            if problem not in reported_problems:
                reported_problems.add(problem)
                print(f"msport: configuration error: {problem}", file=sys.stderr)
        display = str(path)
        if settings.is_excluded(path.as_posix()):
            continue
        try:
            text, note = read_source(path)
        except OSError as exc:
            print(f"msport: error: {display}: cannot read: {exc.strerror or exc}", file=sys.stderr)
            config_error = True
            continue
        if note:
            print(f"msport: warning: {display}: {note}", file=sys.stderr)
        if args.fix and not note:  # never write back a file whose bytes could not be decoded
            from .fixing import fix_file

            text, applied = fix_file(path, text, analyzer, settings, display, args.unsafe_fixes)
            fixed_count += applied
        result = analyzer.analyze(text, settings, display)
        files_checked += 1
        findings = result.findings if args.format == "text" else result.findings_with_complete_fixes()
        results.append((display, findings))
        if stream:
            for line in format_text([(display, result.findings)]):
                print(line)

    if args.format == "text":
        body = "\n".join(format_text(results)) if not stream else ""
        body = (body + "\n" if body else "") + summary(results, files_checked)
        if args.fix:
            body += f" Applied {fixed_count} fix{'es' * (fixed_count != 1)}."
    elif args.format == "json":
        body = format_json(results)
    else:
        body = format_sarif(results, known)
    if args.output is not None:
        args.output.write_text(body + "\n", encoding="utf-8")
    else:
        print(body)
    if config_error:
        return EXIT_ERROR
    return EXIT_FINDINGS if any(findings for _, findings in results) else EXIT_CLEAN
