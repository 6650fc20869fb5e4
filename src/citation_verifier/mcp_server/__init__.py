"""``citation-verifier mcp``: the verifier as an MCP server (tools ``verify_claim`` and
``check_answer``) over stdio or the streamable HTTP transport, on the official ``mcp`` SDK."""
