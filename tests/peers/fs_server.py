"""A filesystem MCP server as many are written (Python `mcp` 2.x, low-level API): it lists
every file under --root as a `file://` resource and reads a `file:` URI the way an operating
system resolves a path: the host `localhost` or none, percent-escapes decoded, the path made
real (`//` collapsed, `.` and `..` resolved, links followed) and checked to be under the root.
So `file:///root//a`, `file:////root/a` and `file://localhost/root/a` all read `/root/a`:
what mcpick's `wrap` must not let through when the set excludes `file:///root/a`.
"""

from __future__ import annotations

import argparse
import os
import sys
import urllib.parse

import anyio
import mcp.types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.lowlevel import NotificationOptions
from mcp.shared.exceptions import MCPError


def build_server(root: str) -> Server:
    root = os.path.realpath(root)

    def files() -> list[str]:
        found = []
        for folder, _, names in os.walk(root):
            found.extend(os.path.join(folder, n) for n in sorted(names))
        return sorted(found)

    def path_of(uri: str) -> str:
        parts = urllib.parse.urlsplit(uri)
        if parts.scheme.lower() != "file" or parts.netloc.lower() not in ("", "localhost"):
            raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown resource: {uri}", data={"uri": uri})
        path = os.path.realpath(urllib.parse.unquote(parts.path))
        if path != root and not path.startswith(root + os.sep):
            raise MCPError(code=types.INVALID_PARAMS, message=f"Outside the root: {uri}", data={"uri": uri})
        return path

    async def list_resources(ctx: ServerRequestContext, params) -> types.ListResourcesResult:
        return types.ListResourcesResult(
            resources=[
                types.Resource(uri="file://" + p, name=os.path.basename(p), mime_type="text/plain") for p in files()
            ]
        )

    async def read_resource(
        ctx: ServerRequestContext, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        path = path_of(uri)
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown resource: {uri} ({e.strerror})", data={"uri": uri})
        return types.ReadResourceResult(contents=[types.TextResourceContents(uri=uri, mime_type="text/plain", text=text)])

    return Server(
        "mcpick-fs-peer",
        version="0.1.0",
        on_list_resources=list_resources,
        on_read_resource=read_resource,
    )


async def serve_stdio(server: Server) -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read_stream, write_stream):
        options = server.create_initialization_options(NotificationOptions())
        await server.run(read_stream, write_stream, options)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", required=True, help="the folder whose files are served")
    args = ap.parse_args()
    try:
        anyio.run(serve_stdio, build_server(args.root))
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
