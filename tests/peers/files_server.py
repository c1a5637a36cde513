"""A small files server for mcpick's integration tests (Python `mcp` 2.x, low-level API):
publishes every file under a folder as a `file://` resource, as a user's own project server
or any files server does.

    python files_server.py DIR

stdio. Each `resources/list` walks DIR again (hidden folders and files included, as such
servers list `.claude/`, `.mcpick/` and `.mcp.json`), so files written since the server
started are listed; `resources/read` returns a listed file's text. Symbolic links are not
followed.
"""

from __future__ import annotations

import os
import sys
import urllib.parse

import anyio
import mcp.types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.lowlevel import NotificationOptions
from mcp.shared.exceptions import MCPError


def files(root: str) -> list[str]:
    out = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != ".git")
        for name in sorted(names):
            path = os.path.join(folder, name)
            if os.path.isfile(path) and not os.path.islink(path):
                out.append(path)
    return out


def uri_of(path: str) -> str:
    return "file://" + urllib.parse.quote(path)


def build_server(root: str) -> Server:
    async def list_resources(ctx: ServerRequestContext, params) -> types.ListResourcesResult:
        resources = [
            types.Resource(uri=uri_of(p), name=os.path.basename(p), mime_type="text/plain", size=os.path.getsize(p))
            for p in files(root)
        ]
        return types.ListResourcesResult(resources=resources)

    async def read_resource(ctx: ServerRequestContext, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        uri = str(params.uri)
        path = urllib.parse.unquote(uri.removeprefix("file://"))
        if not uri.startswith("file://") or path not in files(root):
            raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown resource: {uri}", data={"uri": uri})
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        return types.ReadResourceResult(contents=[types.TextResourceContents(uri=uri, mime_type="text/plain", text=text)])

    return Server(
        "mcpick-files-peer",
        version="0.1.0",
        on_list_resources=list_resources,
        on_read_resource=read_resource,
    )


async def serve_stdio(server: Server) -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options(NotificationOptions()))


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit("usage: files_server.py DIR")
    anyio.run(serve_stdio, build_server(os.path.realpath(sys.argv[1])))


if __name__ == "__main__":
    main()
