"""Facts measured on mindspore in a child process (torch and mindspore do not share one process
well): a script beside the tests prints its facts as JSON on its last line."""

import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent


def measured(script: str) -> dict:
    """Run *script* (a file of this folder) on this interpreter and read its last JSON line."""
    done = subprocess.run([sys.executable, str(HERE / script)], capture_output=True, text=True, timeout=600, cwd=HERE,
                          env={"PYTHONPATH": str(HERE), "GLOG_v": "3", "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])
