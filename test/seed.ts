/**
 * Seeding helpers for tests, e2e and benchmarks: a realistic run written the way the worker writes it
 * (worker/runner/persist.ts documents the shape), but fast enough for 100k trajectories / 1M turns.
 *
 * Bulk rows are generated inside Postgres (`INSERT … SELECT generate_series`) from a small set of
 * scenario templates built here in TypeScript (act outputs with <think> and <tool_call> blocks, rehearse
 * outputs with <execution_result>, rehearsed vs real responses with their fidelity computed by the engine's
 * own `compareResponses`). Rows are deterministic per seed except their UUIDs.
 *
 * Layout of a seeded trajectory with n turns (U = turns per user turn, min(n, 20) rounded up to even):
 *   position p = index mod U: p = 0 user message; odd p act (tool call, or the final reply at the end of the
 *   block); even p > 0 the tool turn answering the call before it (rehearse | simulator | environment).
 * Trajectories whose termination reason is an act parse error end on an act turn carrying that error code.
 * Verdicts: two checklist items per user turn, judging the first act step and the block's last act step.
 */
import crypto from "node:crypto";
import type { PrismaClient } from "@prisma/client";
import { compareResponses } from "../worker/engine/fidelity";
import { quickstartPreset } from "../contracts/run-config";
import { rollupFidelity } from "../worker/runner/fidelity-rollup";
import { ensureTurnPartition } from "../lib/turn-partitions";
import { errorKindLabels, errorKindOfTermination } from "../lib/outcomes";

export type SeedParadigm = "rehearse" | "simulator" | "environment";

export interface SeedRunOptions {
  userId: string;
  name?: string;
  /** Total trajectories, spread evenly over the steps (default 64). */
  trajectories?: number;
  /** Turns per trajectory (default 9). */
  turnsPerTrajectory?: number;
  /** Training steps (default: trajectories / 64, at least 1). */
  steps?: number;
  /** Rollouts per instance group, K (default 4). */
  rolloutsPerInstance?: number;
  /** Size of the instance pool the groups draw from (default 40). */
  instances?: number;
  /** Metric series (default 8) and points per series (default: steps). */
  metricSeries?: number;
  metricPoints?: number;
  paradigm?: SeedParadigm;
  /** Shadow execution: tool turns carry the real response and a fidelity object (default true). */
  shadowExecution?: boolean;
  /** Environment paradigm: the fidelity probe's prediction and its fidelity sit beside each real response (default false). */
  fidelityProbe?: boolean;
  /**
   * Scenario set: unset = the τ²-retail flavoured default; "tau2" adds text results ("noa_kim_4813") and
   * `Error: …` responses; "shop" uses the built-in shop's tools and JSON error objects.
   */
  domain?: "tau2" | "shop";
  /** Every `evalEvery`-th step's trajectories are written as phase "eval" (default 0: none). */
  evalEvery?: number;
  status?: "queued" | "running" | "succeeded" | "failed" | "cancelled";
  tags?: string[];
  createdAt?: Date;
}

export interface SeededRun {
  runId: string;
  trajectories: number;
  turns: number;
  verdicts: number;
  steps: number;
  metricPoints: number;
}

// ------------------------------------------------------------------------------------------------
// Scenario templates (τ²-retail flavoured)
// ------------------------------------------------------------------------------------------------

interface Scenario {
  user: string;
  think: string;
  preface: string;
  tool: string;
  args: Record<string, unknown>;
  rehearsed: unknown;
  real: unknown;
  reply: string;
}

const scenarios: Scenario[] = [
  {
    user: "Hi! I'd like to return the hiking boots from my last order. My email is noa.kim@example.com.",
    think: "The user wants a return. First I need their user id from the email, then the order.",
    preface: "Let me look up your account first.",
    tool: "find_user_id_by_email",
    args: { email: "noa.kim@example.com" },
    rehearsed: { user_id: "noa_kim_4813" },
    real: { user_id: "noa_kim_4813" },
    reply: "I found your account. The boots (item 6546364613) are eligible for return to your original card.",
  },
  {
    user: "Can you tell me the status of order #W2378156?",
    think: "Fetch the order details; status and items decide what is possible.",
    preface: "Checking that order now.",
    tool: "get_order_details",
    args: { order_id: "#W2378156" },
    rehearsed: {
      order_id: "#W2378156",
      status: "delivered",
      items: [{ item_id: "6546364613", name: "Hiking Boots", price: 210.52 }],
      payment: { method: "credit_card_4421", amount: 210.52 },
    },
    real: {
      order_id: "#W2378156",
      status: "delivered",
      items: [{ item_id: "6546364613", name: "Hiking Boots", price: 239.99 }],
      payment: { method: "credit_card_4421", amount: 239.99 },
      fulfillments: [{ tracking_id: ["568199023"] }],
    },
    reply: "Order #W2378156 was delivered. It contains one pair of hiking boots ($239.99).",
  },
  {
    user: "Please cancel my pending order #W4817420, I ordered it by mistake.",
    think: "Cancellation needs the order to be pending and a reason: 'ordered by mistake' is allowed.",
    preface: "I'll cancel it with reason 'ordered by mistake'.",
    tool: "cancel_pending_order",
    args: { order_id: "#W4817420", reason: "ordered by mistake" },
    rehearsed: { order_id: "#W4817420", status: "cancelled", refund: { amount: 54.04, method: "paypal_2188" } },
    real: { order_id: "#W4817420", status: "cancelled", refund: { amount: 54.04, method: "paypal_2188" } },
    reply: "Done: order #W4817420 is cancelled and $54.04 goes back to your PayPal account.",
  },
  {
    user: "What sizes does the running shoe come in?",
    think: "Product details list every variant with its availability.",
    preface: "Looking up the product's variants.",
    tool: "get_product_details",
    args: { product_id: "6938111410" },
    rehearsed: { name: "Running Shoes", variants: { "4153505238": { size: "8", available: true }, "1775591963": { size: "10", available: true } } },
    real: { name: "Running Shoes", variants: { "4153505238": { size: "8", available: false }, "1775591963": { size: "10", available: true }, "9635758562": { size: "9", available: true } } },
    reply: "The running shoes come in sizes 8, 9 and 10; size 8 is currently out of stock.",
  },
  {
    user: "Change the shipping address of order #W9911714 to 44 Elm St, Austin TX 78701.",
    think: "Address changes are only allowed on pending orders; the tool validates that.",
    preface: "Updating the address.",
    tool: "modify_pending_order_address",
    args: { order_id: "#W9911714", address1: "44 Elm St", city: "Austin", state: "TX", zip: "78701", country: "USA" },
    rehearsed: { order_id: "#W9911714", status: "pending", address: { address1: "44 Elm St", city: "Austin", state: "TX", zip: "78701" } },
    real: { error_tool_call: { code: "NON_PENDING_ORDER", message: "Non-pending order cannot be modified" } },
    reply: "I'm sorry, that order has already shipped, so its address can no longer be changed.",
  },
  {
    user: "How much did I pay in total for my three most recent orders?",
    think: "Need the user's orders; the profile lists them.",
    preface: "Let me pull up your profile.",
    tool: "get_user_details",
    args: { user_id: "noa_kim_4813" },
    rehearsed: { user_id: "noa_kim_4813", name: { first_name: "Noa", last_name: "Kim" }, orders: ["#W2378156", "#W4817420", "#W9911714"] },
    real: { user_id: "noa_kim_4813", name: { first_name: "Noa", last_name: "Kim" }, orders: ["#W2378156", "#W4817420", "#W9911714"], membership: "gold" },
    reply: "Your three most recent orders total $548.27.",
  },
];

/** Extra τ²-retail scenarios: a bare-text result, a text error against a rehearsed value, errors on both sides. */
const tau2TextScenarios: Scenario[] = [
  {
    user: "I'm Noa Kim, zip 19122. What's my user id?",
    think: "Look the user up by name and zip; the tool returns the bare id.",
    preface: "Looking you up.",
    tool: "find_user_id_by_name_zip",
    args: { first_name: "Noa", last_name: "Kim", zip: "19122" },
    rehearsed: { user_id: "noa_kim_4813" },
    real: "noa_kim_4813",
    reply: "Your user id is noa_kim_4813.",
  },
  {
    user: "Where is order #W0000000?",
    think: "Fetch the order; it may not exist.",
    preface: "Checking.",
    tool: "get_order_details",
    args: { order_id: "#W0000000" },
    rehearsed: { order_id: "#W0000000", status: "pending" },
    real: "Error: Order not found",
    reply: "I could not find that order.",
  },
  {
    user: "Return the boots from order #W4817420 please.",
    think: "Only delivered orders can be returned; this one is still pending.",
    preface: "Trying the return.",
    tool: "return_delivered_order_items",
    args: { order_id: "#W4817420", item_ids: ["6546364613"], payment_method_id: "paypal_2188" },
    rehearsed: { error_tool_call: { code: "NON_DELIVERED_ORDER", message: "order is not delivered" } },
    real: "Error: Non-delivered order cannot be returned",
    reply: "That order has not been delivered yet, so it cannot be returned.",
  },
];

/** The built-in shop's tools (worker/envs/shop/world.ts): JSON results and error_tool_call errors. */
const shopScenarios: Scenario[] = [
  { user: "How much is tea?", think: "Look it up.", preface: "Checking tea.", tool: "get_item", args: { item: "tea" }, rehearsed: { item: "tea", price: 4, stock: 9 }, real: { item: "tea", price: 4, stock: 9 }, reply: "Tea is $4." },
  { user: "And a mug?", think: "Look it up.", preface: "Checking mugs.", tool: "get_item", args: { item: "mug" }, rehearsed: { item: "mug", price: 6, stock: 3 }, real: { item: "mug", price: 8, stock: 3 }, reply: "A mug is $8." },
  { user: "Two teas please.", think: "Add to the cart.", preface: "Adding.", tool: "add_to_cart", args: { item: "tea", qty: 2 }, rehearsed: { cart: { tea: 2 }, total: 8 }, real: { cart: { tea: 2 }, total: 8 }, reply: "Two teas are in your cart." },
  {
    user: "Five pens.", think: "Add pens.", preface: "Adding pens.", tool: "add_to_cart", args: { item: "pen", qty: 5 },
    rehearsed: { cart: { pen: 5 }, total: 10 }, real: { error_tool_call: { code: "OUT_OF_STOCK", message: "only 2 pen left" } }, reply: "Only two pens are left.",
  },
  {
    user: "Remove the cup.", think: "Remove it.", preface: "Removing.", tool: "remove_from_cart", args: { item: "cup" },
    rehearsed: { error_tool_call: { code: "NOT_IN_CART", message: "cup is not in the cart" } }, real: { error_tool_call: { code: "NOT_IN_CART", message: "cup is not in the cart" } }, reply: "There was no cup in your cart.",
  },
  { user: "Check out.", think: "Place the order.", preface: "Placing the order.", tool: "checkout", args: {}, rehearsed: { order: "O1", total: 8 }, real: { order: "O1", total: 12 }, reply: "Order O1 is placed: $12." },
];

function scenariosFor(domain: SeedRunOptions["domain"]): Scenario[] {
  if (domain === "shop") return shopScenarios;
  if (domain === "tau2") return [...scenarios, ...tau2TextScenarios];
  return scenarios;
}

interface Template {
  user: string;
  rehearseBroken: string;
  rehearsedBroken: string;
  fidelityBroken: unknown;
  act: string;
  actReply: string;
  actBroken: string;
  calls: unknown;
  call: unknown;
  rehearseText: string;
  rehearsed: string;
  real: string;
  fidelity: unknown;
  score: number;
}

function templates(domain?: SeedRunOptions["domain"]): Template[] {
  return scenariosFor(domain).map((s, i) => {
    const callId = `call_${i}_${crypto.createHash("sha1").update(s.tool).digest("hex").slice(0, 8)}`;
    const argsJson = JSON.stringify(s.args);
    const rehearsed = JSON.stringify(s.rehearsed);
    // Text results (tau2's ids and "Error: …") are stored as the text itself.
    const real = typeof s.real === "string" ? s.real : JSON.stringify(s.real);
    const fidelity = compareResponses(rehearsed, real);
    const call = { id: callId, name: s.tool, arguments: argsJson };
    // What a rehearse parse error puts in the conversation (parsers.ts parseRehearseOutput, no tag found).
    const rehearsedBroken = JSON.stringify({
      error_tool_call: {
        code: "NO_EXECUTION_RESULT_TAG_FOUND",
        message: "The output has no '<execution_result>' tag",
        details: { expected_format: "\\n<execution_result>\\n<non-empty JSON object or array>\\n</execution_result>", raw_preview: `The ${s.tool} call returns ${rehearsed.slice(0, 60)}` },
      },
    });
    return {
      user: s.user,
      rehearseBroken: `<think>Answer as the environment.</think>The ${s.tool} call returns ${rehearsed.slice(0, 60)}`,
      rehearsedBroken,
      fidelityBroken: compareResponses(rehearsedBroken, real),
      act: `<think>${s.think}</think>${s.preface}\n<tool_call>\n${JSON.stringify({ name: s.tool, arguments: s.args })}\n</tool_call>`,
      actReply: `<think>I have what I need to answer.</think>${s.reply}`,
      actBroken: `<think>${s.think}</think>${s.preface}\n<tool_call>\n{"name": "${s.tool}", "arguments": {${argsJson.slice(1, 20)}\n</tool_call>`,
      calls: [call],
      call,
      rehearseText: `<think>The ${s.tool} call should return the stored record.</think>\n<execution_result>\n${JSON.stringify(s.rehearsed, null, 1)}\n</execution_result>`,
      rehearsed,
      real,
      fidelity,
      score: fidelity.score,
    };
  });
}

const metricNames = [
  "reward/mean",
  "reward/act/mean",
  "reward/rehearse/mean",
  "critic/act/advantages/mean",
  "critic/rehearse/advantages/mean",
  "fidelity/mean",
  "judge/pass_rate",
  "actor/kl",
  "actor/entropy",
  "actor/pg_clipfrac",
  "response_length/act/mean",
  "response_length/rehearse/mean",
  "perf/throughput_tokens_per_s",
  "perf/step_seconds",
];

function metricKey(i: number): string {
  return metricNames[i] ?? `extra/series_${String(i).padStart(2, "0")}`;
}

// ------------------------------------------------------------------------------------------------
// SQL generators
// ------------------------------------------------------------------------------------------------

const toolRoleOf: Record<SeedParadigm, string> = { rehearse: "rehearse", simulator: "simulator", environment: "environment" };

/**
 * Turns for every trajectory of `runId` selected by `where` (a SQL predicate on alias t).
 * $1 = runId, $2 = templates JSON, $3 = shadow execution flag, $4 = tool role, $5 = fidelity probe flag.
 */
function turnsSql(where: string): string {
  return `
  with tpl as (
    select (ord - 1)::int as n, v from jsonb_array_elements($2::jsonb) with ordinality as x(v, ord)
  ), traj as (
    select t.id, t."numTurns" as nt, t.reward, t."terminationReason" as reason,
           abs(hashtext(t.id::text)) as h,
           t.reward - avg(t.reward) over (partition by t.phase, t.step, t."groupId") as adv,
           (least(t."numTurns", 20) + (least(t."numTurns", 20) % 2)) as u
    from trajectory t where t."runId" = $1 and ${where}
  ), slots as (
    select traj.*, k, k % u as p,
      (reason like 'act_parse_error:%' and k = case when ((nt - 1) % u) % 2 = 1 then nt - 1 else nt - 2 end) as broken,
      (reason like 'rehearse_parse_error:%' and k % u > 0 and (k % u) % 2 = 0
        and k = case when ((nt - 1) % u) % 2 = 0 then nt - 1 else nt - 2 end) as broken_tool,
      ((traj.h + (k - 1) / 2) % (select count(*) from tpl))::int as ti
    from traj cross join lateral generate_series(0, traj.nt - 1) as k
  )
  insert into turn ("runId", id, "trajectoryId", index, role, text, "toolCalls", "rehearsedResponse", "realResponse",
                    fidelity, "errorCode", "promptTokens", "responseTokens", advantage)
  select $1, gen_random_uuid(), s.id, s.k,
    case when s.p = 0 then 'user' when s.p % 2 = 1 then 'act' else $4 end,
    case
      when s.p = 0 then tpl.v->>'user'
      when s.broken then tpl.v->>'actBroken'
      when s.p % 2 = 1 and (s.p = s.u - 1 or s.k = s.nt - 1) then tpl.v->>'actReply'
      when s.p % 2 = 1 then tpl.v->>'act'
      when $4 = 'environment' then tpl.v->>'real'
      when s.broken_tool then tpl.v->>'rehearseBroken'
      else tpl.v->>'rehearseText'
    end,
    case
      when s.p = 0 or s.broken then null
      when s.p % 2 = 1 and (s.p = s.u - 1 or s.k = s.nt - 1) then null
      when s.p % 2 = 1 then tpl.v->'calls'
      else tpl.v->'call'
    end,
    case when s.p > 0 and s.p % 2 = 0 then (case when $4 = 'environment' and not $5 then tpl.v->>'real' when s.broken_tool then tpl.v->>'rehearsedBroken' else tpl.v->>'rehearsed' end) end,
    case when s.p > 0 and s.p % 2 = 0 and ($3 or $4 = 'environment') then tpl.v->>'real' end,
    case when s.p > 0 and s.p % 2 = 0 and (($3 and $4 <> 'environment') or ($5 and $4 = 'environment')) then (case when s.broken_tool then tpl.v->'fidelityBroken' else tpl.v->'fidelity' end) end,
    case when s.broken or s.broken_tool then split_part(s.reason, ':', 2) end,
    case when s.p = 0 then 0 else 420 + s.k * 135 end,
    case when s.p = 0 then 0 when s.p % 2 = 1 then 48 + (s.h + s.k * 37) % 140 else 30 + (s.h + s.k * 53) % 90 end,
    case
      when s.p = 0 then null
      when s.p % 2 = 1 then round((s.adv - case when s.broken then 0.1 else 0 end)::numeric, 4)::float8
      when $4 = 'environment' then null
      else round((s.adv * 0.9)::numeric, 4)::float8
    end
  from slots s join tpl on tpl.n = s.ti`;
}

/** Two checklist items per user turn, on the first and the last act step of the block. */
function verdictsSql(where: string): string {
  return `
  with traj as (
    select t.id, t."numTurns" as nt, t.reward, abs(hashtext(t.id::text)) as h,
           (least(t."numTurns", 20) + (least(t."numTurns", 20) % 2)) as u
    from trajectory t where t."runId" = $1 and ${where}
  ), items as (
    select traj.*, b, j,
      -- j = 0: the block's first act step; j = 1: its last act step (the reply when the block is complete).
      b * u + case when j = 0 then 1
        when (least(u, nt - b * u) - 1) % 2 = 1 then least(u, nt - b * u) - 1
        else least(u, nt - b * u) - 2 end as ti
    from traj cross join lateral generate_series(0, (traj.nt - 1) / traj.u) as b cross join generate_series(0, 1) as j
  )
  insert into checklist_verdict (id, "trajectoryId", "userTurn", "turnIndex", "itemId", question, weight, passed, "callFailed", analysis)
  select gen_random_uuid(), i.id, i.b, i.ti, 'c0-i' || i.j,
    case when i.j = 0 then 'Does the agent look up the account or order before acting on it?'
         else 'Does the final reply state the outcome the tools returned, without inventing facts?' end,
    case when i.j = 0 then 0.4 else 0.6 end,
    (i.reward >= 0.999 or (i.h + i.j * 7 + i.b) % 10 < round(i.reward * 10)),
    false,
    jsonb_build_object(
      'source', 'judge', 'checklist', 0, 'step', (i.ti - i.b * i.u - 1) / 2, 'required', i.j = 1,
      'analysis', jsonb_build_object(
        'high_level_understanding_of_the_question', 'The item checks grounding of the agent''s actions in tool results.',
        'analysis_of_if_focus_on', 'Focus on step ' || i.ti || ' of user turn ' || i.b || '.',
        'analysis_of_pass_condition', 'Pass when the cited values match the tool response that entered the conversation.',
        'analysis_of_failure_examples', 'Quoting a price or status that no tool returned.'))
  from items i where i.ti < i.nt and i.ti > i.b * i.u`;
}

/** Recompute the per-trajectory token sums and mean fidelity from the turns just written. */
function rollupSql(where: string): string {
  return `
  update trajectory t set "actTokens" = a.act, "rehearseTokens" = a.reh, fidelity = a.fid,
    summary = t.summary || jsonb_build_object('toolCalls', a.calls, 'fidelity',
      case when a.fid is null then null else jsonb_build_object('comparisons', a.calls, 'meanScore', a.fid) end)
  from (
    select u."trajectoryId" as id,
      coalesce(sum(u."responseTokens") filter (where u.role = 'act'), 0)::int as act,
      coalesce(sum(u."responseTokens") filter (where u.role in ('rehearse', 'simulator')), 0)::int as reh,
      avg((u.fidelity->>'score')::float8) as fid,
      count(*) filter (where u.role in ('rehearse', 'simulator', 'environment'))::int as calls
    from turn u join trajectory tt on tt.id = u."trajectoryId" and u."runId" = tt."runId" where tt."runId" = $1 and ${where.replaceAll("t.", "tt.")}
    group by u."trajectoryId"
  ) a where t.id = a.id`;
}

// ------------------------------------------------------------------------------------------------
// Public helpers
// ------------------------------------------------------------------------------------------------

async function createRunRow(prisma: PrismaClient, opts: SeedRunOptions, steps: number, paradigm: SeedParadigm): Promise<string> {
  const run = await prisma.run.create({
    data: {
      name: opts.name ?? `seeded run ${crypto.randomBytes(3).toString("hex")}`,
      kind: "train",
      status: opts.status ?? "succeeded",
      config: { ...quickstartPreset, rollout: { ...quickstartPreset.rollout, paradigm } } as object,
      configVersion: 1,
      paradigm,
      policyNode: "embedded",
      tags: opts.tags ?? ["seeded"],
      progressStep: steps,
      totalSteps: steps,
      latestMetrics: { "reward/mean": 0.52, "fidelity/mean": 0.81, "judge/pass_rate": 0.64 },
      bestMetrics: { "reward/mean": 0.61, "fidelity/mean": 0.86, "judge/pass_rate": 0.7 },
      createdById: opts.userId,
      createdAt: opts.createdAt ?? new Date(),
      startedAt: opts.createdAt ?? new Date(),
      finishedAt: opts.status && opts.status !== "succeeded" ? null : new Date(),
    },
    select: { id: true },
  });
  return run.id;
}

/** Write a whole run: steps, metric points, trajectories, turns, checklist verdicts. */
export async function seedRun(prisma: PrismaClient, opts: SeedRunOptions): Promise<SeededRun> {
  const total = opts.trajectories ?? 64;
  const K = Math.max(1, opts.rolloutsPerInstance ?? 4);
  const steps = Math.max(1, opts.steps ?? Math.ceil(total / 64));
  const turns = Math.max(1, opts.turnsPerTrajectory ?? 9);
  const paradigm = opts.paradigm ?? "rehearse";
  const shadow = opts.shadowExecution ?? true;
  const series = opts.metricSeries ?? 8;
  const points = opts.metricPoints ?? steps;
  const instances = Math.max(1, opts.instances ?? 40);
  const evalEvery = opts.evalEvery ?? 0;
  const perStep = Math.ceil(total / steps);
  const runId = await createRunRow(prisma, opts, steps, paradigm);
  const t0 = (opts.createdAt ?? new Date()).getTime();

  await prisma.$executeRawUnsafe(
    `insert into step (id, "runId", index, kind, "startedAt", "finishedAt", "durationMs", metrics)
     select gen_random_uuid(), $1, s, 'train', to_timestamp(($2::float8 + s * 60000) / 1000), to_timestamp(($2::float8 + s * 60000 + 55000) / 1000), 55000,
            jsonb_build_object('reward/mean', 0.3 + 0.4 * s::float8 / $3)
     from generate_series(1, $3::int) s`,
    runId,
    t0,
    steps,
  );

  if (series > 0 && points > 0) {
    const keys = Array.from({ length: series }, (_, i) => metricKey(i));
    await prisma.$executeRawUnsafe(
      `insert into metric_point ("runId", key, step, value, ts)
       select $1, k.key, s,
         (0.3 + 0.4 * (1 - exp(-s::float8 / ($3::float8 / 3 + 1))) + 0.05 * sin(s * 0.7 + k.ord) + 0.03 * ((hashtext(k.key || s) % 1000) / 1000.0)) * (1 + k.ord % 3),
         to_timestamp(($4::float8 + s * 60000) / 1000)
       from jsonb_array_elements_text($2::jsonb) with ordinality as k(key, ord) cross join generate_series(1, $3::int) s`,
      runId,
      JSON.stringify(keys),
      points,
      t0,
    );
  }

  // Trajectories: step = i / perStep + 1; within a step, group g = (i mod perStep) / K, rollout = i mod K.
  await prisma.$executeRawUnsafe(
    `with g as (
       select i, i / $2 + 1 as step, (i % $2) / $3 as grp, i % $3 as ro,
         ((i::bigint * 2654435761) % 4294967296)::float8 / 4294967296 as r1,
         (((i / $3)::bigint * 40503 + 977) % 65536)::float8 / 65536 as rg
       from generate_series(0, $4::int - 1) i
     ), o as (
       select g.*, case when $8 > 0 and step % $8 = 0 then 'eval' else 'train' end as phase,
         'retail-' || lpad((((step * 7 + grp * 13) % $5) + 1)::text, 4, '0') as inst,
         case
           when r1 < 0.30 + 0.3 * rg then 'checklist_complete'
           when r1 < 0.55 + 0.2 * rg then 'judge_required_failed'
           when r1 < 0.70 + 0.15 * rg then 'max_assistant_turns'
           when r1 < 0.80 + 0.1 * rg then 'no_more_user_turns'
           when r1 < 0.88 + 0.05 * rg then 'act_parse_error:JSON_DECODE_ERROR'
           when r1 < 0.95 then 'rehearse_parse_error:NO_EXECUTION_RESULT_TAG_FOUND'
           else 'LENGTH_EXCEEDED'
         end as reason
       from g
     )
     insert into trajectory (id, "runId", step, phase, "instanceId", "groupId", "rolloutIndex", paradigm, reward, outcome,
                             "terminationReason", "numTurns", summary, "createdAt")
     select gen_random_uuid(), $1, step, phase, inst, 'step' || step || ':' || grp || ':' || inst, ro, $6,
       case when reason = 'checklist_complete' then 1.0
            when reason like '%error%' or reason = 'LENGTH_EXCEEDED' then 0.0
            else 0.25 * ((floor(r1 * 1000)::int) % 4) end,
       -- The benchmark's own verdict: only a complete checklist (reward 1.0) succeeds, and none of these reasons is an infrastructure error.
       case when reason = 'checklist_complete' then 'success' else 'failure' end,
       reason, $7,
       jsonb_build_object('won', reason = 'checklist_complete', 'assistantTurns', $7 / 2, 'userTurns', 1, 'microSteps', $7 - 1,
         'dataSource', 'tau2-retail', 'rolloutId', 'step' || step || ':' || grp || ':' || inst || ':' || ro, 'wallMs', 4000 + (i * 37) % 9000),
       to_timestamp(($9::float8 + step * 60000) / 1000)
     from o`,
    runId,
    perStep,
    K,
    total,
    instances,
    paradigm,
    turns,
    evalEvery,
    t0,
  );

  const where = "true";
  const tpl = JSON.stringify(templates(opts.domain));
  await ensureTurnPartition(prisma, runId);
  const turnCount = await prisma.$executeRawUnsafe(turnsSql(where), runId, tpl, shadow, toolRoleOf[paradigm], opts.fidelityProbe ?? false);
  const verdictCount = await prisma.$executeRawUnsafe(verdictsSql(where), runId);
  await prisma.$executeRawUnsafe(rollupSql(where), runId);
  await rollupFidelity(prisma, runId, null, null);
  await prisma.$executeRawUnsafe(`analyze trajectory`).catch(() => {});
  return { runId, trajectories: total, turns: turnCount, verdicts: verdictCount, steps, metricPoints: series * points };
}

export interface SeedTrajectoryOptions {
  runId: string;
  step: number;
  turns: number;
  phase?: "train" | "eval";
  instanceId?: string;
  groupId?: string;
  rolloutIndex?: number;
  reward?: number;
  terminationReason?: string;
  paradigm?: SeedParadigm;
  shadowExecution?: boolean;
}

/** The outcome the worker would store (lib/outcomes.ts): an infrastructure termination is an error; success needs the whole checklist. */
function seededOutcome(reason: string, reward: number): "success" | "failure" | "error" {
  if (errorKindOfTermination(reason)) return "error";
  return reason === "checklist_complete" && reward >= 1 - 1e-9 ? "success" : "failure";
}

/** One extra trajectory (e.g. a 200-turn one) in an existing run, written with the same generators. */
export async function seedTrajectory(prisma: PrismaClient, o: SeedTrajectoryOptions): Promise<string> {
  const id = crypto.randomUUID();
  const reason = o.terminationReason ?? "max_assistant_turns";
  const paradigm = o.paradigm ?? "rehearse";
  await prisma.trajectory.create({
    data: {
      id,
      runId: o.runId,
      step: o.step,
      phase: o.phase ?? "train",
      instanceId: o.instanceId ?? "retail-long",
      groupId: o.groupId ?? `step${o.step}:long:${id.slice(0, 8)}`,
      rolloutIndex: o.rolloutIndex ?? 0,
      paradigm,
      reward: o.reward ?? 0.5,
      outcome: seededOutcome(reason, o.reward ?? 0.5),
      ...(errorKindOfTermination(reason) ? { errorKind: errorKindOfTermination(reason), errorCause: `${errorKindLabels[errorKindOfTermination(reason)!]}: seeded ${reason}` } : {}),
      terminationReason: reason,
      numTurns: o.turns,
      summary: { won: reason === "checklist_complete", dataSource: "tau2-retail" },
    },
  });
  const where = `t.id = '${id}'`;
  await ensureTurnPartition(prisma, o.runId);
  await prisma.$executeRawUnsafe(turnsSql(where), o.runId, JSON.stringify(templates()), o.shadowExecution ?? true, toolRoleOf[paradigm], false);
  await prisma.$executeRawUnsafe(verdictsSql(where), o.runId);
  await prisma.$executeRawUnsafe(rollupSql(where), o.runId);
  await rollupFidelity(prisma, o.runId, o.phase ?? "train", o.step);
  return id;
}

/** Payloads the XSS test looks for; any of them executing sets `window.__xss`. */
export const XSS = {
  script: `<script>window.__xss = "script"</script>`,
  img: `<img src=x onerror="window.__xss='img'">`,
  link: `[click for a refund](javascript:window.__xss='link')`,
  httpLink: `[open the policy](https://evil.example/phish)`,
  svg: `<svg onload="window.__xss='svg'"></svg>`,
};

/** A trajectory whose every model-written field carries HTML/JS/markdown-link payloads. */
export async function seedXssTrajectory(prisma: PrismaClient, opts: { runId: string; step?: number }): Promise<string> {
  const id = crypto.randomUUID();
  const all = `${XSS.script} ${XSS.img} ${XSS.link} ${XSS.httpLink} ${XSS.svg}`;
  const args = { order_id: `#W1${XSS.img}`, note: XSS.link };
  const call = { id: "call_xss", name: `get_order_details${XSS.svg}`, arguments: JSON.stringify(args) };
  const rehearsed = JSON.stringify({ status: XSS.script, link: XSS.link, html: XSS.img });
  const real = JSON.stringify({ status: "delivered", link: XSS.httpLink, html: XSS.svg });
  await prisma.trajectory.create({
    data: {
      id,
      runId: opts.runId,
      step: opts.step ?? 1,
      phase: "train",
      instanceId: `retail-xss${XSS.img}`,
      groupId: `step${opts.step ?? 1}:xss:${id.slice(0, 8)}`,
      rolloutIndex: 0,
      paradigm: "rehearse",
      reward: 0,
      // The policy's own parse error: a failure, not an infrastructure error.
      outcome: "failure",
      terminationReason: `act_parse_error:JSON_DECODE_ERROR${XSS.script}`,
      numTurns: 4,
      fidelity: compareResponses(rehearsed, real).score,
      summary: { note: all },
    },
  });
  await prisma.turn.createMany({
    data: [
      { runId: opts.runId, trajectoryId: id, index: 0, role: "user", text: `Please help ${all}` },
      {
        runId: opts.runId, trajectoryId: id,
        index: 1,
        role: "act",
        text: `<think>${XSS.script} plan ${XSS.link}</think>Sure ${XSS.img} ${XSS.httpLink}\n<tool_call>\n${JSON.stringify({ name: call.name, arguments: args })}\n</tool_call>`,
        toolCalls: [call],
        promptTokens: 300,
        responseTokens: 80,
        advantage: -0.25,
      },
      {
        runId: opts.runId, trajectoryId: id,
        index: 2,
        role: "rehearse",
        text: `<think>${XSS.svg}</think>\n<execution_result>\n${rehearsed}\n</execution_result>`,
        toolCalls: call,
        rehearsedResponse: rehearsed,
        realResponse: real,
        fidelity: compareResponses(rehearsed, real) as object,
        promptTokens: 320,
        responseTokens: 60,
        advantage: -0.2,
      },
      {
        runId: opts.runId, trajectoryId: id,
        index: 3,
        role: "act",
        text: `${all}\n<tool_call>\n{"name": broken ${XSS.script}\n</tool_call>`,
        errorCode: "JSON_DECODE_ERROR",
        promptTokens: 400,
        responseTokens: 70,
        advantage: -0.35,
      },
    ],
  });
  await prisma.checklistVerdict.create({
    data: {
      trajectoryId: id,
      userTurn: 0,
      turnIndex: 1,
      itemId: `c0-i0${XSS.img}`,
      question: `Does the agent avoid ${XSS.link}?`,
      weight: 1,
      passed: false,
      analysis: { source: "judge", checklist: 0, step: 0, required: true, analysis: { analysis_of_pass_condition: all } },
    },
  });
  return id;
}
