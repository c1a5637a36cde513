"""A real MCP client (Python `mcp` 2.x) for mcpick's `serve` tests.

    python serve_client.py [--mode auto|legacy] [--read URI]... [--watch SECS [--changes N]]
                           [--read-after URI]... [--subscribe-after URI] (--url URL | -- CMD ARGS...)

Connects (auto: 2026-07-28 `server/discover`, falling back; legacy: the `initialize`
handshake), then prints one JSON object per line on stdout:
  {"event": "connected", "protocolVersion", "instructions", "capabilities"}
  {"event": "list", "resources": [{"uri", "name", "annotations"}...]}   every page followed
  {"event": "read", "uri", "ok", "code", "contents": [{"uri", "text"|"blob"}]}  per --read
  {"event": "prompt", "messages": [{"type", "uri"?, "text"?}]}          prompt `context`
  {"event": "tools", "names": [...]} and {"event": "tool", "texts": [...]}  when offered
With --watch SECS: {"event": "ready"}, then waits up to SECS for a resource list change
(legacy: notifications/resources/list_changed; modern: subscriptions/listen) that really
changes the list (a notice after which the list is the same is allowed and waited past) and
prints {"event": "changed", "resources": [...]} or {"event": "timeout"}; with --changes N, N
such changes, each printed. With --subscribe URI as well, it waits for an update of URI
instead (legacy: resources/subscribe; modern: the listen filter) and prints
{"event": "updated", "uri"}. Then each --read-after URI is read, printed as a "read" event,
and with --subscribe-after URI, an update of URI is waited for as --subscribe does (up to
--watch SECS, or 30 s): {"event": "updated-after", "uri"} or {"event": "timeout-after"}.
"""

from __future__ import annotations

import argparse
import json
import sys

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError


def emit(obj: dict) -> None:
    print(json.dumps(obj), flush=True)


def dump(model) -> dict:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def list_all(client: Client) -> list[dict]:
    out, cursor = [], None
    while True:
        page = await client.list_resources(cursor=cursor, cache_mode="bypass")
        out.extend(dump(r) for r in page.resources)
        cursor = page.next_cursor
        if not cursor:
            return out


async def read(client: Client, uri: str) -> None:
    try:
        result = await client.read_resource(uri, cache_mode="bypass")
        emit({"event": "read", "uri": uri, "ok": True, "contents": [dump(c) for c in result.contents]})
    except MCPError as e:
        emit({"event": "read", "uri": uri, "ok": False, "code": e.code, "message": e.message})


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="auto")
    parser.add_argument("--url")
    parser.add_argument("--read", action="append", default=[])
    parser.add_argument("--watch", type=float)
    parser.add_argument("--changes", type=int, default=1)
    parser.add_argument("--read-after", action="append", default=[])
    parser.add_argument("--subscribe")
    parser.add_argument("--subscribe-after")
    parser.add_argument("command", nargs="*")
    args = parser.parse_args()
    server = args.url or StdioServerParameters(command=args.command[0], args=args.command[1:])

    changed = anyio.Event()
    updated: list[str] = []
    updated_after = anyio.Event()

    async def on_message(message) -> None:
        kind = type(message).__name__ + getattr(message, "method", "")
        if args.subscribe is None and ("ResourceListChanged" in kind or "list_changed" in kind):
            changed.set()
        if args.subscribe is not None and ("ResourceUpdated" in kind or "resources/updated" in kind):
            updated.append(message.params.uri)
            changed.set()
        if args.subscribe_after is not None and ("ResourceUpdated" in kind or "resources/updated" in kind):
            updated_after.set()

    async with Client(server, mode=args.mode, message_handler=on_message, cache=None) as client:
        emit({
            "event": "connected",
            "protocolVersion": client.protocol_version,
            "instructions": client.instructions,
            "capabilities": dump(client.server_capabilities),
        })
        first = await list_all(client)
        emit({"event": "list", "resources": first})
        for uri in args.read:
            await read(client, uri)
        prompt = await client.get_prompt("context")
        messages = []
        for m in prompt.messages:
            c = dump(m.content)
            item = {"type": c.get("type")}
            if c.get("type") == "resource":
                item["uri"] = c["resource"]["uri"]
            if c.get("type") == "text":
                item["text"] = c["text"]
            messages.append(item)
        emit({"event": "prompt", "messages": messages})
        if client.server_capabilities.tools is not None:
            tools = await client.list_tools()
            emit({"event": "tools", "names": [t.name for t in tools.tools]})
            if any(t.name == "context" for t in tools.tools):
                result = await client.call_tool("context", {})
                emit({"event": "tool", "texts": [dump(c).get("text") for c in result.content]})
        if args.watch is not None:
            last, seen = first, 0

            def really_changed(now: list[dict]) -> bool:
                """Prints a change that changed the list; true at the --changes'th."""
                nonlocal last, seen
                if now == last:
                    return False
                emit({"event": "changed", "resources": now})
                last, seen = now, seen + 1
                return seen == args.changes

            modern = not client.protocol_version.startswith("2024") and not client.protocol_version.startswith("2025")
            with anyio.move_on_after(args.watch) as scope:
                if modern and args.subscribe is not None:
                    async with client.listen(resource_subscriptions=[args.subscribe]) as sub:
                        emit({"event": "ready"})
                        async for event in sub:
                            if type(event).__name__ == "ResourceUpdated":
                                updated.append(event.uri)
                                break
                elif modern:
                    async with client.listen(resources_list_changed=True) as sub:
                        emit({"event": "ready"})
                        async for _event in sub:
                            if really_changed(await list_all(client)):
                                break
                else:
                    if args.subscribe is not None:
                        await client.subscribe_resource(args.subscribe)
                    emit({"event": "ready"})
                    while True:
                        await changed.wait()
                        if args.subscribe is not None:
                            break
                        # A notice that changed nothing (allowed), or one of several: wait on.
                        changed = anyio.Event()
                        if really_changed(await list_all(client)):
                            break
            if scope.cancelled_caught:
                emit({"event": "timeout"})
            elif updated:
                emit({"event": "updated", "uri": updated[0]})
        for uri in args.read_after:
            await read(client, uri)
        if args.subscribe_after is not None:
            uri = args.subscribe_after
            modern = not client.protocol_version.startswith("2024") and not client.protocol_version.startswith("2025")
            with anyio.move_on_after(args.watch or 30) as scope:
                if modern:
                    async with client.listen(resource_subscriptions=[uri]) as sub:
                        async for event in sub:
                            if type(event).__name__ == "ResourceUpdated" and event.uri == uri:
                                break
                else:
                    await client.subscribe_resource(uri)
                    await updated_after.wait()
            emit({"event": "timeout-after"} if scope.cancelled_caught else {"event": "updated-after", "uri": uri})


if __name__ == "__main__":
    anyio.run(main)
