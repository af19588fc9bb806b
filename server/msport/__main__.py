import os
import sys

# `python -m msport` puts the working directory first on sys.path, and an editor starts the
# server in the user's project: a project file named like a module msport imports later
# (difflib.py, tokenize.py, jedi.py...) would then run. msport's own modules are found through
# its package, so the working directory is dropped from the search path.
_here = os.getcwd()
sys.path[:] = [entry for entry in sys.path if entry not in ("", ".", _here)]

from msport.cli.main import main  # noqa: E402

raise SystemExit(main())
