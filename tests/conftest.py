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


def _editor_like_client():
    """pytest-lsp's test client, also answering client/registerCapability as editors do (msport
    asks them to watch TOML files); the registrations are kept in ``client.registrations``."""
    from lsprotocol import types
    from pytest_lsp.client import make_test_lsp_client

    client = make_test_lsp_client()
    client.registrations = []

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        client.registrations.extend(params.registrations)

    return client


def msport_server(*args: str):
    """The pytest-lsp configuration that starts ``msport serve`` (with *args*)."""
    from pytest_lsp import ClientServerConfig

    return ClientServerConfig(server_command=[*msport_command(), "serve", *args], client_factory=_editor_like_client)
