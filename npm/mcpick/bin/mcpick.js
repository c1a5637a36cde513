#!/usr/bin/env node
// Runs the mcpick binary of this platform, which npm installed as one optional package
// (`@mcpick/<platform>-<arch>`), with this process's arguments, terminal and environment,
// and exits as it exits. How the hosts' own npm packages ship native binaries.
"use strict";

const { spawnSync } = require("node:child_process");
const path = require("node:path");

const target = `${process.platform}-${process.arch}`;
const name = `@mcpick/${target}`;
const exe = process.platform === "win32" ? "mcpick.exe" : "mcpick";

let binary;
try {
  binary = path.join(path.dirname(require.resolve(`${name}/package.json`)), "bin", exe);
} catch {
  console.error(
    `mcpick: no binary for ${target} was installed (the package ${name}).\n` +
      "npm skips optional packages when installed with --no-optional or --omit=optional; " +
      "install again without it, or see https://github.com/mcpick/mcpick#install for other ways."
  );
  process.exit(1);
}

// Run by `npx` (or `npm exec`, which npm says in `npm_command`), the binary sits in npm's cache,
// which npm may clean: mcpick then writes `npx -y mcpick@VERSION` into a host's entries and
// hooks, not its own path. Any other run (a global install's `mcpick` on PATH) says nothing.
const env = { ...process.env };
delete env.MCPICK_NPX;
if (process.env.npm_command === "exec") {
  env.MCPICK_NPX = `mcpick@${require("../package.json").version}`;
}

const run = spawnSync(binary, process.argv.slice(2), { stdio: "inherit", env });
if (run.error) {
  console.error(`mcpick: could not start ${binary}: ${run.error.message}`);
  process.exit(1);
}
if (run.signal) {
  process.kill(process.pid, run.signal);
}
process.exit(run.status ?? 1);
