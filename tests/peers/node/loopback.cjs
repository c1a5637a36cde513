// Preload for Node test peers: `node --require tests/peers/node/loopback.cjs SERVER.js ...`
// server-everything listens with `app.listen(process.env.PORT || 3001)`, i.e. on every
// interface, and with PORT=0 it logs "port 0". This forces a host-less listen(port) onto
// 127.0.0.1 and, once listening, prints the real address to stderr:
//   mcpick-peer: listening on http://127.0.0.1:PORT
// (stderr, so a stdio server's stdout stays pure JSON-RPC; stdio servers never listen anyway).
"use strict";
const net = require("node:net");

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const port = args[0];
  const isPort = typeof port === "number" || (typeof port === "string" && /^\d+$/.test(port));
  if (isPort && typeof args[1] !== "string") {
    args.splice(1, 0, "127.0.0.1");
    this.once("listening", () => {
      const addr = this.address();
      process.stderr.write(`mcpick-peer: listening on http://127.0.0.1:${addr.port}\n`);
    });
  }
  return listen.apply(this, args);
};
