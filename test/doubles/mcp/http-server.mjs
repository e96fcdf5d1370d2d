#!/usr/bin/env node
/**
 * TEST DOUBLE — a streamable-HTTP MCP server built on the SDK's server side, with per-session state:
 *
 *   node http-server.mjs            (prints "listening <port>" on stdout)
 *
 * Each session (initialize → Mcp-Session-Id) has its own counter, so a test can tell whether two
 * episodes shared one. Requires `Authorization: Bearer test-token`. Tools: counter {} (calls so far in
 * this session), huge {mb} (a text result of mb megabytes). Stdout carries only the port line.
 */
import http from "node:http";
import { randomUUID } from "node:crypto";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

const sessions = new Map();

function newServer() {
  const server = new McpServer({ name: "http-double", version: "1.0.0" });
  let calls = 0;
  server.registerTool("counter", { description: "Calls so far in this session", inputSchema: {} }, async () => ({ content: [{ type: "text", text: String(++calls) }] }));
  server.registerTool("huge", { description: "A very large text result", inputSchema: { mb: z.number() } }, async ({ mb }) => ({
    content: [{ type: "text", text: "x".repeat(Math.round(mb * 1024 * 1024)) }],
  }));
  return server;
}

async function body(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? JSON.parse(text) : undefined;
}

const httpServer = http.createServer(async (req, res) => {
  if (req.headers.authorization !== "Bearer test-token") {
    res.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ error: "unauthorized" }));
    return;
  }
  const id = req.headers["mcp-session-id"];
  const parsed = req.method === "POST" ? await body(req) : undefined;
  let transport = typeof id === "string" ? sessions.get(id) : undefined;
  if (!transport) {
    if (req.method !== "POST" || !isInitializeRequest(parsed)) {
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }));
      return;
    }
    transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: true,
      onsessioninitialized: (sid) => sessions.set(sid, transport),
    });
    transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
    await newServer().connect(transport);
  }
  await transport.handleRequest(req, res, parsed);
});

httpServer.listen(0, "127.0.0.1", () => {
  process.stdout.write(`listening ${httpServer.address().port}\n`);
});
process.on("SIGTERM", () => process.exit(0));
