"""Names the server declares in its ``initialize`` answer (command, code action kinds).

They live apart from the modules that implement them because those import the analysis
engine, and nothing that heavy may be imported before ``initialize`` is answered.
"""

from __future__ import annotations

from lsprotocol import types

#: workspace/executeCommand: check the workspace's files that are not open (workspace_scan.py).
SCAN_COMMAND = "msport.scanWorkspace"

#: workspace/executeCommand: convert a PyTorch checkpoint for a ported model (weights_command.py).
CONVERT_WEIGHTS_COMMAND = "msport.convertWeights"

#: The code action kind of "apply every safe fix" (code_actions.py), for fix-on-save.
FIX_ALL = "source.fixAll.msport"
CODE_ACTION_KINDS = [types.CodeActionKind.QuickFix, FIX_ALL]
