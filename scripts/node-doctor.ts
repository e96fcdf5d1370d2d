/**
 * npm run -s node:doctor -- --url URL --kind tinker|openai|embedded --model NAME [--api-key-env VAR]
 *                           [--settings FILE] [--timeout SECONDS] [--name NAME]
 *
 * Runs the node doctor (lib/node-doctor) — the same checks the Nodes page, the launch gate and the
 * worker run — against a node that need not be registered, and prints its report as ONE JSON line:
 * {"doctor":"node", "ok", "checks":[{"check","status":"ok"|"failed"|"skipped","reason",…}], "facts", …}.
 * The API key is read from the environment variable --api-key-env names (never from the command line,
 * where it would land in shell history and process lists). --settings is a JSON file of node settings
 * (contracts/node-settings.ts), e.g. {"models":{"Qwen/Qwen3-8B":{"renderer":"qwen3"}}}.
 * Exit status: 0 when every check a role needs passed, 1 when one failed, 2 on bad usage.
 */
import { readFileSync } from "node:fs";
import { normaliseNodeUrl } from "../lib/node-url";
import { parseArgs } from "node:util";
import { z } from "zod";
import { nodeSettingsSchema } from "../contracts/node-settings";
import { runDoctor } from "../lib/node-doctor";

const USAGE = "usage: npm run -s node:doctor -- --url URL --kind tinker|openai|embedded --model NAME [--api-key-env VAR] [--settings FILE] [--timeout SECONDS] [--name NAME]";

function fail(message: string): never {
  process.stderr.write(`node:doctor: ${message}\n${USAGE}\n`);
  process.exit(2);
}

const argsSchema = z.object({
  url: z
    .string({ required_error: "--url is required" })
    .refine((u) => URL.canParse(u) && /^https?:\/\/[^/]/.test(u), "--url must be an http(s) URL like http://gpu-1:8000"),
  kind: z.enum(["tinker", "openai", "embedded"], { required_error: "--kind is required", invalid_type_error: "--kind must be tinker, openai or embedded" }),
  model: z.string({ required_error: "--model is required" }).trim().min(1, "--model must not be empty"),
  "api-key-env": z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "--api-key-env must name an environment variable").optional(),
  settings: z.string().optional(),
  timeout: z.coerce.number().positive("--timeout must be a positive number of seconds").max(3600).optional(),
  name: z.string().min(1).optional(),
});

const raw = (() => {
  try {
    return parseArgs({
      options: {
        url: { type: "string" },
        kind: { type: "string" },
        model: { type: "string" },
        "api-key-env": { type: "string" },
        settings: { type: "string" },
        timeout: { type: "string" },
        name: { type: "string" },
        help: { type: "boolean" },
      },
      strict: true,
    }).values;
  } catch (e) {
    return fail(e instanceof Error ? e.message : String(e));
  }
})();
if (raw.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const parsed = argsSchema.safeParse(raw);
if (!parsed.success) {
  const kindIssue = parsed.error.issues.find((i) => i.path[0] === "kind" && i.code === "invalid_enum_value");
  fail(kindIssue ? "--kind must be tinker, openai or embedded" : parsed.error.issues[0]!.message);
}
const args = parsed.data;

let apiKey: string | undefined;
if (args["api-key-env"]) {
  apiKey = process.env[args["api-key-env"]];
  if (!apiKey) fail(`the environment variable ${args["api-key-env"]} (--api-key-env) is not set`);
}

let settings = nodeSettingsSchema.parse({});
if (args.settings) {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(args.settings, "utf8"));
  } catch (e) {
    fail(`${args.settings}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const s = nodeSettingsSchema.safeParse(json);
  if (!s.success) {
    const issue = s.error.issues[0]!;
    fail(`${args.settings}: settings.${issue.path.join(".") || "(root)"}: ${issue.message}`);
  }
  settings = s.data;
}

const url = normaliseNodeUrl(args.url);
if (!url.ok) fail(`--url: ${url.message}`);

const report = await runDoctor(
  { kind: args.kind, url: url.url, apiKey, nodeName: args.name ?? args.url, settings },
  args.model,
  { timeoutMs: (args.timeout ?? 60) * 1000 },
);
process.stdout.write(`${JSON.stringify(report)}\n`);
process.exitCode = report.ok ? 0 : 1;
