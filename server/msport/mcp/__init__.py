"""msport for coding agents: check, explain and fix over the Model Context Protocol (``msport mcp``).

``tools.py`` holds the three operations as plain functions over the analysis core (what an
agent asks, what it gets back, as JSON-ready dicts); ``server.py`` serves them with the MCP SDK
over stdio. Only ``server.py`` imports the SDK (the ``mcp`` extra, Python 3.10+).
"""
