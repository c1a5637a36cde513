"""A real MCP client (Python `mcp` 2.x) for mcpick's `wrap` tests: the same session against
any server, so that a wrapped entry's answers can be compared with the upstream's own.

    python wrap_client.py [--mode auto|legacy] [--relist] [--read URI]... -- CMD ARGS...

(`-- URL` instead of a command: the server over Streamable HTTP at URL.)

Prints one JSON object on stdout: {"protocolVersion", "capabilities", "tools" (the whole
tools/list result), "call" (the whole result of touch_resource on py://items/alpha/5),
"resources" (every listed URI), "listing" (every listed resource, whole), "templates" (every uriTemplate), "reads": [{"uri", "ok",
"code"?, "contents"?}]}.

    python wrap_client.py --watch [--mode auto|legacy] -- CMD ARGS...

Lists, prints {"listed": [URI...]} (one line), then waits (at most 20 s) for the server to
say its resource list changed (`notifications/resources/list_changed`; in the 2026-07-28 era
through a `subscriptions/listen` opened before the first list), lists again and prints
{"changed": bool, "era": "legacy"|"modern", "resources": [URI...]}.
"""

from __future__ import annotations

import argparse
import json

import sys

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError


def dump(model) -> dict:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def list_full(client: Client) -> list[dict]:
    listed, cursor = [], None
    while True:
        page = await client.list_resources(cursor=cursor, cache_mode="bypass")
        listed.extend(dump(r) for r in page.resources)
        cursor = page.next_cursor
        if not cursor:
            return listed


async def list_all(client: Client) -> list[str]:
    return [r["uri"] for r in await list_full(client)]


def emit(obj: dict) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


async def watch(server: StdioServerParameters, mode: str) -> None:
    changed = anyio.Event()

    async def on_message(message) -> None:
        inner = getattr(message, "root", message)
        if getattr(inner, "method", None) == "notifications/resources/list_changed":
            changed.set()

    async with Client(server, mode=mode, cache=None, message_handler=on_message) as client:
        modern = client.protocol_version >= "2026-07-28"
        if modern:
            async with client.listen(resources_list_changed=True) as sub:

                async def events() -> None:
                    async for _ in sub:
                        changed.set()
                        return

                async with anyio.create_task_group() as tg:
                    tg.start_soon(events)
                    emit({"listed": await list_all(client)})
                    with anyio.move_on_after(20):
                        await changed.wait()
                    tg.cancel_scope.cancel()
        else:
            emit({"listed": await list_all(client)})
            with anyio.move_on_after(20):
                await changed.wait()
        emit(
            {
                "changed": changed.is_set(),
                "era": "modern" if modern else "legacy",
                "resources": await list_all(client),
            }
        )


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="auto")
    parser.add_argument("--read", action="append", default=[])
    parser.add_argument("--watch", action="store_true")
    parser.add_argument("--relist", action="store_true", help="list twice, report the second")
    parser.add_argument("command", nargs="+")
    args = parser.parse_args()
    if len(args.command) == 1 and args.command[0].startswith(("http://", "https://")):
        server = args.command[0]
    else:
        server = StdioServerParameters(command=args.command[0], args=args.command[1:])
    if args.watch:
        await watch(server, args.mode)
        return
    async with Client(server, mode=args.mode, cache=None) as client:
        out = {
            "protocolVersion": client.protocol_version,
            "capabilities": dump(client.server_capabilities),
            "tools": dump(await client.list_tools()),
            "call": dump(await client.call_tool("touch_resource", {"uri": "py://items/alpha/5"})),
        }
        if args.relist:
            # A first whole listing, so a proxy that ranks has seen every page.
            await list_full(client)
        listing = await list_full(client)
        out["resources"] = [r["uri"] for r in listing]
        out["listing"] = listing
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
