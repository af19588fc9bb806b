"""The server's result bookkeeping, driven directly (no transport): the races here are between
the analysis thread and the event loop, too narrow to provoke reliably through a client."""

import asyncio

from lsprotocol import types

from msport.lsp.server import MsportServer

URI = "file:///tmp/msport_state_test/model.py"
TEXT = "import torch\n\ndef f(x):\n    return torch.flatten(x)\n" * 200


def test_an_analysis_finishing_after_a_settings_change_is_not_kept_as_current():
    async def scenario():
        ls = MsportServer()
        # pygls' own initialize (the workspace, the client's capabilities); msport's handler,
        # which it yields to be called, is left out: pull mode is set below instead.
        for _ in ls.protocol.lsp_initialize(types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri="file:///tmp/msport_state_test")):
            pass
        ls.pull = True  # nothing to publish to
        ls.config_ready.set()
        ls.documents.open(URI, TEXT, 1)
        ls.editor_settings = {"ignore": []}
        old = asyncio.ensure_future(ls.current(URI))
        await asyncio.sleep(0)  # the old analysis is now running on the analysis thread
        ls.editor_settings = {"ignore": ["MS103"]}
        ls.refresh_all()
        first = await old  # it finishes after the change, under the old settings
        assert "MS103" in {f.code for f in first.result.findings}
        now = await ls.current(URI)
        assert now is not first
        assert "MS103" not in {f.code for f in now.result.findings}
        ls._executor.shutdown()

    asyncio.run(scenario())


def test_a_pull_while_the_configuration_is_re_read_gets_the_new_settings():
    """didChangeConfiguration carries the settings, then asks the client for them again: a pull
    answered in between must not reuse a result computed under the previous settings."""
    from msport.lsp.server import did_change_configuration

    async def scenario():
        ls = MsportServer()
        for _ in ls.protocol.lsp_initialize(types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri="file:///tmp/msport_state_test")):
            pass
        ls.pull = True
        ls.config_ready.set()
        ls.documents.open(URI, TEXT, 1)
        before = await ls.current(URI)
        assert "MS103" in {f.code for f in before.result.findings}
        asked = asyncio.Event()

        async def slow_client_answer():  # the workspace/configuration round trip
            asked.set()
            await asyncio.sleep(3600)

        ls.load_configuration = slow_client_answer
        change = asyncio.ensure_future(did_change_configuration(ls, types.DidChangeConfigurationParams(settings={"msport": {"ignore": ["MS103"]}})))
        await asked.wait()
        during = await ls.current(URI)
        assert "MS103" not in {f.code for f in during.result.findings}
        change.cancel()
        ls._executor.shutdown()

    asyncio.run(scenario())
