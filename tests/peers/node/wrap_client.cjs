// A legacy-era MCP client (the TypeScript SDK 1.x from npm, `initialize` handshake) for
// mcpick's `wrap` tests: the same session against any server, so that a wrapped entry's
// answers can be compared with the upstream's own. Run with NODE_PATH=<peers>/node/node_modules:
//   node wrap_client.cjs [--call TOOL JSON-ARGS]... -- CMD ARGS...
// Prints one JSON object: the server's version, capabilities and instructions, then every
// non-resource method's answer by name ({"result": …} or {"error": {code, message, data}}):
// tools/list, each --call (and one of an unknown tool), prompts/list and prompts/get of the
// first prompt, completion/complete of the first template's first variable,
// logging/setLevel, ping, an unknown method; and the listed resource URIs.
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const { ResultSchema } = require("@modelcontextprotocol/sdk/types.js");

async function main() {
  const argv = process.argv.slice(2);
  const dash = argv.indexOf("--");
  const [command, ...args] = argv.slice(dash + 1);
  const calls = [];
  for (let i = 0; i < dash; i++) if (argv[i] === "--call") calls.push([argv[++i], JSON.parse(argv[++i])]);
  const client = new Client({ name: "wrap-test-ts", version: "1.0.0" }, { capabilities: { roots: {} } });
  // `-- URL`: straight to a server over Streamable HTTP (the upstream of a wrapped HTTP entry).
  const transport = /^https?:\/\//.test(command)
    ? new (require("@modelcontextprotocol/sdk/client/streamableHttp.js").StreamableHTTPClientTransport)(new URL(command))
    : new StdioClientTransport({ command, args, stderr: "inherit" });
  await client.connect(transport);
  const out = {
    server: client.getServerVersion(),
    capabilities: client.getServerCapabilities(),
    instructions: client.getInstructions(),
    answers: {},
  };
  // Each request as the SDK sends it, its answer kept whole (errors too).
  const ask = async (name, method, params) => {
    try {
      const result = await client.request({ method, params }, ResultSchema.passthrough());
      out.answers[name] = { result };
    } catch (e) {
      out.answers[name] = { error: { code: e.code, message: e.message, data: e.data } };
    }
  };
  await ask("tools/list", "tools/list", {});
  for (const [i, [name, args]] of calls.entries()) {
    await ask(`tools/call ${i} ${name}`, "tools/call", { name, arguments: args, _meta: { progressToken: `p${i}` } });
  }
  await ask("tools/call unknown", "tools/call", { name: "no_such_tool", arguments: {} });
  await ask("prompts/list", "prompts/list", {});
  const prompt = ((out.answers["prompts/list"].result || {}).prompts || [])[0];
  const promptArgs = {};
  for (const a of (prompt && prompt.arguments) || []) promptArgs[a.name] = "x";
  await ask("prompts/get", "prompts/get", { name: prompt ? prompt.name : "none", arguments: promptArgs });
  const templates = await client.listResourceTemplates().catch(() => ({ resourceTemplates: [] }));
  const template = templates.resourceTemplates[0];
  const variable = template && (template.uriTemplate.match(/\{([^}]+)\}/) || [])[1];
  await ask("completion/complete", "completion/complete", { ref: { type: "ref/resource", uri: template ? template.uriTemplate : "none://" }, argument: { name: variable || "x", value: "" } });
  await ask("logging/setLevel", "logging/setLevel", { level: "debug" });
  await ask("ping", "ping", undefined);
  await ask("no/such/method", "no/such/method", {});
  // The typed helpers too, as an application calls them.
  out.answers["listTools()"] = await client
    .listTools()
    .then((result) => ({ result }))
    .catch((e) => ({ error: { code: e.code, message: e.message, data: e.data } }));
  const resources = [];
  let cursor;
  do {
    const page = await client.listResources(cursor ? { cursor } : undefined);
    resources.push(...page.resources.map((r) => r.uri));
    cursor = page.nextCursor;
  } while (cursor);
  out.resources = resources;
  process.stdout.write(JSON.stringify(out) + "\n");
  await client.close();
}

main().catch((e) => {
  process.stderr.write(String((e && e.stack) || e) + "\n");
  process.exit(1);
});
