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

const run = spawnSync(binary, process.argv.slice(2), { stdio: "inherit" });
if (run.error) {
  console.error(`mcpick: could not start ${binary}: ${run.error.message}`);
  process.exit(1);
}
if (run.signal) {
  process.kill(process.pid, run.signal);
}
process.exit(run.status ?? 1);
