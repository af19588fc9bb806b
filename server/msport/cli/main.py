"""``msport`` command line. Exit status: 0 nothing found, 1 findings, 2 usage or configuration error
(or a file that could not be read or checked), 130 interrupted (Ctrl-C)."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from contextlib import closing
from pathlib import Path
from typing import Dict, Optional, Sequence

from .. import __version__

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
EXIT_INTERRUPTED = 130  # what a shell reports for a program stopped by Ctrl-C (128 + SIGINT)


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
    check.add_argument("--show-settings", action="store_true", help="print the settings that govern each PATH and where each comes from, and check nothing")
    _add_jobs_flag(check)
    _add_setting_flags(check)

    serve = commands.add_parser("serve", help="run the language server (stdio by default)")
    serve.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio")
    # vscode-languageclient appends --stdio for the stdio transport; it is the default anyway.
    serve.add_argument("--stdio", action="store_true", help="use standard input and output (the default)")

    commands.add_parser("mcp", help="serve check, explain and fix to coding agents over the Model Context Protocol (stdio)")

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
    _add_jobs_flag(report)
    _add_setting_flags(report)

    from .weights import add_parsers

    add_parsers(commands)  # convert-weights, port-check
    return parser


def _add_jobs_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-j", "--jobs", type=_jobs, metavar="N",
        help="check files in N worker processes side by side (default: one per usable CPU; 1: all in this process)",
    )


def _jobs(value: str) -> int:
    # argparse turns this error into "argument -j/--jobs: ..." and exit status 2.
    try:
        jobs = int(value)
    except ValueError:
        jobs = 0
    if jobs < 1:
        raise argparse.ArgumentTypeError(f"expected a positive whole number of processes, got {value!r}")
    return jobs


def _jobs_or_default(args: argparse.Namespace) -> int:
    from .parallel import usable_cpus

    return args.jobs or usable_cpus()


def _add_setting_flags(parser: argparse.ArgumentParser, checks: bool = True) -> None:
    parser.add_argument("--target-version", metavar="V", help="MindSpore version to port to (2.2 ... 2.10; default 2.10)")
    parser.add_argument("--lang", dest="language", metavar="LANG", help="language of msport's texts: en or zh-CN (default: from LC_ALL, LC_MESSAGES or LANG)")
    parser.add_argument("--backend", metavar="B", help="ascend, gpu or cpu (default ascend)")
    if checks:
        parser.add_argument("--mode", metavar="M", help="graph or pynative (default graph)")
        parser.add_argument("--jit-level", metavar="L", help="O0, O1 or O2 (default O0)")
        parser.add_argument("--select", metavar="CODES", help="comma-separated codes or prefixes to report (e.g. MS1,MS201)")
        parser.add_argument("--ignore", metavar="CODES", help="comma-separated codes or prefixes to leave out")
        parser.add_argument(
            "--extend-rules", metavar="FILE", action="append",
            help="a TOML file of your own API rules, laid over msport's (repeatable; replaces extend-rules of pyproject.toml)",
        )


def _flag_values(args: argparse.Namespace) -> Dict[str, str]:
    names = ("target_version", "backend", "mode", "jit_level", "select", "ignore", "extend_rules", "language")
    return {name.replace("_", "-"): getattr(args, name) for name in names if getattr(args, name, None) is not None}


def main(argv: Optional[Sequence[str]] = None) -> int:
    if argv is None:  # msport as a program (not called by a test or a host process): its own collector settings
        from .. import gc_tuning

        gc_tuning.starting()
    try:
        return _main(argv)
    except BrokenPipeError:
        # `msport check . | head`: the reader left; that is not an error worth a traceback.
        sys.stderr.close()
        return EXIT_CLEAN
    except KeyboardInterrupt:
        # The worker processes ignore Ctrl-C and are stopped by now; a traceback would only hide
        # that what was printed so far is a partial result.
        print("\nmsport: interrupted: not every file was checked, so the results above are incomplete", file=sys.stderr)
        return EXIT_INTERRUPTED


def _main(argv: Optional[Sequence[str]] = None) -> int:
    args = _parser().parse_args(argv)
    if args.command is None:
        _parser().print_help()
        return EXIT_ERROR
    if args.command == "serve":
        from ..lsp.server import run

        return run(args.tcp)
    if args.command == "mcp":
        return _mcp()
    if args.command == "rules":
        from .rules import print_rules

        return print_rules(args.format)
    if args.command == "explain":
        from .explain import explain

        return explain(args.name, _flag_values(args))
    if args.command in ("convert-weights", "port-check"):
        from . import weights

        return weights.convert_weights(args) if args.command == "convert-weights" else weights.port_check(args)
    if args.command == "report":
        from .report import report

        return report(args.paths, args.format, args.output, _flag_values(args), args.source_url, _jobs_or_default(args))
    return check(args)


def _mcp() -> int:
    if sys.version_info < (3, 10):
        print("msport: error: msport mcp needs Python 3.10 or newer (the MCP SDK does); this is "
              f"Python {sys.version_info[0]}.{sys.version_info[1]}", file=sys.stderr)
        return EXIT_ERROR
    try:
        from ..mcp.server import run
    except ImportError as exc:
        print(f"msport: error: msport mcp needs the MCP SDK ({exc}); install it with: python -m pip install 'msport[mcp]'",
              file=sys.stderr)
        return EXIT_ERROR
    return run()


def check(args: argparse.Namespace) -> int:
    from ..knowledge import default_knowledge, preload
    from . import parallel
    from .files import command_line_settings, display_name, files_with_settings
    from .output import format_json, format_sarif, format_text, summary
    from .progress import ProgressBar
    from ..analysis.project.summary import NO_PROJECT
    from .project import facts_of, index_with_progress, job_file
    from .scan import CheckedFile, CheckJob, check_file, command_analyzers, new_command
    from ..knowledge.messages import message

    new_command()
    preload()  # once, before the workers fork
    parallel.tune_gc_for_batch()
    known = default_knowledge().codes
    flags = _flag_values(args)
    settings = command_line_settings(args.paths, flags, known)
    if settings is None:
        return EXIT_ERROR
    if args.unsafe_fixes and not args.fix:
        print(message("cli.error", settings.language, text=message("cli.unsafe_without_fix", settings.language)), file=sys.stderr)
        return EXIT_ERROR
    if args.show_settings:
        from .show_settings import show_settings

        return show_settings(args.paths, flags, known)
    files, error = files_with_settings(args.paths, flags, known)
    workers = _jobs_or_default(args)
    # The same workers for the index and the check: each file goes back to the one that has it in its caches.
    pool = parallel.Pool(command_analyzers, workers)
    index = index_with_progress(files, workers, pool)
    # --fix writes inside the project of each file (its pyproject.toml's folder) or the folders named on the command line.
    given = tuple(str(p.absolute() if os.path.isdir(p) else p.absolute().parent) for p in args.paths)
    jobs = [
        CheckJob(path, display_name(path), settings, args.fix, args.unsafe_fixes, args.format != "text",
                 tuple(filter(None, (settings.project_root, *given))), facts_of(index, path) or NO_PROJECT)
        for path, settings in files
    ]
    results = []
    fixed_count = 0
    stream = args.format == "text" and args.output is None
    bar = ProgressBar(len(jobs))
    progress = lambda count, index: bar.update(count, jobs[index].display)  # noqa: E731
    try:
        with closing(parallel.run(check_file, command_analyzers, jobs, workers, progress, pool, job_file)) as checked_files:
            for index, checked in checked_files:
                display = jobs[index].display
                if isinstance(checked, parallel.WorkerDied):
                    alone = f"msport check -j 1 {shlex.quote(display)}"
                    died = message("cli.worker_died", settings.language, path=display, why=checked.text(settings.language), alone=alone)
                    checked = CheckedFile(None, [message("cli.error", settings.language, text=died)])
                lines = list(format_text([(display, checked.findings)])) if stream and checked.findings else []
                if checked.messages or lines:
                    bar.clear()  # the bar and these lines may share a terminal
                for said in checked.messages:
                    print(said, file=sys.stderr)
                fixed_count += checked.fixes_applied
                error = error or checked.failed
                if checked.findings is None:
                    error = True  # the file is named above; exit status 2
                    continue
                results.append((display, checked.findings))
                if lines:
                    print("\n".join(lines), flush=True)  # streamed: a pipe sees each file as it is done
    finally:
        bar.close()
        pool.close()

    files_checked = len(results)
    if args.format == "text":
        body = "\n".join(format_text(results)) if not stream else ""
        # Said in the language of the first file's settings (all files share it unless a
        # pyproject.toml below the others sets another).
        language = files[0][1].language if files else settings.language
        body = (body + "\n" if body else "") + summary(results, files_checked, language, fixed_count if args.fix else None)
    elif args.format == "json":
        body = format_json(results)
    else:
        body = format_sarif(results, known)
    if args.output is not None:
        args.output.write_text(body + "\n", encoding="utf-8")
    else:
        print(body)
    if error:
        return EXIT_ERROR
    return EXIT_FINDINGS if any(findings for _, findings in results) else EXIT_CLEAN

