"""JSON-RPC hygiene pygls leaves to the server: every malformed request gets an error reply.

pygls answers an undecodable message with a pop-up ("Error in server") and, for a request
whose params do not fit the method, no reply at all, so the client waits forever. msport
replies as JSON-RPC 2.0 says (-32700 parse error with a null id, -32602 invalid params with the
request's id), logs the details, and keeps serving. A request before ``initialize`` gets
-32002 (server not initialized) and a notification before it is dropped, as LSP says.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from pygls.exceptions import JsonRpcException, JsonRpcParseError, JsonRpcServerNotInitialized
from lsprotocol import types
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

log = logging.getLogger("msport")


class _Answered:
    """Stands in for a message already answered with an error; handle_message skips it."""

    jsonrpc = "answered"


class MsportProtocol(LanguageServerProtocol):
    def structure_message(self, data: dict) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if isinstance(data, dict) and "id" in data and "method" in data:
                log.warning("bad %s request (id %r): %s", data.get("method"), data.get("id"), exc)
                self._send_response(data["id"], error=exc.to_response_error())
                return _Answered()
            raise

    # msport keeps its own copy of each document (lsp/documents.py). pygls' copy would cost
    # memory and time on every keystroke, and its line splitting (str.splitlines) disagrees
    # with LSP on form feeds and U+2028: an edit after one raised and the handler never ran.
    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: types.DidOpenTextDocumentParams):
        yield from self._user_handler(types.TEXT_DOCUMENT_DID_OPEN, params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams):
        yield from self._user_handler(types.TEXT_DOCUMENT_DID_CHANGE, params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: types.DidCloseTextDocumentParams):
        yield from self._user_handler(types.TEXT_DOCUMENT_DID_CLOSE, params)

    def _user_handler(self, method: str, params: Any):
        handler = self.fm.features.get(method)
        if handler is not None:
            yield handler, (params,), None

    #: Whether the client has sent ``initialize``; until then only ``exit`` is obeyed.
    initialize_received = False

    def handle_message(self, message: Any) -> None:
        if isinstance(message, _Answered):
            return
        method = getattr(message, "method", None)
        if not self.initialize_received and method is not None:
            if method == types.INITIALIZE:
                self.initialize_received = True
            elif method != types.EXIT:
                if hasattr(message, "id"):
                    log.warning("%s request (id %r) before initialize: answered with -32002", method, message.id)
                    error = JsonRpcServerNotInitialized(f"msport has not been initialized: send 'initialize' before '{method}'")
                    self._send_response(message.id, error=error.to_response_error())
                else:
                    log.warning("%s notification before initialize: ignored", method)
                return
        super().handle_message(message)

    def answer_parse_error(self, error: Exception) -> None:
        log.warning("undecodable message: %s", error)
        # Sent as a plain dict: JSON-RPC wants `"id": null` here, which pygls' serializer drops.
        error_object = JsonRpcParseError(f"msport could not decode the message: {error}").to_response_error()
        self._send_data({"jsonrpc": "2.0", "id": None, "error": {"code": error_object.code, "message": error_object.message}})


def is_parse_error(error: Exception) -> bool:
    return isinstance(error, (json.JSONDecodeError, UnicodeDecodeError))
