import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import make_test_lsp_client

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

    client = make_test_lsp_client()
    client.registrations = []

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        client.registrations.extend(params.registrations)

    return client


def msport_server(*args: str) -> ClientServerConfig:
    """The pytest-lsp configuration that starts ``msport serve`` (with *args*)."""
    return ClientServerConfig(server_command=[*msport_command(), "serve", *args], client_factory=_editor_like_client)


LSP_ROOT = "file:///tmp/msport_lsp_test"


async def start(client: LanguageClient, spec: str, options=None, locale=None):
    """initialize/initialized as the editor *spec* (pytest-lsp's capability sets) would send,
    in the display language *locale* (e.g. "zh-cn")."""
    client.initialize_result = await client.initialize_session(
        types.InitializeParams(capabilities=client_capabilities(spec), initialization_options=options, root_uri=LSP_ROOT, locale=locale)
    )


@pytest_lsp.fixture(config=msport_server())
async def vscode(lsp_client: LanguageClient):
    """VS Code 1.65: push diagnostics, UTF-16 positions."""
    await start(lsp_client, "visual-studio-code")
    yield lsp_client
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=msport_server())
async def neovim(lsp_client: LanguageClient):
    """Neovim 0.11: pull diagnostics, UTF-8 positions (its spec lists utf-8 first)."""
    await start(lsp_client, "neovim@v0.11.0")
    yield lsp_client
    await lsp_client.shutdown_session()
