/**
 * The telecom domain for the harness (dual control): the agent's 13 tools over the carrier's DB, the
 * user's 30 tools over their phone, and `sync_tools` (TelecomEnvironment.sync_tools) carrying the line's
 * state to the phone (line active, roaming allowed, data exceeded) and payments both ways.
 */
import type { DomainEnv } from "../../harness/domain";
import { mergeForUpdate } from "../../harness/merge";
import { construct } from "../../harness/pydantic";
import { deepCopy, type TModel, type TValue } from "../../harness/py";
import { add, ge } from "../../harness/pyops";
import { SpecToolkit } from "../../harness/toolkit";
import { dumpModel, hashModel, LineStatus, PaymentRequest, telecomDbFrom, telecomUserDbFrom } from "./model";
import { TelecomRuntime, TelecomState } from "./state";
import { billsAwaitingPayment, customerByPhone, lineByPhone, planById, setBillToPaid, telecomTools, truthy } from "./tools";
import { telecomUserTools } from "./user-tools";

export { TelecomRuntime };

/** TelecomEnvironment.sync_tools. */
export function syncTelecom(st: TelecomState): void {
  const sur = st.surroundings;
  if (sur.phone_number === null) return;
  const phone = sur.phone_number!;
  const line = lineByPhone(st, phone);
  sur.line_active = line.status === LineStatus.ACTIVE;
  sur.roaming_allowed = truthy(line.roaming_enabled!);
  const plan = planById(st, line.plan_id!);
  sur.mobile_data_usage_exceeded = ge(line.data_used_gb!, add(plan.data_limit_gb!, line.data_refueling_gb!));
  let request = sur.payment_request as TModel | null;
  if (request !== null && truthy(request.paid!)) {
    setBillToPaid(st, request.bill_id!);
    sur.payment_request = null;
  }
  request = sur.payment_request as TModel | null;
  if (request === null) {
    const pending = billsAwaitingPayment(st, customerByPhone(st, phone));
    if (pending.length) sur.payment_request = construct(PaymentRequest, { bill_id: pending[0]!.bill_id!, amount_due: pending[0]!.total_due! });
  }
}

export function telecomDomainEnv(db: TModel, userDb: TModel, runtime: TelecomRuntime, seed = ""): DomainEnv {
  const st = new TelecomState(deepCopy(db), deepCopy(userDb), runtime, seed);
  return {
    tools: new SpecToolkit(telecomTools, st),
    userTools: new SpecToolkit(telecomUserTools, st),
    sync: () => syncTelecom(st),
    dbHash: () => hashModel(st.db),
    userDbHash: () => hashModel(st.user),
    updateDb(side, data: TValue) {
      if (side === "assistant") st.db = telecomDbFrom(mergeForUpdate(st.db, data), "initialization_data.agent_data");
      else st.user = telecomUserDbFrom(mergeForUpdate(st.user, data), "initialization_data.user_data");
    },
    dump: (side) => dumpModel(side === "assistant" ? st.db : st.user),
  };
}
