/**
 * The launch check (lib/launch-check) against real Postgres: imported datasets (CM2 rows and a task list
 * imported through the real router), MCP references, registered nodes with stored doctor reports, and the
 * prompt floors measured with the real renderers. The API's and the worker's answers are tested in
 * server/rest.int.test.ts, cli/cli.int.test.ts and worker/runner/worker.int.test.ts.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { parseRunConfig, type RunConfigInput } from "../../contracts/run-config";
import { cm2Jsonl } from "../../test/fixtures/cm2";
import { registerCheckedNode } from "../../test/fixtures/doctor-report";
import { callerFor, prisma, resetDatabase, signUp, type TestUser } from "../../test/helpers";
import { latestReport } from "../node-health";
import { dataDir as sharedDataDir, retailDataFiles } from "../tau2/tasks";
import { existsSync } from "node:fs";
import { launchProblems } from ".";

const deps = { prisma, doctorReport: (node: { id: string }, model: string) => latestReport(prisma, node.id, model) };

async function problems(input: RunConfigInput) {
  const parsed = parseRunConfig(input);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return launchProblems(parsed.config, deps);
}

const task = (id: string, system: string, check = true) =>
  JSON.stringify({ id, system, instruction: "What is the price of tea?", checklist: [check ? { question: "Looked it up", check: { type: "tool_called", name: "get_item" } } : "Did it look the price up?"] });

describe("the launch check", () => {
  let member: TestUser;

  beforeAll(async () => {
    await resetDatabase();
    member = await signUp("member");
    // The embedded node as the doctor reports it (its 1,024-token context), and a judge whose report has no context length.
    await registerCheckedNode(prisma, "embedded", ["tiny-gpt"], { facts: { contextLength: 1024, renderer: "tiny-gpt", profile: "envace-embedded" } });
    await registerCheckedNode(prisma, "judge", ["judge-model"], { kind: "openai" });
    const caller = await callerFor(member.headers);
    await caller.datasets.import({ name: "weather", text: cm2Jsonl(3) });
    await caller.datasets.import({ name: "long-prompts", text: [task("a", "You are a shop assistant. ".repeat(60)), task("b", "You are a tea shop assistant. ".repeat(50))].join("\n") + "\n" });
    await caller.datasets.import({ name: "short-prompts", text: [task("a", "You are a shop assistant."), task("b", "x".repeat(4000))].join("\n") + "\n" });
  });

  it("an imported dataset: it exists, the split and task ids do, LLM-judged checklists get a judge, nothing needs a real environment", async () => {
    const base: RunConfigInput = { data: { dataset: "dataset:weather" }, reward: { judge: { node: "judge", model: "judge-model" } } };
    expect(await problems(base)).toEqual([]);
    expect(await problems({ ...base, reward: {} })).toEqual([{ path: "reward.judge", message: "dataset weather has LLM-judged checklists: set reward.judge to a judge node and model" }]);
    expect(await problems({ ...base, data: { dataset: "dataset:weather", split: "test" } })).toEqual([{ path: "data.split", message: "dataset weather has no instances in the test split" }]);
    expect(await problems({ ...base, data: { dataset: "dataset:weather", instanceIds: ["cm2-1", "cm2-99"] } })).toEqual([
      { path: "data.instanceIds", message: 'no instance "cm2-99" in the train split of dataset weather' },
    ]);
    expect(await problems({ ...base, rollout: { paradigm: "environment" } })).toEqual([
      { path: "rollout.paradigm", message: "dataset weather has no executable environment: use the rehearse or simulator paradigm (or run it against a registered MCP server as mcp:<server>/weather)" },
    ]);
    expect(await problems({ ...base, data: { dataset: "dataset:nope" } })).toEqual([
      { path: "data.dataset", message: 'no imported dataset "nope" (import it on the Datasets page, then refer to it by id or name)' },
    ]);
    expect(await problems({ ...base, data: { dataset: "mcp:nobody/weather" } })).toEqual([
      { path: "data.dataset", message: 'no MCP server named "nobody" is registered (an admin registers one on the MCP servers page)' },
    ]);
    // Programmatic checks need no judge.
    expect(await problems({ data: { dataset: "dataset:short-prompts" } })).toEqual([]);
  });

  it("FinMCP-Bench: the sample file, its task positions, the replay's schema file or a registered MCP server with tools — each refusal names what it needs", async () => {
    const base: RunConfigInput = { kind: "eval", data: { dataset: "finmcp:samples" }, finmcp: { environment: "replay", folder: "finmcp-synthetic" } };
    expect(await problems(base)).toEqual([]);
    expect(await problems({ ...base, data: { dataset: "finmcp:benchmark_final" }, finmcp: { environment: "replay" } })).toEqual([
      { path: "data.dataset", message: expect.stringMatching(/^FinMCP-Bench needs .*\/finmcp\/benchmark_final\.json: supply upstream's file .*CC-BY-NC-SA-4\.0/) },
    ]);
    expect(await problems({ ...base, data: { dataset: "finmcp:samples", instanceIds: ["2", "6"] } })).toEqual([{ path: "data.instanceIds", message: expect.stringMatching(/"6" is not a sample position of .*samples\.json \(0 to 5\)/) }]);
    expect(await problems({ ...base, finmcp: { environment: "replay", folder: "finmcp-synthetic", toolSchema: "qieman_schema.json" } })).toEqual([
      { path: "finmcp.toolSchema", message: expect.stringMatching(/needs .*qieman_schema\.json: supply upstream's MCP_SCHEMA file/) },
    ]);
    expect(await problems({ ...base, finmcp: { environment: "mcp:qieman", folder: "finmcp-synthetic" } })).toEqual([
      { path: "finmcp.environment", message: expect.stringMatching(/^no MCP server named "qieman" is registered/) },
    ]);
    // Registered, but it has listed no tools yet (FinMCP sends the server's schemas with every request); then with tools.
    await prisma.mcpServer.create({ data: { name: "qieman", transport: "http", url: "http://127.0.0.1:9/mcp" } });
    expect(await problems({ ...base, finmcp: { environment: "mcp:qieman", folder: "finmcp-synthetic" } })).toEqual([
      { path: "finmcp.environment", message: expect.stringMatching(/^MCP server qieman has listed no tools yet: run Test on the MCP servers page/) },
    ]);
    await prisma.mcpServer.update({ where: { name: "qieman" }, data: { tools: [{ name: "SearchNews", inputSchema: { type: "object" } }] } });
    expect(await problems({ ...base, finmcp: { environment: "mcp:qieman", folder: "finmcp-synthetic" } })).toEqual([]);
  });

  it("every node the config names is registered, on its own field", async () => {
    expect(
      await problems({
        policy: { node: "gpu-1", model: "m" },
        rollout: { paradigm: "simulator", simulator: { node: "sim", model: "s" } },
        reward: { judge: { node: "judge", model: "judge-model" } },
      }),
    ).toEqual([
      { path: "policy.node", message: 'node "gpu-1" (policy) is not registered; add it on the Nodes page' },
      { path: "rollout.simulator.node", message: 'node "sim" (tool simulator) is not registered; add it on the Nodes page' },
    ]);
  });

  it("refuses a policy whose smallest act prompt does not fit the context the doctor found, measured with the node model's renderer", async () => {
    const long = await problems({ data: { dataset: "dataset:long-prompts" } });
    expect(long).toHaveLength(1);
    expect(long[0]!.path).toBe("policy.node");
    // tiny-gpt is byte-level: the smaller task's 1,500-character system prompt plus the chat format.
    expect(long[0]!.message).toMatch(/^dataset:long-prompts act prompts need ≥ 1,5\d\d tokens; node "embedded" \/ tiny-gpt has 1,024 \(its context length, found by the node doctor\): choose a policy model with a longer context$/);
    // One task that fits is enough: the floor is the smallest prompt.
    expect(await problems({ data: { dataset: "dataset:short-prompts" } })).toEqual([]);
    // The tasks named are the ones measured.
    expect(await problems({ data: { dataset: "dataset:short-prompts", instanceIds: ["task-b"] } })).toMatchObject([{ path: "policy.node", message: expect.stringMatching(/need ≥ 4,\d{3} tokens/) }]);
  });

  it("checks each evaluation suite as its own evaluation, naming its problems on the suite's fields", async () => {
    const train = (evalSuites: NonNullable<NonNullable<RunConfigInput["schedule"]>["evalSuites"]>): RunConfigInput => ({ schedule: { steps: 2, evalSuites } });
    // Two good suites: a built-in split and an imported dataset (rehearsed: it has no environment) with its own judge.
    expect(
      await problems(
        train([
          { name: "shop-test", dataset: "builtin:shop", limit: 2 },
          { name: "weather", dataset: "dataset:weather", split: "train", instanceIds: ["cm2-1"], judge: { node: "judge", model: "judge-model" } },
        ]),
      ),
    ).toEqual([]);
    expect(
      await problems(
        train([
          { name: "ok", dataset: "builtin:shop", limit: 2 },
          { name: "missing", dataset: "dataset:nope", limit: 2 },
          { name: "ids", dataset: "dataset:weather", split: "train", instanceIds: ["cm2-1", "cm2-99"], judge: { node: "judge", model: "judge-model" } },
          { name: "no-judge", dataset: "dataset:weather", split: "train", limit: 1 },
          { name: "real-tools", dataset: "dataset:weather", split: "train", limit: 1, paradigm: "environment", judge: { node: "ghost", model: "m" } },
          { name: "long", dataset: "dataset:long-prompts", split: "train", limit: 2 },
        ]),
      ),
    ).toEqual([
      { path: "schedule.evalSuites.1.dataset", message: 'no imported dataset "nope" (import it on the Datasets page, then refer to it by id or name)' },
      { path: "schedule.evalSuites.2.instanceIds", message: 'no instance "cm2-99" in the train split of dataset weather' },
      // The run names no judge, so the suite's missing one is the run's field.
      { path: "reward.judge", message: "dataset weather has LLM-judged checklists: set reward.judge to a judge node and model" },
      { path: "schedule.evalSuites.4.paradigm", message: "dataset weather has no executable environment: use the rehearse or simulator paradigm (or run it against a registered MCP server as mcp:<server>/weather)" },
      { path: "schedule.evalSuites.4.judge.node", message: 'node "ghost" (judge) is not registered; add it on the Nodes page' },
      // The policy's context against the suite's prompts: the suite's dataset is what does not fit.
      { path: "schedule.evalSuites.5.dataset", message: expect.stringMatching(/^dataset:long-prompts act prompts need ≥ 1,5\d\d tokens; node "embedded" \/ tiny-gpt has 1,024/) },
    ]);
    // A problem of the run itself is said once, not again for every suite.
    expect(await problems({ policy: { node: "gpu-1", model: "m" }, schedule: { evalSuites: [{ name: "a", dataset: "builtin:shop", limit: 1 }, { name: "b", dataset: "builtin:shop", limit: 1 }] } })).toEqual([
      { path: "policy.node", message: 'node "gpu-1" (policy) is not registered; add it on the Nodes page' },
    ]);
  });

  it.runIf(existsSync(retailDataFiles({ required: [] }).userGuidelines))("a tau2 suite: its task ids, and its user simulator's context, on the suite's fields", async () => {
    const suite = (over: object) => ({ schedule: { steps: 2, evalSuites: [{ name: "retail", dataset: "tau2:retail", split: "train" as const, instanceIds: ["0"], ...over }] } });
    expect(await problems(suite({ userSimulator: { node: "embedded", model: "tiny-gpt" } }))).toEqual([
      { path: "schedule.evalSuites.0.userSimulator.node", message: expect.stringMatching(/^tau2:retail user-simulator prompts need ≥ 2,073 tokens; node "embedded" \/ tiny-gpt has 1,024/) },
    ]);
    expect(await problems(suite({ userSimulator: { node: "judge", model: "judge-model" }, instanceIds: ["0", "9999"] }))).toEqual([
      { path: "schedule.evalSuites.0.instanceIds", message: 'no task "9999" in the tau2 retail train split' },
    ]);
    expect(await problems(suite({ userSimulator: { node: "nobody", model: "u" } }))).toEqual([
      { path: "schedule.evalSuites.0.userSimulator.node", message: 'node "nobody" (user simulator) is not registered; add it on the Nodes page' },
    ]);
  });

  it.runIf(existsSync(retailDataFiles({ required: [] }).userGuidelines))("tau2 retail: its task ids, and the user simulator's prompts against its node's context", async () => {
    const evalOn = (userSimulator: { node: string; model: string }, instanceIds = ["0"]): RunConfigInput => ({ kind: "eval", data: { dataset: "tau2:retail", instanceIds }, rollout: { userSimulator } });
    const [refusal, ...rest] = await problems(evalOn({ node: "embedded", model: "tiny-gpt" }));
    expect(rest).toEqual([]);
    // Task 0's user-simulator prompt is 2,073 tiny-gpt tokens: what the embedded node answered with HTTP 400.
    expect(refusal).toEqual({
      path: "rollout.userSimulator.node",
      message: 'tau2:retail user-simulator prompts need ≥ 2,073 tokens; node "embedded" / tiny-gpt has 1,024 (its context length, found by the node doctor): choose a user simulator model with a longer context',
    });
    // A node whose doctor found no context length is not measured; unknown task ids are named.
    expect(await problems(evalOn({ node: "judge", model: "judge-model" }))).toEqual([]);
    expect(await problems(evalOn({ node: "judge", model: "judge-model" }, ["0", "tau2:retail/1", "9999"]))).toEqual([
      { path: "data.instanceIds", message: 'no task "9999" in the tau2 retail train split' },
    ]);
  });

  const vita = existsSync(`${sharedDataDir()}/vitabench/prompts`);
  it.runIf(vita)("VitaBench: a domain file not supplied is named with where it goes; its task ids; the user simulator's and the agent's first prompts against their nodes' contexts", async () => {
    await registerCheckedNode(prisma, "qwen-8k", ["Qwen/Qwen3-8B"], { kind: "openai", facts: { contextLength: 8192 } });
    const judge = { node: "judge", model: "judge-model" };
    const evalOn = (dataset: string, roles: { policy?: { node: string; model: string }; user?: { node: string; model: string } } = {}, instanceIds = ["10711001"]): RunConfigInput => ({
      kind: "eval",
      policy: roles.policy ?? judge,
      data: { dataset, instanceIds },
      rollout: { paradigm: "environment", userSimulator: roles.user ?? judge },
      reward: { judge },
    });
    expect(await problems(evalOn("vitabench:ota/en", {}, []))).toEqual([
      {
        path: "data.dataset",
        message: `VitaBench ota (en) needs ota/tasks_en.json: supply upstream's data/vita/domains/ota/tasks_en.json as ${sharedDataDir()}/vitabench/ota/tasks_en.json (not shipped with the product: it is 4 MiB or larger)`,
      },
    ]);
    expect(await problems(evalOn("vitabench:delivery/en", {}, ["10711001", "vitabench:delivery/en/10711002", "404"]))).toEqual([{ path: "data.instanceIds", message: 'no task "404" in delivery/tasks_en.json' }]);
    // The embedded node (1,024 tokens) cannot play the user simulator: task 10711001's persona prompt alone is 4,635
    // tiny-gpt tokens. As the agent its first prompt fits (its chat format leaves tool schemas out).
    expect(await problems(evalOn("vitabench:delivery/en", { policy: { node: "embedded", model: "tiny-gpt" }, user: { node: "embedded", model: "tiny-gpt" } }))).toEqual([
      {
        path: "rollout.userSimulator.node",
        message: 'vitabench:delivery/en user-simulator prompts need ≥ 4,635 tokens; node "embedded" / tiny-gpt has 1,024 (its context length, found by the node doctor): choose a user simulator model with a longer context',
      },
    ]);
    expect(await problems(evalOn("vitabench:delivery/en", { user: { node: "qwen-8k", model: "Qwen/Qwen3-8B" } }))).toEqual([]);
    // The agent's first prompt: the system prompt and the 20 delivery tools, rendered with Qwen3's template.
    await registerCheckedNode(prisma, "qwen-2k", ["Qwen/Qwen3-8B"], { kind: "openai", facts: { contextLength: 2048 } });
    expect(await problems(evalOn("vitabench:delivery/en", { policy: { node: "qwen-8k", model: "Qwen/Qwen3-8B" } }))).toEqual([]);
    expect(await problems(evalOn("vitabench:delivery/en", { policy: { node: "qwen-2k", model: "Qwen/Qwen3-8B" } }))).toEqual([
      {
        path: "policy.node",
        message:
          'vitabench:delivery/en agent prompts (system prompt and tools, before the user\'s first message) need ≥ 3,293 tokens; node "qwen-2k" / Qwen/Qwen3-8B has 2,048 (its context length, found by the node doctor): choose a policy model with a longer context',
      },
    ]);
  });
});
