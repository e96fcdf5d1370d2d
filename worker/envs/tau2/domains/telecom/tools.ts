/**
 * The 13 telecom agent tools (tau2-bench v0.2.0 `domains/telecom/tools.py`, `TelecomTools`) in class order,
 * plus the methods tasks call as environment functions (`set_data_usage`, `suspend_line_for_overdue_bill`,
 * the `assert_*` checks, …). The clock is fixed (`get_today()` = 2025-02-25). Arguments arrive untyped.
 */
import { formatFixed } from "../../../../../lib/python/numbers";
import { pyStr as pyValueStr, type PyValue } from "../../../../../lib/python/values";
import { construct } from "../../harness/pydantic";
import { PyDate, type TModel, type TValue } from "../../harness/py";
import { add, attributeError, eq, gt, iter, le, lt, mul, sub, typeError, typeName, valueError } from "../../harness/pyops";
import type { ToolkitSpec } from "../../harness/toolkit";
import { Bill, BillStatus, LineItem, LineStatus } from "./model";
import type { TelecomState } from "./state";

const s = (v: TValue) => pyValueStr(v as PyValue);
/** The domain's fixed clock (`utils.get_today`). */
export const TELECOM_TODAY = new PyDate(2025, 2, 25);

const customers = (st: TelecomState) => st.db.customers as TModel[];
const lines = (st: TelecomState) => st.db.lines as TModel[];
const plans = (st: TelecomState) => st.db.plans as TModel[];
const devices = (st: TelecomState) => st.db.devices as TModel[];
const bills = (st: TelecomState) => st.db.bills as TModel[];

function find(list: TModel[], field: string, value: TValue): TModel | undefined {
  return list.find((x) => eq(x[field]!, value));
}

export function lineById(st: TelecomState, id: TValue): TModel {
  const line = find(lines(st), "line_id", id);
  if (!line) throw valueError(`Line with ID ${s(id)} not found`);
  return line;
}
export function lineByPhone(st: TelecomState, phone: TValue): TModel {
  const line = find(lines(st), "phone_number", phone);
  if (!line) throw valueError(`Line with phone number ${s(phone)} not found`);
  return line;
}
export function planById(st: TelecomState, id: TValue): TModel {
  const plan = find(plans(st), "plan_id", id);
  if (!plan) throw valueError(`Plan with ID ${s(id)} not found`);
  return plan;
}
function deviceById(st: TelecomState, id: TValue): TModel {
  const device = find(devices(st), "device_id", id);
  if (!device) throw valueError(`Device with ID ${s(id)} not found`);
  return device;
}
function billById(st: TelecomState, id: TValue): TModel {
  const bill = find(bills(st), "bill_id", id);
  if (!bill) throw valueError(`Bill with ID ${s(id)} not found`);
  return bill;
}
export function customerById(st: TelecomState, id: TValue): TModel {
  const c = find(customers(st), "customer_id", id);
  if (!c) throw valueError(`Customer with ID ${s(id)} not found`);
  return c;
}
export function customerByPhone(st: TelecomState, phone: TValue): TModel {
  for (const c of customers(st)) {
    if (eq(c.phone_number!, phone)) return c;
    for (const lineId of c.line_ids as TValue[]) if (eq(lineById(st, lineId).phone_number!, phone)) return c;
  }
  throw valueError(`Customer with phone number ${s(phone)} not found`);
}
function targetLine(st: TelecomState, customerId: TValue, lineId: TValue): TModel {
  const c = customerById(st, customerId);
  if (!(c.line_ids as TValue[]).some((x) => eq(x, lineId))) throw valueError(`Line ${s(lineId)} not found for customer ${s(customerId)}`);
  return lineById(st, lineId);
}
export function billsAwaitingPayment(st: TelecomState, customer: TModel): TModel[] {
  return (customer.bill_ids as TValue[]).map((id) => billById(st, id)).filter((b) => b.status === BillStatus.AWAITING_PAYMENT);
}
export function setBillToPaid(st: TelecomState, billId: TValue): string {
  billById(st, billId).status = BillStatus.PAID;
  return `Bill ${s(billId)} set to paid`;
}

const lower = (v: TValue): string => {
  if (typeof v !== "string") throw attributeError(`'${typeName(v)}' object has no attribute 'lower'`);
  return v.toLowerCase();
};
const startsWith = (v: TValue, prefix: string): boolean => {
  if (typeof v !== "string") throw attributeError(`'${typeName(v)}' object has no attribute 'startswith'`);
  return v.startsWith(prefix);
};

/** `_apply_one_time_charge`: a line item on the customer's draft bill (a new draft bill when there is none). */
function applyOneTimeCharge(st: TelecomState, customerId: TValue, amount: TValue, description: TValue): null {
  const customer = customerById(st, customerId);
  let draft = (customer.bill_ids as TValue[]).map((id) => billById(st, id)).find((b) => b.status === BillStatus.DRAFT);
  if (!draft) {
    const nextMonth = TELECOM_TODAY.replace({ day: 1 }).plusDays(32).replace({ day: 1 });
    const billId = `B${st.newBillHex()}`;
    draft = construct(Bill, {
      bill_id: billId,
      customer_id: customerId,
      period_start: nextMonth,
      period_end: nextMonth.replace({ month: nextMonth.month < 12 ? nextMonth.month + 1 : 1, year: nextMonth.month < 12 ? nextMonth.year : nextMonth.year + 1 }).plusDays(-1),
      issue_date: nextMonth,
      total_due: 0n,
      due_date: nextMonth.plusDays(14),
      status: BillStatus.DRAFT,
    });
    bills(st).push(draft);
    (customer.bill_ids as TValue[]).push(billId);
  }
  const item = construct(LineItem, { description, amount, date: TELECOM_TODAY, item_type: lt(amount, 0n) ? "Credit" : "Charge" });
  (draft.line_items as TValue[]).push(item);
  draft.total_due = add(draft.total_due!, amount);
  return null;
}

const ok = (msg: string, line: TModel) => new Map<string, TValue>([["message", msg], ["line", line]]);

/** Python's `seq[:n]` for an int-like `n`. */
function sliceTo<T>(items: T[], n: TValue): T[] {
  if (typeof n === "boolean") n = n ? 1n : 0n;
  if (n === null) return items;
  if (typeof n !== "bigint") throw typeError("slice indices must be integers or None or have an __index__ method");
  const k = Number(n);
  return k >= 0 ? items.slice(0, k) : items.slice(0, Math.max(0, items.length + k));
}

export const telecomTools: ToolkitSpec<TelecomState> = {
  className: "TelecomTools",
  tools: {
    get_customer_by_phone: { params: [{ name: "phone_number" }], run: (st, a) => customerByPhone(st, a.phone_number!) },
    get_customer_by_id: { params: [{ name: "customer_id" }], run: (st, a) => customerById(st, a.customer_id!) },
    get_customer_by_name: {
      params: [{ name: "full_name" }, { name: "dob" }],
      run: (st, a) => customers(st).filter((c) => lower(c.full_name!) === lower(a.full_name!) && eq(c.date_of_birth!, a.dob!)),
    },
    get_details_by_id: {
      params: [{ name: "id" }],
      run(st, a) {
        const id = a.id!;
        if (startsWith(id, "L")) return lineById(st, id);
        if (startsWith(id, "D")) return deviceById(st, id);
        if (startsWith(id, "B")) return billById(st, id);
        if (startsWith(id, "C")) return customerById(st, id);
        if (startsWith(id, "P")) return planById(st, id);
        throw valueError(`Unknown ID format or type: ${s(id)}`);
      },
    },
    suspend_line: {
      params: [{ name: "customer_id" }, { name: "line_id" }, { name: "reason" }],
      run(st, a) {
        const line = targetLine(st, a.customer_id!, a.line_id!);
        if (line.status !== LineStatus.ACTIVE) throw valueError("Line must be active to suspend");
        line.status = LineStatus.SUSPENDED;
        line.suspension_start_date = TELECOM_TODAY;
        return ok("Line suspended successfully. $5/month holding fee will apply.", line);
      },
    },
    resume_line: {
      params: [{ name: "customer_id" }, { name: "line_id" }],
      run(st, a) {
        const line = targetLine(st, a.customer_id!, a.line_id!);
        if (line.status !== LineStatus.SUSPENDED && line.status !== LineStatus.PENDING_ACTIVATION) throw valueError("Line must be suspended to resume");
        line.status = LineStatus.ACTIVE;
        line.suspension_start_date = null;
        return ok("Line resumed successfully", line);
      },
    },
    get_bills_for_customer: {
      params: [{ name: "customer_id" }, { name: "limit", default: 12n }],
      run(st, a) {
        const c = customerById(st, a.customer_id!);
        const list = (c.bill_ids as TValue[]).map((id) => billById(st, id));
        // sorted(…, key=issue_date, reverse=True) is stable: equal dates keep their order.
        const sorted = list.map((b, i) => ({ b, i })).sort((x, y) => (y.b.issue_date as PyDate).compare(x.b.issue_date as PyDate) || x.i - y.i).map((x) => x.b);
        return sliceTo(sorted, a.limit!);
      },
    },
    send_payment_request: {
      params: [{ name: "customer_id" }, { name: "bill_id" }],
      run(st, a) {
        const c = customerById(st, a.customer_id!);
        if (billsAwaitingPayment(st, c).length !== 0) throw valueError("A bill is already awaiting payment for this customer");
        if (!(c.bill_ids as TValue[]).some((x) => eq(x, a.bill_id!))) throw valueError(`Bill ${s(a.bill_id!)} not found for customer ${s(a.customer_id!)}`);
        const bill = billById(st, a.bill_id!);
        bill.status = BillStatus.AWAITING_PAYMENT;
        return `Payment request sent to the customer for bill ${s(bill.bill_id!)}`;
      },
    },
    get_data_usage: {
      params: [{ name: "customer_id" }, { name: "line_id" }],
      run(st, a) {
        const line = targetLine(st, a.customer_id!, a.line_id!);
        const plan = planById(st, line.plan_id!);
        const cycleEnd = new PyDate(TELECOM_TODAY.year, TELECOM_TODAY.month < 12 ? TELECOM_TODAY.month + 1 : 1, 1).plusDays(-1);
        return new Map<string, TValue>([
          ["line_id", a.line_id!],
          ["data_used_gb", line.data_used_gb!],
          ["data_limit_gb", plan.data_limit_gb!],
          ["data_refueling_gb", line.data_refueling_gb!],
          ["cycle_end_date", cycleEnd],
        ]);
      },
    },
    enable_roaming: {
      params: [{ name: "customer_id" }, { name: "line_id" }],
      run(st, a) {
        const line = targetLine(st, a.customer_id!, a.line_id!);
        if (truthy(line.roaming_enabled!)) return "Roaming was already enabled";
        line.roaming_enabled = true;
        return "Roaming enabled successfully";
      },
    },
    disable_roaming: {
      params: [{ name: "customer_id" }, { name: "line_id" }],
      run(st, a) {
        const line = targetLine(st, a.customer_id!, a.line_id!);
        if (!truthy(line.roaming_enabled!)) return "Roaming was already disabled";
        line.roaming_enabled = false;
        return "Roaming disabled successfully";
      },
    },
    transfer_to_human_agents: { params: [{ name: "summary" }], run: () => "Transfer successful" },
    refuel_data: {
      params: [{ name: "customer_id" }, { name: "line_id" }, { name: "gb_amount" }],
      run(st, a) {
        const line = targetLine(st, a.customer_id!, a.line_id!);
        const gb = a.gb_amount!;
        if (le(gb, 0n)) throw valueError("Refuel amount must be positive");
        const plan = planById(st, line.plan_id!);
        const charge = mul(gb, plan.data_refueling_price_per_gb!);
        line.data_refueling_gb = add(line.data_refueling_gb!, gb);
        applyOneTimeCharge(st, a.customer_id!, charge, `Data refueling: ${s(gb)} GB at $${s(plan.data_refueling_price_per_gb!)}/GB`);
        const charged = formatFixed(charge as PyValue, 2);
        return new Map<string, TValue>([
          ["message", `Successfully added ${s(gb)} GB of data for line ${s(a.line_id!)} for $${charged}`],
          ["new_data_refueling_gb", line.data_refueling_gb!],
          ["charge", charge],
        ]);
      },
    },
  },
  functions: {
    get_available_plan_ids: { params: [], run: (st) => plans(st).map((p) => p.plan_id!) },
    set_data_usage: {
      params: [{ name: "customer_id" }, { name: "line_id" }, { name: "data_used_gb" }],
      run(st, a) {
        targetLine(st, a.customer_id!, a.line_id!).data_used_gb = a.data_used_gb!;
        return `Data usage set to ${s(a.data_used_gb!)} GB for line ${s(a.line_id!)}`;
      },
    },
    suspend_line_for_overdue_bill: {
      params: [{ name: "customer_id" }, { name: "line_id" }, { name: "new_bill_id" }, { name: "contract_ended" }],
      run(st, a) {
        const line = lineById(st, a.line_id!);
        if (line.status !== LineStatus.ACTIVE) throw valueError("Line must be active to suspend for unpaid bill");
        const plan = planById(st, line.plan_id!);
        const amount = plan.price_per_month!;
        const description = `Charge for line ${s(line.line_id!)}`;
        if (le(amount, 0n)) throw valueError("Amount must be positive for overdue bill");
        const customer = customerById(st, a.customer_id!);
        if ((customer.bill_ids as TValue[]).some((id) => billById(st, id).status === BillStatus.OVERDUE)) throw valueError("Customer already has an overdue bill");
        const lastDay = TELECOM_TODAY.replace({ day: 1 }).plusDays(-1);
        const firstDay = lastDay.replace({ day: 1 });
        const bill = construct(Bill, {
          bill_id: a.new_bill_id!,
          customer_id: a.customer_id!,
          period_start: firstDay,
          period_end: lastDay,
          issue_date: firstDay,
          total_due: 0n,
          due_date: firstDay.plusDays(14),
          status: BillStatus.OVERDUE,
        });
        const item = construct(LineItem, { description, amount, date: TELECOM_TODAY, item_type: gt(amount, 0n) ? "Charge" : "Credit" });
        (bill.line_items as TValue[]).push(item);
        bill.total_due = add(bill.total_due!, amount);
        bills(st).push(bill);
        (customer.bill_ids as TValue[]).push(a.new_bill_id!);
        line.status = LineStatus.SUSPENDED;
        line.suspension_start_date = TELECOM_TODAY;
        if (truthy(a.contract_ended!)) line.contract_end_date = lastDay;
        return `Line ${s(a.line_id!)} suspended for unpaid bill ${s(a.new_bill_id!)}. Contract ended: ${s(a.contract_ended!)}`;
      },
    },
    assert_data_refueling_amount: {
      params: [{ name: "customer_id" }, { name: "line_id" }, { name: "expected_amount" }],
      run: (st, a) => {
        const d = sub(targetLine(st, a.customer_id!, a.line_id!).data_refueling_gb!, a.expected_amount!);
        return lt(lt(d, 0n) ? sub(0n, d) : d, 1e-6);
      },
    },
    assert_line_status: {
      params: [{ name: "customer_id" }, { name: "line_id" }, { name: "expected_status" }],
      run: (st, a) => eq(targetLine(st, a.customer_id!, a.line_id!).status!, a.expected_status!),
    },
    assert_overdue_bill_exists: {
      params: [{ name: "customer_id" }, { name: "overdue_bill_id" }],
      run(st, a) {
        const customer = customerById(st, a.customer_id!);
        if (!(customer.bill_ids as TValue[]).some((x) => eq(x, a.overdue_bill_id!))) throw valueError(`Overdue bill ${s(a.overdue_bill_id!)} not found`);
        if (billById(st, a.overdue_bill_id!).status !== BillStatus.OVERDUE) throw valueError(`Overdue bill ${s(a.overdue_bill_id!)} is not overdue`);
        return true;
      },
    },
    assert_no_overdue_bill: {
      params: [{ name: "overdue_bill_id" }],
      run(st, a) {
        const bill = find(bills(st), "bill_id", a.overdue_bill_id!);
        return bill === undefined || bill.status === BillStatus.PAID;
      },
    },
    _get_line_by_phone: { params: [{ name: "phone_number" }], run: (st, a) => lineByPhone(st, a.phone_number!) },
    _get_line_by_id: { params: [{ name: "line_id" }], run: (st, a) => lineById(st, a.line_id!) },
    _get_plan_by_id: { params: [{ name: "plan_id" }], run: (st, a) => planById(st, a.plan_id!) },
    _get_device_by_id: { params: [{ name: "device_id" }], run: (st, a) => deviceById(st, a.device_id!) },
    _get_bill_by_id: { params: [{ name: "bill_id" }], run: (st, a) => billById(st, a.bill_id!) },
    _get_target_line: { params: [{ name: "customer_id" }, { name: "line_id" }], run: (st, a) => targetLine(st, a.customer_id!, a.line_id!) },
    _set_bill_to_paid: { params: [{ name: "bill_id" }], run: (st, a) => setBillToPaid(st, a.bill_id!) },
    _apply_one_time_charge: {
      params: [{ name: "customer_id" }, { name: "amount" }, { name: "description" }],
      run: (st, a) => applyOneTimeCharge(st, a.customer_id!, a.amount!, a.description!),
    },
  },
};

/** Python truthiness of a stored or argument value. */
export function truthy(v: TValue): boolean {
  if (v === null || v === false || v === 0n || v === 0 || v === "") return false;
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof Map) return v.size > 0;
  return true;
}

export { iter };
