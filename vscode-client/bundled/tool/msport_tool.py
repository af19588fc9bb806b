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
    # The extension starts this without probing the interpreter first (a second Python start
    # on every server start); it probes only when the server does not come up.
    if sys.version_info < (3, 9):
        sys.stderr.write("msport: the server needs Python 3.9 or newer, and this is Python %d.%d (%s); "
                         "set msport.interpreter to a newer one\n" % (sys.version_info[0], sys.version_info[1], sys.executable))
        sys.exit(2)
    if not os.path.isdir(os.path.join(LIBS, "msport")):
        sys.stderr.write(f"msport: this extension was packaged without its server ({LIBS} is missing): install a release, "
                         "or build it with 'npm ci && npm run package' in vscode-client/\n")
        sys.exit(2)
    sys.path.insert(0, LIBS)
    from msport.cli.main import main

    sys.exit(main(sys.argv[1:]))
