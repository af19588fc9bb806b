import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


@pytest.fixture(scope="session")
def knowledge():
    from msport.knowledge import default_knowledge

    return default_knowledge()


@pytest.fixture()
def analyze():
    """Analyse a snippet with fresh caches and return its findings."""
    from msport.analysis import Analyzer, Settings

    analyzer = Analyzer()

    def run(text, settings=None, path=None, **values):
        settings = settings or Settings()
        if values:
            settings = settings.merged({k.replace("_", "-"): v for k, v in values.items()}, "test")
            assert not settings.problems, settings.problems
        return analyzer.analyze(text, settings, path).findings

    return run


def msport_command():
    return [sys.executable, "-m", "msport"]
