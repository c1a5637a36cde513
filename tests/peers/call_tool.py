"""Calls one tool of an MCP server over Streamable HTTP with the Python `mcp` SDK's client and
prints the result's text (tests use it to make tests/peers/py_server.py change its catalogue).

    python call_tool.py URL TOOL '{"arg": "value"}'
"""

from __future__ import annotations

import json
import sys

import anyio
from mcp import Client


async def main() -> None:
    url, tool, arguments = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    async with Client(url, cache=None) as client:
        result = await client.call_tool(tool, arguments)
        for c in result.content:
            print(getattr(c, "text", ""))


anyio.run(main)
