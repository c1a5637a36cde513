"""Small MCP resource server for mcpick's integration tests (Python `mcp` 2.x, low-level API).

    python py_server.py [--count N] [--page-size N] [--http PORT]

stdio by default. `--http PORT` serves Streamable HTTP at http://127.0.0.1:PORT/mcp instead
(PORT 0 picks a free port) and prints `listening on http://127.0.0.1:PORT/mcp` to stdout when
ready. The SDK serves both protocol eras: legacy `initialize` and 2026-07-28 `server/discover`.

Resources (`--count` in total, default 250, paged by `--page-size`, default 10):
  py://blob/bytes.bin       application/octet-stream, the bytes 0..255 (listed first)
  py://items/<group>/<n>    n = 1..count-1, group = GROUPS[n % 5]
Template py://items/{group}/{n}: any group of [A-Za-z0-9_-] and any decimal n can be read.
Unknown URIs get what the SDK's MCPServer sends for ResourceNotFoundError:
  -32602 "Unknown resource: <uri>" with data {"uri": <uri>}.

Tools that change the catalogue while clients watch (for list-change and update tests):
  add_resource {uri?, text?}   lists a new resource (default py://added/<k>, k = 1, 2, ...)
                               and announces notifications/resources/list_changed
  touch_resource {uri}         changes a listed resource's text (a revision counter) and
                               announces notifications/resources/updated for it
With PY_CALL_LOG=FILE in its environment, every tools/call is appended to FILE as a JSON line
{"name", "arguments", "pid"}: proof that a call reached this very process.
Announcements go to 2026-07-28 clients through subscriptions/listen (as they filter) and,
for legacy clients, to the calling connection (stdio: the only one; `updated` only if it
called resources/subscribe for the URI).

`--clock` makes it a server written against the legacy API, as many Python servers are: it
also lists py://clock/now (the current time, changing on every read), sends
notifications/resources/updated for it every 0.5 s to each connection that called
resources/subscribe for it, and serves no subscriptions/listen. The SDK then answers both
handshakes, declaring `resources.subscribe` after `initialize` only (its 2026-07-28
capabilities derive from listen, which is not served).
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import re
import sys

import anyio
import mcp.types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.lowlevel import NotificationOptions
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ResourcesListChanged, ResourceUpdated
from mcp.shared.exceptions import MCPError

GROUPS = ["alpha", "beta", "gamma", "delta", "epsilon"]
BLOB_URI = "py://blob/bytes.bin"
BLOB = bytes(range(256))
ITEM_RE = re.compile(r"^py://items/([A-Za-z0-9_-]+)/([0-9]+)$")


def item_text(group: str, n: int) -> str:
    if n % 7 == 0:
        return f"# Item {n}\n\nGroup **{group}**.\n"
    extra = " γ is for gamma." if group == "gamma" else ""  # some non-ASCII: size counts bytes
    return f"This is item {n} in group {group}.{extra}\n"


def item_mime(n: int) -> str:
    return "text/markdown" if n % 7 == 0 else "text/plain"


def item_resource(n: int) -> types.Resource:
    group = GROUPS[n % len(GROUPS)]
    res = types.Resource(
        uri=f"py://items/{group}/{n}",
        name=f"item-{n}",
        mime_type=item_mime(n),
        size=len(item_text(group, n).encode()),
    )
    if n % 3 == 0:
        res.title = f"Item {n} ({group})"
    if n % 4 == 0:
        res.description = f"Test item number {n} of group {group}"
    if n % 5 == 0:
        audience = [["user"], ["assistant"], ["user", "assistant"]][n % 3]
        res.annotations = types.Annotations(priority=(n % 11) / 10, audience=audience)
    return res


def all_resources(count: int) -> list[types.Resource]:
    if count <= 0:
        return []
    blob = types.Resource(
        uri=BLOB_URI,
        name="bytes.bin",
        title="All byte values",
        description="256 bytes, 0x00..0xff",
        mime_type="application/octet-stream",
        size=len(BLOB),
    )
    return [blob] + [item_resource(n) for n in range(1, count)]


def encode_cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(json.dumps({"o": offset}).encode()).decode()


def decode_cursor(cursor: str, total: int) -> int:
    try:
        offset = json.loads(base64.urlsafe_b64decode(cursor.encode()))["o"]
        if isinstance(offset, int) and 0 <= offset <= total:
            return offset
    except Exception:
        pass
    raise MCPError(code=types.INVALID_PARAMS, message=f"Invalid cursor: {cursor}")


TOOLS = [
    types.Tool(
        name="add_resource",
        description="List a new resource and announce notifications/resources/list_changed.",
        input_schema={
            "type": "object",
            "properties": {"uri": {"type": "string"}, "text": {"type": "string"}},
        },
    ),
    types.Tool(
        name="touch_resource",
        description="Change a listed resource and announce notifications/resources/updated.",
        input_schema={"type": "object", "properties": {"uri": {"type": "string"}}, "required": ["uri"]},
    ),
]


CLOCK_URI = "py://clock/now"
CLOCK_TICK = 0.5


def build_server(count: int, page_size: int, clock: bool = False) -> tuple[Server, object]:
    """The server, and the task to run beside it (the clock's ticks; None without --clock)."""
    resources = all_resources(count)
    if clock:
        resources.append(types.Resource(uri=CLOCK_URI, name="now", title="Current time", mime_type="text/plain"))
    clock_sessions: list[object] = []  # sessions that subscribed to the clock (legacy)
    added: dict[str, str] = {}  # uri -> text, for add_resource
    revisions: dict[str, int] = {}  # uri -> touches, for touch_resource
    subscribed: set[str] = set()  # legacy resources/subscribe
    bus = InMemorySubscriptionBus()

    async def list_tools(ctx: ServerRequestContext, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=TOOLS)

    async def call_tool(ctx: ServerRequestContext, params: types.CallToolRequestParams) -> types.CallToolResult:
        args = params.arguments or {}
        log = os.environ.get("PY_CALL_LOG")
        if log:
            with open(log, "a") as f:
                f.write(json.dumps({"name": params.name, "arguments": args, "pid": os.getpid()}) + "\n")
        if params.name == "add_resource":
            uri = args.get("uri") or f"py://added/{len(added) + 1}"
            if any(r.uri == uri for r in resources):
                raise MCPError(code=types.INVALID_PARAMS, message=f"already listed: {uri}")
            added[uri] = args.get("text") or f"Added resource {uri}.\n"
            resources.append(types.Resource(uri=uri, name=uri.rsplit("/", 1)[-1], mime_type="text/plain"))
            await ctx.session.send_resource_list_changed()
            await bus.publish(ResourcesListChanged())
            return types.CallToolResult(content=[types.TextContent(type="text", text=uri)])
        if params.name == "touch_resource":
            uri = args.get("uri", "")
            if not any(r.uri == uri for r in resources):
                raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown resource: {uri}", data={"uri": uri})
            revisions[uri] = revisions.get(uri, 0) + 1
            if uri in subscribed:
                await ctx.session.send_resource_updated(uri)
            await bus.publish(ResourceUpdated(uri=uri))
            return types.CallToolResult(content=[types.TextContent(type="text", text=f"{uri} revision {revisions[uri]}")])
        raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown tool: {params.name}")

    async def subscribe(ctx: ServerRequestContext, params: types.SubscribeRequestParams) -> types.EmptyResult:
        subscribed.add(str(params.uri))
        if str(params.uri) == CLOCK_URI and ctx.session not in clock_sessions:
            clock_sessions.append(ctx.session)
        return types.EmptyResult()

    async def tick() -> None:
        while True:
            await anyio.sleep(CLOCK_TICK)
            if CLOCK_URI not in subscribed:
                continue
            for session in list(clock_sessions):
                try:
                    await session.send_resource_updated(CLOCK_URI)
                except Exception:
                    clock_sessions.remove(session)

    async def unsubscribe(ctx: ServerRequestContext, params: types.UnsubscribeRequestParams) -> types.EmptyResult:
        subscribed.discard(str(params.uri))
        return types.EmptyResult()

    def touched(uri: str, text: str) -> str:
        n = revisions.get(uri, 0)
        return f"{text}(revision {n})\n" if n else text

    async def list_resources(
        ctx: ServerRequestContext, params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        cursor = params.cursor if params else None
        start = 0 if cursor is None else decode_cursor(cursor, len(resources))
        end = start + page_size
        page = resources[start:end]
        next_cursor = encode_cursor(end) if end < len(resources) else None
        return types.ListResourcesResult(resources=page, next_cursor=next_cursor)

    async def list_templates(
        ctx: ServerRequestContext, params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        template = types.ResourceTemplate(
            uri_template="py://items/{group}/{n}",
            name="item",
            title="Item by group and number",
            description="Any group name and any non-negative integer n",
        )
        return types.ListResourceTemplatesResult(resource_templates=[template])

    async def read_resource(
        ctx: ServerRequestContext, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        if clock and uri == CLOCK_URI:
            import datetime

            now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds")
            return types.ReadResourceResult(contents=[types.TextResourceContents(uri=uri, mime_type="text/plain", text=f"Current time: {now}\n")])
        if uri in added:
            text = types.TextResourceContents(uri=uri, mime_type="text/plain", text=touched(uri, added[uri]))
            return types.ReadResourceResult(contents=[text])
        if uri == BLOB_URI:
            blob = types.BlobResourceContents(
                uri=uri, mime_type="application/octet-stream", blob=base64.b64encode(BLOB).decode()
            )
            return types.ReadResourceResult(contents=[blob])
        m = ITEM_RE.match(uri)
        if m:
            group, n = m.group(1), int(m.group(2))
            body = touched(uri, item_text(group, n))
            text = types.TextResourceContents(uri=uri, mime_type=item_mime(n), text=body)
            return types.ReadResourceResult(contents=[text])
        raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown resource: {uri}", data={"uri": uri})

    listen = {} if clock else {"on_subscriptions_listen": ListenHandler(bus)}
    server = Server(
        "mcpick-py-peer",
        version="0.1.0",
        title="mcpick Python test peer",
        instructions="Test server with paged resources.",
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_read_resource=read_resource,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_subscribe_resource=subscribe,
        on_unsubscribe_resource=unsubscribe,
        **listen,
    )
    return server, (tick if clock else None)


async def serve_stdio(server: Server, beside=None) -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read_stream, write_stream):
        options = server.create_initialization_options(NotificationOptions(resources_changed=True))
        async with anyio.create_task_group() as tg:
            if beside is not None:
                tg.start_soon(beside)
            await server.run(read_stream, write_stream, options)
            tg.cancel_scope.cancel()


async def serve_http(server: Server, port: int, beside=None) -> None:
    import uvicorn

    app = server.streamable_http_app(host="127.0.0.1")
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    web = uvicorn.Server(config)

    async def announce() -> None:
        while not web.started:
            await anyio.sleep(0.02)
        real_port = web.servers[0].sockets[0].getsockname()[1]
        print(f"listening on http://127.0.0.1:{real_port}/mcp", flush=True)

    async with anyio.create_task_group() as tg:
        tg.start_soon(announce)
        if beside is not None:
            tg.start_soon(beside)
        await web.serve()
        tg.cancel_scope.cancel()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=250, help="number of listed resources (default 250)")
    ap.add_argument("--page-size", type=int, default=10, help="resources/list page size (default 10)")
    ap.add_argument("--http", type=int, metavar="PORT", help="serve Streamable HTTP on 127.0.0.1:PORT/mcp")
    ap.add_argument("--clock", action="store_true", help="list py://clock/now, ticking for legacy subscribers only")
    args = ap.parse_args()
    if args.page_size < 1:
        ap.error("--page-size must be >= 1")
    server, beside = build_server(args.count, args.page_size, args.clock)
    try:
        if args.http is None:
            anyio.run(serve_stdio, server, beside)
        else:
            anyio.run(serve_http, server, args.http, beside)
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
