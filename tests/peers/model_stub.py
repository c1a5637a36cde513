#!/usr/bin/env python3
"""A recording stub of three model APIs, for driving real hosts offline.

Answers, on 127.0.0.1 at a random port:
  Anthropic Messages   POST /v1/messages (SSE when "stream": true), POST /v1/messages/count_tokens
  Gemini               POST /v1beta/models/M:generateContent, POST /v1beta/models/M:streamGenerateContent
  OpenAI Responses     POST /v1/responses (SSE), GET /v1/models
  OpenAI Chat          POST /v1/chat/completions (SSE when "stream": true); a `role: "tool"`
                       message is a tool result (Cline CLI)
Every request body is written to DIR/NNNN-<api>.json as {"path", "body"} (body parsed as JSON
when it is JSON). Replies are the smallest valid ones: the model says "ok" and stops.

With --call NAME [--call-args JSON], a request that offers a tool named NAME (anywhere in its
"tools"; a tool of a Responses `namespace` tool NS is named NS__TOOL) and carries no tool
result yet is answered with a call of it instead (Anthropic `tool_use`, Gemini
`functionCall`, Responses `function_call`, with its `namespace`), so the host runs the tool
and sends its result in the next request, which is answered "ok".

Prints "PORT\n" on stdout once listening, then stays up until it has been idle for
--idle SECS (default 120) or its parent closes stdin, so a test that dies leaves nothing behind.
"""

import argparse
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ARGS = None
LOCK = threading.Lock()
COUNT = [0]
LAST = [time.monotonic()]

REPLY = "ok"

# Keys a tool result is carried under, per API: Anthropic content blocks, Responses input
# items (by "type"), Gemini parts (by key).
RESULT_TYPES = {"tool_result", "function_call_output", "custom_tool_call_output", "mcp_tool_call_output"}
RESULT_KEYS = {"functionResponse"}


def names_in(doc, namespace=None):
    """Every tool name inside doc (a request's tools, however the API nests them), as
    (name, namespace): a Responses `namespace` tool offers its tools as NS__NAME."""
    if isinstance(doc, dict):
        name = doc.get("name")
        if doc.get("type") == "namespace" and isinstance(name, str):
            yield from names_in(doc.get("tools"), name)
            return
        if isinstance(name, str):
            yield (f"{namespace}__{name}" if namespace else name, name, namespace)
        for k, v in doc.items():
            if k != "name":
                yield from names_in(v, namespace)
    elif isinstance(doc, list):
        for v in doc:
            yield from names_in(v, namespace)


def has_result(doc):
    if isinstance(doc, dict):
        if doc.get("type") in RESULT_TYPES or RESULT_KEYS & doc.keys() or doc.get("role") == "tool":
            return True
        return any(has_result(v) for v in doc.values())
    if isinstance(doc, list):
        return any(has_result(v) for v in doc)
    return False


def wants_call(body):
    """The tool to call in answer to body as (name, namespace), or None (answer "ok")."""
    if not ARGS.call or not isinstance(body, dict):
        return None
    offered = [(name, ns) for full, name, ns in names_in(body.get("tools")) if full == ARGS.call]
    if not offered:
        return None
    # The host's own history of the turn: the request with the call's result in it.
    if has_result({k: v for k, v in body.items() if k != "tools"}):
        return None
    return offered[0]


def call_args():
    return json.loads(ARGS.call_args)


def record(api, path, raw):
    try:
        body = json.loads(raw) if raw else None
    except ValueError:
        body = raw.decode("utf-8", "replace")
    with LOCK:
        COUNT[0] += 1
        n = COUNT[0]
        LAST[0] = time.monotonic()
    name = os.path.join(ARGS.dir, "%04d-%s.json" % (n, api))
    tmp = name + ".tmp"
    with open(tmp, "w") as f:
        json.dump({"path": path, "body": body}, f)
    os.replace(tmp, name)
    return body


def sse(handler, events):
    handler.send_response(200)
    handler.send_header("content-type", "text/event-stream")
    handler.send_header("cache-control", "no-cache")
    # No length: the stream ends when the connection does.
    handler.send_header("connection", "close")
    handler.close_connection = True
    handler.end_headers()
    for event, data in events:
        chunk = ""
        if event:
            chunk += "event: %s\n" % event
        chunk += "data: %s\n\n" % json.dumps(data)
        handler.wfile.write(chunk.encode())
        handler.wfile.flush()


def send_json(handler, doc, status=200):
    data = json.dumps(doc).encode()
    handler.send_response(status)
    handler.send_header("content-type", "application/json")
    handler.send_header("content-length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


def anthropic(handler, body):
    model = (body or {}).get("model", "stub")
    usage = {"input_tokens": 10, "output_tokens": 1}
    message = {
        "id": "msg_stub",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage,
    }
    tool = wants_call(body)
    if tool:
        block = {"type": "tool_use", "id": "toolu_stub", "name": tool[0], "input": call_args()}
        if not (body or {}).get("stream"):
            message["content"] = [block]
            message["stop_reason"] = "tool_use"
            return send_json(handler, message)
        return sse(
            handler,
            [
                ("message_start", {"type": "message_start", "message": message}),
                ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": dict(block, input={})}),
                (
                    "content_block_delta",
                    {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": ARGS.call_args}},
                ),
                ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                (
                    "message_delta",
                    {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None}, "usage": {"output_tokens": 1}},
                ),
                ("message_stop", {"type": "message_stop"}),
            ],
        )
    if not (body or {}).get("stream"):
        message["content"] = [{"type": "text", "text": REPLY}]
        message["stop_reason"] = "end_turn"
        return send_json(handler, message)
    sse(
        handler,
        [
            ("message_start", {"type": "message_start", "message": message}),
            (
                "content_block_start",
                {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            ),
            (
                "content_block_delta",
                {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": REPLY}},
            ),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            (
                "message_delta",
                {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None}, "usage": {"output_tokens": 1}},
            ),
            ("message_stop", {"type": "message_stop"}),
        ],
    )


def gemini_candidate(text):
    return {
        "candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 1, "totalTokenCount": 11},
        "modelVersion": "stub",
    }


def gemini(handler, path, body):
    if "streamGenerateContent" in path:
        tool = wants_call(body)
        if tool:
            reply = gemini_candidate("")
            reply["candidates"][0]["content"]["parts"] = [{"functionCall": {"name": tool[0], "args": call_args()}}]
            return sse(handler, [(None, reply)])
        return sse(handler, [(None, gemini_candidate(REPLY))])
    # The router asks for a JSON verdict; anything else gets plain text.
    text = json.dumps({"complexity_reasoning": "stub", "complexity_score": 1, "reasoning": "stub", "model_choice": "flash"})
    return send_json(handler, gemini_candidate(text))


def openai(handler, body):
    rid = "resp_stub"
    tool = wants_call(body)
    if tool:
        call = {"type": "function_call", "id": "fc_stub", "call_id": "call_stub", "name": tool[0], "arguments": ARGS.call_args, "status": "completed"}
        if tool[1]:
            call["namespace"] = tool[1]
        response = {"id": rid, "object": "response", "status": "in_progress", "output": [], "model": (body or {}).get("model", "stub")}
        done = dict(response, status="completed", output=[call], usage={"input_tokens": 10, "output_tokens": 1, "total_tokens": 11, "input_tokens_details": {"cached_tokens": 0}, "output_tokens_details": {"reasoning_tokens": 0}})
        return sse(
            handler,
            [
                ("response.created", {"type": "response.created", "response": response}),
                ("response.output_item.added", {"type": "response.output_item.added", "output_index": 0, "item": dict(call, status="in_progress", arguments="")}),
                ("response.function_call_arguments.delta", {"type": "response.function_call_arguments.delta", "item_id": "fc_stub", "output_index": 0, "delta": ARGS.call_args}),
                ("response.function_call_arguments.done", {"type": "response.function_call_arguments.done", "item_id": "fc_stub", "output_index": 0, "arguments": ARGS.call_args}),
                ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": call}),
                ("response.completed", {"type": "response.completed", "response": done}),
            ],
        )
    item = {
        "type": "message",
        "id": "msg_stub",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": REPLY, "annotations": []}],
    }
    response = {"id": rid, "object": "response", "status": "in_progress", "output": [], "model": (body or {}).get("model", "stub")}
    done = dict(response, status="completed", output=[item], usage={"input_tokens": 10, "output_tokens": 1, "total_tokens": 11, "input_tokens_details": {"cached_tokens": 0}, "output_tokens_details": {"reasoning_tokens": 0}})
    sse(
        handler,
        [
            ("response.created", {"type": "response.created", "response": response}),
            ("response.output_item.added", {"type": "response.output_item.added", "output_index": 0, "item": dict(item, status="in_progress", content=[])}),
            ("response.output_text.delta", {"type": "response.output_text.delta", "item_id": "msg_stub", "output_index": 0, "content_index": 0, "delta": REPLY}),
            ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}),
            ("response.completed", {"type": "response.completed", "response": done}),
        ],
    )


def chat(handler, body):
    """OpenAI Chat Completions: a tool call when wants_call says so, else "ok"."""
    model = (body or {}).get("model", "stub")
    tool = wants_call(body)
    if tool:
        delta = {"role": "assistant", "content": None, "tool_calls": [{"index": 0, "id": "call_stub", "type": "function", "function": {"name": tool[0], "arguments": ARGS.call_args}}]}
        finish = "tool_calls"
    else:
        delta = {"role": "assistant", "content": REPLY}
        finish = "stop"
    usage = {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11}
    base = {"id": "chatcmpl-stub", "object": "chat.completion.chunk", "created": int(time.time()), "model": model}
    if not (body or {}).get("stream"):
        message = {k: v for k, v in delta.items() if k != "index"}
        return send_json(handler, dict(base, object="chat.completion", choices=[{"index": 0, "message": message, "finish_reason": finish}], usage=usage))
    sse(
        handler,
        [
            (None, dict(base, choices=[{"index": 0, "delta": delta, "finish_reason": None}])),
            (None, dict(base, choices=[{"index": 0, "delta": {}, "finish_reason": finish}])),
            (None, dict(base, choices=[], usage=usage)),
        ],
    )
    # Chat Completions ends its stream with a line that is not JSON.
    handler.wfile.write(b"data: [DONE]\n\n")
    handler.wfile.flush()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def body(self):
        n = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(n) if n else b""
        if self.headers.get("content-encoding") == "gzip":
            import gzip

            raw = gzip.decompress(raw)
        elif self.headers.get("content-encoding") == "zstd":
            raw = b""
        return raw

    def do_GET(self):
        LAST[0] = time.monotonic()
        if self.path.startswith("/v1/models"):
            return send_json(self, {"object": "list", "data": [{"id": "stub", "object": "model"}], "models": []})
        send_json(self, {}, 404)

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_POST(self):
        raw = self.body()
        path = self.path
        if path.startswith("/v1/messages/count_tokens"):
            record("count_tokens", path, raw)
            return send_json(self, {"input_tokens": 10})
        if path.startswith("/v1/messages"):
            return anthropic(self, record("anthropic", path, raw))
        if ":generateContent" in path or ":streamGenerateContent" in path or ":countTokens" in path:
            body = record("gemini", path, raw)
            if ":countTokens" in path:
                return send_json(self, {"totalTokens": 10})
            return gemini(self, path, body)
        if path.startswith("/v1/chat/completions"):
            return chat(self, record("chat", path, raw))
        if path.startswith("/v1/responses"):
            return openai(self, record("openai", path, raw))
        record("unknown", path, raw)
        send_json(self, {"error": "unknown path"}, 404)


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument("--dir", required=True)
    p.add_argument("--idle", type=float, default=120)
    p.add_argument("--call", help="answer a request offering this tool with a call of it")
    p.add_argument("--call-args", default="{}", help="the call's arguments, a JSON object")
    ARGS = p.parse_args()
    os.makedirs(ARGS.dir, exist_ok=True)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)

    def stop_when_idle():
        while time.monotonic() - LAST[0] < ARGS.idle:
            time.sleep(0.5)
        os._exit(0)

    def stop_with_parent():
        try:
            sys.stdin.read()
        except Exception:
            pass
        os._exit(0)

    threading.Thread(target=stop_when_idle, daemon=True).start()
    if not sys.stdin.isatty():
        threading.Thread(target=stop_with_parent, daemon=True).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
