#!/usr/bin/env node
/**
 * TEST DOUBLE — a small stdio MCP server that misbehaves on request, written directly on JSON-RPC lines
 * (not the SDK) so it can break the protocol in every way a real server might:
 *
 *   node misbehaving-server.mjs [--fail-start] [--hang-start] [--banner] [--crash-after N]
 *
 * --fail-start   exits with code 2 and a message on stderr before answering anything
 * --hang-start   never answers initialize
 * --banner       writes a non-JSON line to stdout before answering (the spec forbids it)
 * --crash-after N  exits with code 3 on the N-th tools/call (a crash in the middle of an episode)
 * --hang-start-if-exists FILE  behaves the first time (creating FILE), then never answers initialize
 *                  in later processes (a run's tool discovery succeeds, its episodes' servers hang)
 *
 * Tools: echo {text} (text), counter {} (calls so far in THIS process: 1 in a fresh one), env {name}
 * (the value of an environment variable, or null), cwd {}, fail {message} (isError result), crash {}
 * (exits with code 3 mid-call), hang {} (never answers), huge {mb} (a text result of mb megabytes,
 * written in one line), garbage {} (a non-JSON line instead of an answer), malformed {} (a result
 * whose content is not a list), rich {} (image + resource link + embedded resource + text),
 * structured {} (structuredContent with a text block repeating it), spawn_child {} (starts a
 * `sleep 600` grandchild and answers with its pid).
 */
import { spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";

const argv = process.argv.slice(2);
const flag = (f) => argv.includes(f);
const hangMarker = argv.includes("--hang-start-if-exists") ? argv[argv.indexOf("--hang-start-if-exists") + 1] : undefined;
let hangStart = flag("--hang-start");
if (hangMarker) {
  if (existsSync(hangMarker)) hangStart = true;
  else writeFileSync(hangMarker, "started once\n");
}
const crashAfter = argv.includes("--crash-after") ? Number(argv[argv.indexOf("--crash-after") + 1]) : Infinity;

if (flag("--fail-start")) {
  process.stderr.write("misbehaving-server: cannot open its database (on purpose)\n");
  process.exit(2);
}

const tools = [
  { name: "echo", description: "Echo a text back", inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } },
  { name: "counter", description: "Calls so far in this server process", inputSchema: { type: "object", properties: {} } },
  { name: "env", description: "An environment variable of the server", inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } },
  { name: "cwd", description: "The server's working directory", inputSchema: { type: "object", properties: {} } },
  { name: "fail", description: "Answer with a tool error", inputSchema: { type: "object", properties: { message: { type: "string" } } } },
  { name: "crash", description: "Exit in the middle of the call", inputSchema: { type: "object", properties: {} } },
  { name: "hang", description: "Never answer", inputSchema: { type: "object", properties: {} } },
  { name: "huge", description: "A very large text result", inputSchema: { type: "object", properties: { mb: { type: "number" } } } },
  { name: "garbage", description: "Write a non-JSON line instead of an answer", inputSchema: { type: "object", properties: {} } },
  { name: "malformed", description: "A result that is not a CallToolResult", inputSchema: { type: "object", properties: {} } },
  { name: "rich", description: "Image, resource link, embedded resource and text", inputSchema: { type: "object", properties: {} } },
  { name: "structured", description: "Structured content", inputSchema: { type: "object", properties: {} }, outputSchema: { type: "object", properties: { total: { type: "number" } } } },
  { name: "spawn_child", description: "Start a long-lived grandchild process", inputSchema: { type: "object", properties: {} } },
];

let calls = 0;
const send = (msg) => process.stdout.write(JSON.stringify(msg) + "\n");
const text = (t) => ({ content: [{ type: "text", text: t }] });

function callTool(id, name, args) {
  calls++;
  if (calls >= crashAfter) process.exit(3);
  switch (name) {
    case "echo":
      return send({ jsonrpc: "2.0", id, result: text(String(args.text ?? "")) });
    case "counter":
      return send({ jsonrpc: "2.0", id, result: text(String(calls)) });
    case "env":
      return send({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text: JSON.stringify({ value: process.env[args.name] ?? null }) }] } });
    case "cwd":
      return send({ jsonrpc: "2.0", id, result: text(process.cwd()) });
    case "fail":
      return send({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text: String(args.message ?? "it failed") }], isError: true } });
    case "crash":
      process.stderr.write("misbehaving-server: segfault (on purpose)\n");
      return process.exit(3);
    case "hang":
      return;
    case "huge": {
      const size = Math.round(Number(args.mb ?? 50) * 1024 * 1024);
      const line = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"${"x".repeat(size)}"}]}}\n`;
      return process.stdout.write(line);
    }
    case "garbage":
      return process.stdout.write("Segmentation fault (core dumped)\n");
    case "malformed":
      return send({ jsonrpc: "2.0", id, result: { content: "not a list of blocks" } });
    case "rich":
      return send({
        jsonrpc: "2.0",
        id,
        result: {
          content: [
            { type: "text", text: "a chart and its data" },
            { type: "image", mimeType: "image/png", data: Buffer.from("PNG-bytes").toString("base64") },
            { type: "resource_link", uri: "file:///data/report.csv", name: "report.csv", mimeType: "text/csv" },
            { type: "resource", resource: { uri: "mem://notes/1", mimeType: "text/plain", text: "note one" } },
          ],
        },
      });
    case "structured":
      return send({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text: '{"total": 7}' }], structuredContent: { total: 7 } } });
    case "spawn_child": {
      const child = spawn("sleep", ["600"], { stdio: "ignore" });
      return send({ jsonrpc: "2.0", id, result: text(String(child.pid)) });
    }
    default:
      return send({ jsonrpc: "2.0", id, error: { code: -32602, message: `Tool ${name} not found` } });
  }
}

function handle(msg) {
  if (msg.id === undefined) return; // notifications
  switch (msg.method) {
    case "initialize":
      if (hangStart) return;
      if (flag("--banner")) process.stdout.write("misbehaving-server v1 listening on stdio\n");
      return send({ jsonrpc: "2.0", id: msg.id, result: { protocolVersion: msg.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "misbehaving", version: "1.0.0" } } });
    case "tools/list":
      return send({ jsonrpc: "2.0", id: msg.id, result: { tools } });
    case "tools/call":
      return callTool(msg.id, msg.params.name, msg.params.arguments ?? {});
    case "ping":
      return send({ jsonrpc: "2.0", id: msg.id, result: {} });
    default:
      return send({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: `Method not found: ${msg.method}` } });
  }
}

let buffer = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  buffer += chunk;
  let nl;
  while ((nl = buffer.indexOf("\n")) >= 0) {
    const line = buffer.slice(0, nl);
    buffer = buffer.slice(nl + 1);
    if (line.trim()) handle(JSON.parse(line));
  }
});
// Like real stdio servers: exit when the client goes away.
process.stdin.on("end", () => process.exit(0));
