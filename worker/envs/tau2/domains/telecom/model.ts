/**
 * The telecom data models (tau2-bench v0.2.0 `domains/telecom/data_model.py` for the agent's DB and
 * `user_data_model.py` for the user's phone and surroundings), their loaders (TOML as shipped, or a JSON
 * dump), hashes and dumps. Every model forbids extra fields (BaseModelNoExtra). Enums are their values.
 */
import { readFileSync } from "node:fs";
import { parseOrderedJson, type OrderedJson } from "../../../../../lib/python/json";
import { dbHash, deepCopy, dumps, PyDate, type TModel, type TValue } from "../../harness/py";
import { t, Tau2DataError, validateFile, type ModelSpec } from "../../harness/pydantic";
import { parseToml } from "../../harness/toml";
import { fromJson } from "../airline/model";

// ---- enums ----
export const LineStatus = { ACTIVE: "Active", SUSPENDED: "Suspended", PENDING_ACTIVATION: "Pending Activation", CLOSED: "Closed" } as const;
export const BillStatus = { DRAFT: "Draft", ISSUED: "Issued", AWAITING_PAYMENT: "Awaiting Payment", PAID: "Paid", OVERDUE: "Overdue", DISPUTED: "Disputed" } as const;
export const SimStatus = { ACTIVE: "active", MISSING: "missing", LOCKED_PIN: "locked_pin", LOCKED_PUK: "locked_puk" } as const;
export const NetworkTechnology = { NONE: "none", TWO_G: "2G", THREE_G: "3G", FOUR_G: "4G", FIVE_G: "5G" } as const;
export const NetworkModePreference = { FOUR_G_5G_PREFERRED: "4g_5g_preferred", FOUR_G_ONLY: "4g_only", THREE_G_ONLY: "3g_only", TWO_G_ONLY: "2g_only" } as const;
export const SignalStrength = { NONE: "none", POOR: "poor", FAIR: "fair", GOOD: "good", EXCELLENT: "excellent" } as const;
export const PerformanceLevel = { UNKNOWN: "unknown", POOR: "poor", FAIR: "fair", GOOD: "good", EXCELLENT: "excellent" } as const;
export const NetworkStatus = { CONNECTED: "connected", SEARCHING: "searching", NO_SERVICE: "no_service", EMERGENCY_ONLY: "emergency_only" } as const;
export const APNNames = { INTERNET: "internet", BROKEN: "broken" } as const;

const enumOf = (name: string, members: Record<string, string>) => t.enumOf(name, Object.values(members));
/** Member names by value, for the enum reprs a tool prints (`<PerformanceLevel.POOR: 'poor'>`). */
export function enumRepr(cls: string, members: Record<string, string>, value: string): string {
  const name = Object.entries(members).find(([, v]) => v === value)?.[0];
  return name ? `<${cls}.${name}: '${value}'>` : `'${value}'`;
}

// ---- agent DB ----
const Address: ModelSpec = { name: "Address", forbidExtra: true, fields: ["street", "city", "state", "zip_code"].map((name) => ({ name, type: t.str })) };
const Plan: ModelSpec = {
  name: "Plan",
  forbidExtra: true,
  fields: [
    { name: "plan_id", type: t.str },
    { name: "name", type: t.str },
    { name: "data_limit_gb", type: t.float },
    { name: "price_per_month", type: t.float },
    { name: "data_refueling_price_per_gb", type: t.float },
  ],
};
const Device: ModelSpec = {
  name: "Device",
  forbidExtra: true,
  fields: [
    { name: "device_id", type: t.str },
    { name: "device_type", type: t.enumOf("DeviceType", ["phone", "router", "tablet", "watch", "other"]) },
    { name: "model", type: t.str },
    { name: "imei", type: t.optional(t.str), default: () => null },
    { name: "is_esim_capable", type: t.bool },
    { name: "activated", type: t.bool, default: () => false },
    { name: "activation_date", type: t.optional(t.datetime), default: () => null },
    { name: "last_esim_transfer_date", type: t.optional(t.datetime), default: () => null },
  ],
};
const optDate = (name: string) => ({ name, type: t.optional(t.date), default: () => null });
const Line: ModelSpec = {
  name: "Line",
  forbidExtra: true,
  fields: [
    { name: "line_id", type: t.str },
    { name: "phone_number", type: t.str },
    { name: "status", type: enumOf("LineStatus", LineStatus), default: () => LineStatus.PENDING_ACTIVATION },
    { name: "plan_id", type: t.str },
    { name: "device_id", type: t.optional(t.str), default: () => null },
    { name: "data_used_gb", type: t.float, default: () => 0 },
    { name: "data_refueling_gb", type: t.float, default: () => 0 },
    { name: "roaming_enabled", type: t.bool, default: () => false },
    optDate("contract_end_date"),
    optDate("last_plan_change_date"),
    optDate("last_sim_replacement_date"),
    optDate("suspension_start_date"),
  ],
};
export const LineItem: ModelSpec = {
  name: "LineItem",
  forbidExtra: true,
  fields: [
    { name: "description", type: t.str },
    { name: "amount", type: t.float },
    { name: "date", type: t.date },
    { name: "item_type", type: t.str },
  ],
};
export const Bill: ModelSpec = {
  name: "Bill",
  forbidExtra: true,
  fields: [
    { name: "bill_id", type: t.str },
    { name: "customer_id", type: t.str },
    { name: "period_start", type: t.date },
    { name: "period_end", type: t.date },
    { name: "issue_date", type: t.date },
    { name: "total_due", type: t.float },
    { name: "due_date", type: t.date },
    { name: "line_items", type: t.list(t.model(LineItem)), default: () => [] },
    { name: "status", type: enumOf("BillStatus", BillStatus), default: () => BillStatus.DRAFT },
  ],
};
const PaymentMethod: ModelSpec = {
  name: "PaymentMethod",
  forbidExtra: true,
  fields: [
    { name: "method_type", type: t.enumOf("PaymentMethodType", ["Credit Card", "Debit Card", "PayPal"]) },
    { name: "account_number_last_4", type: t.str },
    { name: "expiration_date", type: t.str },
  ],
};
const Customer: ModelSpec = {
  name: "Customer",
  forbidExtra: true,
  fields: [
    { name: "customer_id", type: t.str },
    { name: "full_name", type: t.str },
    { name: "date_of_birth", type: t.str },
    { name: "email", type: t.str },
    { name: "phone_number", type: t.str },
    { name: "address", type: t.model(Address) },
    { name: "account_status", type: t.enumOf("AccountStatus", ["Active", "Suspended", "Pending Verification", "Closed"]), default: () => "Pending Verification" },
    { name: "payment_methods", type: t.list(t.model(PaymentMethod)), default: () => [] },
    { name: "line_ids", type: t.list(t.str), default: () => [] },
    { name: "bill_ids", type: t.list(t.str), default: () => [] },
    // The default is a date, not a datetime: pydantic does not validate defaults.
    { name: "created_at", type: t.datetime, default: () => new PyDate(2025, 1, 1) },
    optDate("last_extension_date"),
    { name: "goodwill_credit_used_this_year", type: t.float, default: () => 0 },
  ],
};
export const TelecomDB: ModelSpec = {
  name: "TelecomDB",
  forbidExtra: true,
  fields: [
    { name: "plans", type: t.list(t.model(Plan)), default: () => [] },
    { name: "customers", type: t.list(t.model(Customer)), default: () => [] },
    { name: "lines", type: t.list(t.model(Line)), default: () => [] },
    { name: "bills", type: t.list(t.model(Bill)), default: () => [] },
    { name: "devices", type: t.list(t.model(Device)), default: () => [] },
  ],
};

// ---- user DB (the phone) ----
export const APNSettings: ModelSpec = {
  name: "APNSettings",
  forbidExtra: true,
  fields: [
    { name: "apn_name", type: enumOf("APNNames", APNNames), default: () => APNNames.INTERNET },
    { name: "reset_at_reboot", type: t.bool, default: () => false },
    { name: "mms_apn", type: t.optional(t.str), default: () => "mms" },
    { name: "mmsc_url", type: t.optional(t.str), default: () => "http://mms.carrier.com/mms/wapenc" },
    { name: "mms_proxy", type: t.optional(t.str), default: () => null },
    { name: "mms_port", type: t.optional(t.int), default: () => null },
  ],
};
export const VpnDetails: ModelSpec = {
  name: "VpnDetails",
  forbidExtra: true,
  fields: [
    { name: "server_address", type: t.optional(t.str), default: () => null },
    { name: "protocol", type: t.optional(t.str), default: () => null },
    { name: "server_performance", type: enumOf("PerformanceLevel", PerformanceLevel), default: () => PerformanceLevel.UNKNOWN, validateDefault: true },
  ],
};
export const AppPermissions: ModelSpec = {
  name: "AppPermissions",
  forbidExtra: true,
  fields: ["sms", "storage", "phone", "network"].map((name) => ({ name, type: t.bool, default: () => false })),
};
const permissions = (p: Partial<Record<"sms" | "storage" | "phone" | "network", boolean>>): TModel => ({ sms: p.sms ?? false, storage: p.storage ?? false, phone: p.phone ?? false, network: p.network ?? false });
const AppStatus: ModelSpec = {
  name: "AppStatus",
  forbidExtra: true,
  fields: [
    { name: "app_name", type: t.str },
    { name: "permissions", type: t.model(AppPermissions), default: () => permissions({}) },
  ],
};
const enumField = (name: string, cls: string, members: Record<string, string>, dflt: string) => ({ name, type: enumOf(cls, members), default: () => dflt, validateDefault: true });
const boolField = (name: string, dflt: boolean) => ({ name, type: t.bool, default: () => dflt });
const MockPhoneAttributes: ModelSpec = {
  name: "MockPhoneAttributes",
  forbidExtra: true,
  fields: [
    enumField("sim_card_status", "SimStatus", SimStatus, SimStatus.ACTIVE),
    boolField("sim_card_missing", false),
    boolField("airplane_mode", false),
    enumField("network_signal_strength", "SignalStrength", SignalStrength, SignalStrength.GOOD),
    enumField("network_technology_connected", "NetworkTechnology", NetworkTechnology, NetworkTechnology.FIVE_G),
    enumField("network_connection_status", "NetworkStatus", NetworkStatus, NetworkStatus.CONNECTED),
    { name: "battery_level", type: t.int, default: () => 80n },
    boolField("data_enabled", true),
    boolField("roaming_enabled", false),
    enumField("network_mode_preference", "NetworkModePreference", NetworkModePreference, NetworkModePreference.FOUR_G_5G_PREFERRED),
    { name: "active_apn_settings", type: t.model(APNSettings), default: () => defaultApnSettings() },
    boolField("wifi_enabled", false),
    boolField("wifi_connected", false),
    { name: "wifi_ssid", type: t.optional(t.str), default: () => null },
    enumField("wifi_signal_strength", "SignalStrength", SignalStrength, SignalStrength.NONE),
    boolField("wifi_calling_enabled", false),
    boolField("wifi_calling_mms_over_wifi", false),
    boolField("data_saver_mode", false),
    boolField("vpn_enabled_setting", false),
    boolField("vpn_connected", false),
    { name: "vpn_details", type: t.optional(t.model(VpnDetails)), default: () => null },
    {
      name: "app_statuses",
      type: t.dict(t.model(AppStatus)),
      default: () =>
        new Map<string, TValue>([
          ["messaging", { app_name: "messaging", permissions: permissions({ sms: true, storage: true, phone: true }) }],
          ["browser", { app_name: "browser", permissions: permissions({ network: true, storage: true }) }],
        ]),
    },
  ],
};
export const PaymentRequest: ModelSpec = {
  name: "PaymentRequest",
  forbidExtra: true,
  fields: [
    { name: "bill_id", type: t.str },
    { name: "amount_due", type: t.float },
    { name: "paid", type: t.bool, default: () => false },
  ],
};
const UserSurroundings: ModelSpec = {
  name: "UserSurroundings",
  forbidExtra: true,
  fields: [
    { name: "name", type: t.optional(t.str), default: () => null },
    { name: "phone_number", type: t.optional(t.str), default: () => null },
    boolField("is_abroad", false),
    boolField("roaming_allowed", false),
    {
      name: "signal_strength",
      type: t.dict(enumOf("SignalStrength", SignalStrength), enumOf("NetworkTechnology", NetworkTechnology)),
      default: () => new Map<string, TValue>([["2G", "poor"], ["3G", "fair"], ["4G", "good"], ["5G", "excellent"]]),
    },
    boolField("mobile_data_usage_exceeded", false),
    boolField("line_active", true),
    { name: "payment_request", type: t.optional(t.model(PaymentRequest)), default: () => null },
  ],
};
export const TelecomUserDB: ModelSpec = {
  name: "TelecomUserDB",
  forbidExtra: true,
  fields: [
    { name: "device", type: t.model(MockPhoneAttributes), default: () => validateFile(MockPhoneAttributes, new Map(), "MockPhoneAttributes()") },
    { name: "surroundings", type: t.model(UserSurroundings), default: () => validateFile(UserSurroundings, new Map(), "UserSurroundings()") },
  ],
};

export function defaultApnSettings(): TModel {
  return { apn_name: APNNames.INTERNET, reset_at_reboot: false, mms_apn: "mms", mmsc_url: "http://mms.carrier.com/mms/wapenc", mms_proxy: null, mms_port: null };
}

/** A data file's content: TOML as the Python `toml` package reads it, or JSON (a dump). */
export function readDataFile(path: string): TValue {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new Tau2DataError(`cannot read ${path}: ${(e as Error).message}`);
  }
  if (path.endsWith(".toml")) return parseToml(text, path);
  let tree: OrderedJson;
  try {
    tree = parseOrderedJson(text);
  } catch (e) {
    throw new Tau2DataError(`${path} is not valid JSON: ${(e as Error).message}`);
  }
  return fromJson(tree);
}

export const telecomDbFrom = (data: TValue, source: string) => validateFile(TelecomDB, data, source);
export const telecomUserDbFrom = (data: TValue, source: string) => validateFile(TelecomUserDB, data, source);
export const loadTelecomDb = (path: string) => telecomDbFrom(readDataFile(path), path);
export const loadTelecomUserDb = (path: string) => telecomUserDbFrom(readDataFile(path), path);

export const hashModel = (m: TModel) => dbHash(m);
/** `model_dump(mode="json")` in the TOML file's layout, as JSON (indent 4). */
export const dumpModel = (m: TModel) => dumps(m, { indent: 4, dates: "iso" });
export const copyModel = (m: TModel) => deepCopy(m);
