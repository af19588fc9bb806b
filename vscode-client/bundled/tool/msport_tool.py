"""Runs msport for the VS Code extension with the copy bundled in ``bundled/libs``.

``python msport_tool.py serve`` starts the language server, ``python msport_tool.py report ...``
writes a report. The bundled libraries go first on ``sys.path`` so that an older pygls or msport
in the interpreter's environment cannot shadow them. (``msport.importStrategy: fromEnvironment``
does not use this file: the extension runs ``python -m msport`` instead.)
"""

import os
import sys

LIBS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "libs")

if __name__ == "__main__":
    if not os.path.isdir(os.path.join(LIBS, "msport")):
        sys.stderr.write(f"msport: the bundled server is missing from {LIBS}; reinstall the extension\n")
        sys.exit(2)
    sys.path.insert(0, LIBS)
    from msport.cli.main import main

    sys.exit(main(sys.argv[1:]))
