// The official TypeScript MCP SDK 1.x serving the benchmark's `echo` tool, for the comparison
// table of `benchmarks/` (benches/table.rs).
//
//   node server.mjs stdio         newline-delimited JSON on stdin/stdout
//   node server.mjs http <port>   Streamable HTTP at http://127.0.0.1:<port>/mcp
//
// The SDK 1.x speaks protocol 2025-11-25: a client opens a session with `initialize`, and over
// HTTP every later request carries its `Mcp-Session-Id`. Over HTTP each session gets its own
// server and transport, the SDK's documented stateful pattern; replies are plain JSON
// (`enableJsonResponse`), not event streams.
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";

import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

function echoServer() {
  const server = new McpServer({ name: "mcp-benchmarks-echo", version: "0.1.0" });
  server.registerTool(
    "echo",
    { description: "Echo the text back", inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: "text", text }] }),
  );
  return server;
}

async function serveHttp(port) {
  const sessions = new Map();
  const http = createServer(async (req, res) => {
    try {
      if (req.url !== "/mcp") {
        res.writeHead(404).end();
        return;
      }
      const chunks = [];
      for await (const chunk of req) chunks.push(chunk);
      const text = Buffer.concat(chunks).toString("utf8");
      const body = text.length > 0 ? JSON.parse(text) : undefined;
      const id = req.headers["mcp-session-id"];
      let transport = typeof id === "string" ? sessions.get(id) : undefined;
      if (transport === undefined) {
        if (typeof id === "string" || body?.method !== "initialize") {
          res.writeHead(404, { "content-type": "application/json" });
          res.end('{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"no such session"}}');
          return;
        }
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          enableJsonResponse: true,
          onsessioninitialized: (sid) => sessions.set(sid, transport),
        });
        transport.onclose = () => {
          if (transport.sessionId) sessions.delete(transport.sessionId);
        };
        await echoServer().connect(transport);
      }
      await transport.handleRequest(req, res, body);
    } catch (error) {
      if (!res.headersSent) res.writeHead(400).end(String(error));
    }
  });
  http.keepAliveTimeout = 60_000;
  http.listen(port, "127.0.0.1");
}

const [mode, port] = process.argv.slice(2);
if (mode === "stdio") {
  await echoServer().connect(new StdioServerTransport());
} else if (mode === "http" && port !== undefined) {
  await serveHttp(Number(port));
} else {
  console.error("usage: node server.mjs stdio | http <port>");
  process.exit(2);
}
