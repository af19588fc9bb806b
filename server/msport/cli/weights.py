"""``msport convert-weights`` and ``msport port-check``: argument handling and printing.

Both need torch and mindspore at run time; they are imported inside the commands, so the rest
of msport runs without them. Exit status: 0 done (port-check: every output within the
tolerance), 1 port-check outputs differ or the MindSpore model fails to run, 2 bad input (named in the message) or a missing package.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import List

EXIT_OK, EXIT_DIFFERS, EXIT_ERROR = 0, 1, 2


def add_parsers(commands) -> None:
    convert = commands.add_parser(
        "convert-weights", help="convert a PyTorch checkpoint for the ported MindSpore model",
        description="Convert the PyTorch CHECKPOINT for the MindSpore model in MODEL (the ported file): parameter names "
                    "and shapes follow the MindSpore layers the model uses. The checkpoint is read with "
                    "torch.load(weights_only=True). Nothing is written unless every parameter is accounted for.")
    convert.add_argument("model", type=Path, metavar="MODEL.py", help="the ported MindSpore model file")
    convert.add_argument("checkpoint", type=Path, metavar="CHECKPOINT.pth", help="the PyTorch checkpoint (a state dict)")
    convert.add_argument("-o", "--output", type=Path, required=True, metavar="MODEL.ckpt", help="the MindSpore checkpoint to write")
    _model_flags(convert)
    convert.add_argument("--partial", action="store_true", help="write the checkpoint even when some parameters could not be mapped (they are listed)")
    convert.add_argument("--show-map", action="store_true", help="print every PyTorch name -> MindSpore name and shape")
    convert.add_argument("--format", choices=("text", "json"), default="text")

    check = commands.add_parser(
        "port-check", help="run the ported model and its PyTorch reference on the same input and compare",
        description="Build the MindSpore model in MODEL and the PyTorch model in --reference, give the MindSpore model "
                    "the PyTorch weights (converted as convert-weights does), run both on the same random input and print "
                    "the largest difference per output in PyNative and graph mode. Exit status 0 when every output is "
                    "within the tolerance, 1 when not, 2 on an error.")
    check.add_argument("model", type=Path, metavar="MODEL.py", help="the ported MindSpore model file")
    check.add_argument("--reference", type=Path, required=True, metavar="TORCH_MODEL.py", help="the PyTorch model file")
    check.add_argument("--input", action="append", required=True, metavar="SHAPE[:DTYPE[:HIGH]]",
                       help="one input of the model: its shape, dtype (default float32) and, for integers, the bound of the "
                            "values drawn (e.g. 2,3,32,32 or 2,16:int64:1000); repeat for several inputs")
    _model_flags(check)
    check.add_argument("--reference-class", metavar="NAME", help="the PyTorch model class (default: --class, else found in the file)")
    check.add_argument("--reference-args", metavar="JSON", help="its constructor arguments (default: --args)")
    check.add_argument("--checkpoint", type=Path, metavar="CHECKPOINT.pth", help="PyTorch weights to use (default: the reference's own initial weights)")
    check.add_argument("--mode", choices=("pynative", "graph", "both"), default="both", help="how to run the MindSpore model (default both)")
    check.add_argument("--atol", type=float, default=1e-5, help="largest absolute difference allowed (default 1e-5)")
    check.add_argument("--rtol", type=float, default=0.0, help="plus this fraction of the largest PyTorch output value (default 0)")
    check.add_argument("--seed", type=int, default=0, help="seed of the random input (default 0)")
    check.add_argument("--format", choices=("text", "json"), default="text")


def _model_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--lang", dest="language", metavar="LANG", help="language of msport's texts: en or zh-CN (default: from LC_ALL, LC_MESSAGES or LANG)")
    parser.add_argument("--class", dest="class_name", metavar="NAME", help="the model class (default: the one model class no other class of the file uses)")
    parser.add_argument("--args", metavar="JSON", help="constructor arguments: a JSON object of keywords or a JSON list, e.g. '{\"num_classes\": 10}'")
    parser.add_argument("--trust-checkpoint", action="store_true",
                        help="load a checkpoint that holds Python objects besides tensors with full unpickling (runs code stored in the file: only for files you trust)")


def _stage(text: str) -> None:
    if sys.stderr.isatty():
        print(f"msport: {text} ...", file=sys.stderr, flush=True)


def _quiet_frameworks() -> None:
    # MindSpore's C++ log writes warnings to stderr unless told otherwise; they would bury the result.
    os.environ.setdefault("GLOG_v", "3")


def _missing_package(exc: ImportError) -> int:
    print(f"msport: error: this command needs torch and mindspore importable by {sys.executable} ({exc})", file=sys.stderr)
    return EXIT_ERROR


def _speak(args: argparse.Namespace) -> bool:
    """Set the language of the command's texts (--lang, else the terminal's locale); False, with
    the error printed, when --lang names no language msport speaks."""
    from ..weights.errors import LANGUAGE
    from .files import environment_settings

    settings = environment_settings().merged({"language": args.language} if args.language else {}, "command line")
    for problem in settings.problems:
        print(f"msport: error: --lang: {problem.message}", file=sys.stderr)
    LANGUAGE.set(settings.language)
    return not settings.problems


def convert_weights(args: argparse.Namespace) -> int:
    from ..weights.errors import WeightsError

    if not _speak(args):
        return EXIT_ERROR
    _quiet_frameworks()
    try:
        from ..weights.convert import convert_weights as convert
        from ..weights.modelfile import parse_arguments

        conversion = convert(args.model, args.checkpoint, args.output, args.class_name, parse_arguments(args.args, "--args"),
                             args.trust_checkpoint, args.partial, _stage)
    except WeightsError as exc:
        return _error(exc, args.format)
    except ImportError as exc:
        return _missing_package(exc)
    from ..weights.errors import message

    written = message("written", output=args.output, count=len(conversion.plan.values) + len(conversion.plan.kept),
                      size=_size(conversion.size), checkpoint=args.checkpoint)
    if args.format == "json":
        print(json.dumps({"ok": True, "output": str(args.output), "message": written, "notes": conversion.notes,
                          "problems": conversion.plan.problems, "map": conversion.rows()}, indent=2))
        return EXIT_OK
    if args.show_map:
        for row in conversion.rows():
            source = f"{row['torch']} {tuple(row['torch_shape'])}" if row["torch"] else "(initial value)"
            print(f"{source} -> {row['mindspore']} {tuple(row['shape'])}")
    for problem in conversion.plan.problems:
        print(f"msport: warning: {problem}", file=sys.stderr)
    for note in conversion.notes:
        print(f"msport: {note}")
    print(f"msport: {written}")
    return EXIT_OK


def port_check(args: argparse.Namespace) -> int:
    from ..weights.errors import WeightsError

    if not _speak(args):
        return EXIT_ERROR
    _quiet_frameworks()
    try:
        from ..weights.modelfile import parse_arguments
        from ..weights.port_check import MODES, parse_input, port_check as run

        inputs = [parse_input(text) for text in args.input]
        result = run(
            args.model, args.reference, inputs, class_name=args.class_name, arguments=parse_arguments(args.args, "--args"),
            reference_class=args.reference_class,
            reference_arguments=parse_arguments(args.reference_args, "--reference-args") if args.reference_args else None,
            checkpoint=args.checkpoint, trust=args.trust_checkpoint, modes=MODES if args.mode == "both" else (args.mode,),
            atol=args.atol, rtol=args.rtol, seed=args.seed, stage=_stage)
    except WeightsError as exc:
        return _error(exc, args.format)
    except ImportError as exc:
        return _missing_package(exc)
    from ..weights.errors import message

    modes = " and ".join(MODES if args.mode == "both" else (args.mode,))
    failed = sum(1 for row in result.rows if not row.ok)
    verdict = (message("port_check_pass", tolerance=args.atol, modes=modes) if result.ok
               else message("port_check_fail", count=failed + len(result.problems), tolerance=args.atol))
    if args.format == "json":
        print(json.dumps({"ok": result.ok, "model": result.model_name, "reference": result.reference_name, "verdict": verdict,
                          "rows": [row.__dict__ | {"shape": list(row.shape)} for row in result.rows],
                          "notes": result.notes, "problems": result.problems}, indent=2))
    else:
        for note in result.notes:
            print(f"msport: {note}")
        for row in result.rows:
            print(message("port_check_row", output=row.output, shape=str(row.shape), mode=row.mode, difference=row.difference,
                          verdict="ok" if row.ok else "DIFFERS"))
        for problem in result.problems:
            print(f"msport: {problem}")
        print(f"msport: {verdict}")
    return EXIT_OK if result.ok else EXIT_DIFFERS


def _error(exc: Exception, output_format: str) -> int:
    lines: List[str] = str(exc).splitlines()
    if output_format == "json":
        print(json.dumps({"ok": False, "problems": lines}, indent=2))
    for line in lines:
        print(f"msport: error: {line}", file=sys.stderr)
    return EXIT_ERROR


def _size(count: int) -> str:
    for unit in ("bytes", "kB", "MB", "GB"):
        if count < 1000 or unit == "GB":
            return f"{count:.0f} {unit}" if unit == "bytes" else f"{count:.1f} {unit}"
        count /= 1000
    return str(count)
