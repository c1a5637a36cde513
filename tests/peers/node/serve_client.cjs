// A legacy-era MCP client (the TypeScript SDK 1.x from npm, `initialize` handshake) for
// mcpick's `serve` tests. Run with NODE_PATH=<peers>/node/node_modules:
//   node serve_client.cjs [--read URI]... -- CMD ARGS...
// Prints one JSON object per line: connected, list, read (per --read), prompt.
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");

async function main() {
  const argv = process.argv.slice(2);
  const dash = argv.indexOf("--");
  const opts = argv.slice(0, dash);
  const [command, ...args] = argv.slice(dash + 1);
  const reads = [];
  for (let i = 0; i < opts.length; i++) if (opts[i] === "--read") reads.push(opts[++i]);
  const emit = (o) => process.stdout.write(JSON.stringify(o) + "\n");

  const client = new Client({ name: "serve-test-ts", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command, args, stderr: "inherit" }));
  emit({ event: "connected", server: client.getServerVersion(), instructions: client.getInstructions() });
  const resources = [];
  let cursor;
  do {
    const page = await client.listResources(cursor ? { cursor } : undefined);
    resources.push(...page.resources);
    cursor = page.nextCursor;
  } while (cursor);
  emit({ event: "list", resources });
  for (const uri of reads) {
    try {
      const r = await client.readResource({ uri });
      emit({ event: "read", uri, ok: true, contents: r.contents });
    } catch (e) {
      emit({ event: "read", uri, ok: false, code: e.code, message: e.message });
    }
  }
  const prompt = await client.getPrompt({ name: "context" });
  emit({ event: "prompt", messages: prompt.messages.map((m) => ({ type: m.content.type, uri: m.content.resource && m.content.resource.uri, text: m.content.text })) });
  await client.close();
}

main().catch((e) => {
  process.stderr.write(String(e && e.stack || e) + "\n");
  process.exit(1);
});
