#!/usr/bin/env python3
"""Run many ``msport`` command lines in one process (torch and mindspore are imported once).

    python tests/weights/cli_runner.py RUNS.json RESULTS.json

RUNS.json is a list of {"id": ..., "argv": [...], "cwd": ..., "prepare": "<python code>"}: the code
(optional) runs first, in the run's directory, to write its input files (a checkpoint saved with
torch.save); RESULTS.json maps each id to
{"status": exit status, "stdout": ..., "stderr": ...}. Used by the tests of convert-weights and
port-check through ``run_commands``: the commands run exactly as the msport command line runs
them, only without paying for a new interpreter each time.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List


def run_commands(runs: List[Dict], timeout: float = 1200) -> Dict[str, Dict]:
    with tempfile.TemporaryDirectory(prefix="msport-cli-runs-") as tmp:
        runs_path, results_path = Path(tmp, "runs.json"), Path(tmp, "results.json")
        runs_path.write_text(json.dumps(runs), encoding="utf-8")
        env = dict(os.environ, GLOG_v="3", PYTHONWARNINGS="ignore")
        proc = subprocess.run([sys.executable, __file__, str(runs_path), str(results_path)], capture_output=True, text=True,
                              timeout=timeout, env=env)
        results = json.loads(results_path.read_text(encoding="utf-8")) if results_path.exists() else {}
    for run in runs:
        results.setdefault(run["id"], {"status": None, "stdout": "", "stderr": f"not run: the child exited with {proc.returncode}: {proc.stderr[-2000:]}"})
    return results


def _child(runs_path: str, results_path: str) -> None:
    from msport.cli.main import main

    results = {}
    start = os.getcwd()
    for run in json.loads(Path(runs_path).read_text(encoding="utf-8")):
        out, err = io.StringIO(), io.StringIO()
        os.chdir(run.get("cwd", start))
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    if run.get("prepare"):
                        exec(compile(run["prepare"], f"<prepare {run['id']}>", "exec"), {"__name__": "prepare"})
                    status = main(run["argv"]) if run.get("argv") else 0
                except SystemExit as exc:  # argparse errors
                    status = exc.code
                except Exception as exc:  # a crash is a failed run, reported, not a lost batch
                    import traceback

                    traceback.print_exc()
                    status = f"crashed: {exc!r}"
        finally:
            os.chdir(start)
        results[run["id"]] = {"status": status, "stdout": out.getvalue(), "stderr": err.getvalue()}
        Path(results_path).write_text(json.dumps(results), encoding="utf-8")


if __name__ == "__main__":
    _child(sys.argv[1], sys.argv[2])
