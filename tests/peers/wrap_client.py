"""A real MCP client (Python `mcp` 2.x) for mcpick's `wrap` tests: the same session against
any server, so that a wrapped entry's answers can be compared with the upstream's own.

    python wrap_client.py [--mode auto|legacy] [--read URI]... -- CMD ARGS...

Prints one JSON object on stdout: {"protocolVersion", "capabilities", "tools" (the whole
tools/list result), "call" (the whole result of touch_resource on py://items/alpha/5),
"resources" (every listed URI), "templates" (every uriTemplate), "reads": [{"uri", "ok",
"code"?, "contents"?}]}.
"""

from __future__ import annotations

import argparse
import json

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError


def dump(model) -> dict:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="auto")
    parser.add_argument("--read", action="append", default=[])
    parser.add_argument("command", nargs="+")
    args = parser.parse_args()
    server = StdioServerParameters(command=args.command[0], args=args.command[1:])
    async with Client(server, mode=args.mode, cache=None) as client:
        out = {
            "protocolVersion": client.protocol_version,
            "capabilities": dump(client.server_capabilities),
            "tools": dump(await client.list_tools()),
            "call": dump(await client.call_tool("touch_resource", {"uri": "py://items/alpha/5"})),
        }
        uris, cursor = [], None
        while True:
            page = await client.list_resources(cursor=cursor, cache_mode="bypass")
            uris.extend(str(r.uri) for r in page.resources)
            cursor = page.next_cursor
            if not cursor:
                break
        out["resources"] = uris
        templates = await client.list_resource_templates()
        out["templates"] = [t.uri_template for t in templates.resource_templates]
        reads = []
        for uri in args.read:
            try:
                result = await client.read_resource(uri, cache_mode="bypass")
                reads.append({"uri": uri, "ok": True, "contents": [dump(c) for c in result.contents]})
            except MCPError as e:
                reads.append({"uri": uri, "ok": False, "code": e.code})
        out["reads"] = reads
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    anyio.run(main)
