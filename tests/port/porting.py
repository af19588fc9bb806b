"""Where every end-to-end port test starts: a model of tests/port/models/ through fix-all."""

import shutil
from pathlib import Path

from msport.analysis import Settings
from msport.analysis.fixes import fix_all

MODELS = Path(__file__).parent / "models"
SETTINGS = Settings().merged({"backend": "cpu"}, "test")


def port_model(folder: Path, model: str, reference: str = "reference.py") -> str:
    """*model* copied into *folder* as *reference* and, through fix-all (safe and unsafe fixes,
    backend cpu), as port.py; returns the port's text."""
    shutil.copy(MODELS / f"{model}.py", folder / reference)
    text = fix_all((MODELS / f"{model}.py").read_text(encoding="utf-8"), SETTINGS, unsafe=True).text
    (folder / "port.py").write_text(text, encoding="utf-8")
    return text
