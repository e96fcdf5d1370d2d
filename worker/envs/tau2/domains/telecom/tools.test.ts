/**
 * The telecom tools, agent's and user's, on the cases of tau2-bench v0.2.0's own tests
 * (tests/test_domains/test_telecom/test_tools_telecom.py on the shipped db.toml; test_user_tools_telecom.py on
 * its phone fixture, test/fixtures/tau2-telecom/upstream-test-user-db.json), asserting what upstream asserts
 * plus the exact texts; then sync_tools between the carrier and the phone, and upstream's observable quirks.
 */
import { describe, expect, it } from "vitest";
import { TELECOM_UPSTREAM_TEST_USER_DB as UPSTREAM_TEST_USER_DB } from "../../../../../test/fixtures/tau2-domains";
import { PyDict, pyFromJsonText } from "../../../../../lib/python/values";
import { tau2DataFiles } from "../../../../../lib/tau2/tasks";
import { Tau2Environment, type Requestor } from "../../harness/environment";
import type { TValue } from "../../harness/py";
import { parseToml } from "../../harness/toml";
import { telecomDomainEnv, TelecomRuntime } from "./domain";
import { dumpModel, hashModel, loadTelecomDb, loadTelecomUserDb, telecomDbFrom, telecomUserDbFrom } from "./model";

const files = tau2DataFiles("telecom", { required: ["db", "userDb"] });
const db = loadTelecomDb(files.db);
const shippedPhone = loadTelecomUserDb(files.userDb!);
const testPhone = loadTelecomUserDb(UPSTREAM_TEST_USER_DB);

const envOf = (phone = testPhone, runtime = new TelecomRuntime()) => new Tau2Environment(telecomDomainEnv(db, phone, runtime));
/** Arguments as Python values: an object (JSON.stringify writes 2.0 as 2), or JSON text when a float must stay a float. */
const py = (v: unknown) => pyFromJsonText(typeof v === "string" ? v : JSON.stringify(v)) as TValue;
const call = (env: Tau2Environment, name: string, args: Record<string, unknown> | string = {}, requestor: Requestor = "assistant") => env.getResponse({ id: "0", name, requestor, arguments: py(args) });
const agent = (env: Tau2Environment, name: string, args: Record<string, unknown> | string = {}) => {
  const r = call(env, name, args);
  expect(r.error, r.content).toBe(false);
  return r.content;
};
const user = (env: Tau2Environment, name: string, args: Record<string, unknown> = {}) => {
  const r = call(env, name, args, "user");
  expect(r.error, r.content).toBe(false);
  return r.content;
};
/** `telecom_tools.device.x = …` in upstream's tests: here through update_db (what initialization_data does). */
const setPhone = (env: Tau2Environment, device: Record<string, unknown>, surroundings: Record<string, unknown> = {}) =>
  env.domain.updateDb("user", py({ device, surroundings }) as PyDict);
const fn = (env: Tau2Environment, envType: Requestor, name: string, args: Record<string, unknown> = {}) => env.runEnvFunctionCall({ env_type: envType, func_name: name, arguments: py(args) as PyDict });
const json = (text: string) => JSON.parse(text);

describe("upstream's telecom agent-tool tests (shipped db.toml)", () => {
  it("customer lookups by phone (primary or line), id and name; unknown ones fail", () => {
    const env = envOf(shippedPhone);
    expect(json(agent(env, "get_customer_by_phone", { phone_number: "555-123-2002" }))).toMatchObject({ customer_id: "C1001", full_name: "John Smith" });
    expect(json(agent(env, "get_customer_by_phone", { phone_number: "555-123-2001" })).customer_id).toBe("C1001");
    expect(call(env, "get_customer_by_phone", { phone_number: "555-9999" }).content).toBe("Error: Customer with phone number 555-9999 not found");
    expect(json(agent(env, "get_customer_by_id", { customer_id: "C1001" })).full_name).toBe("John Smith");
    expect(call(env, "get_customer_by_id", { customer_id: "C9999" }).content).toBe("Error: Customer with ID C9999 not found");
    expect(json(agent(env, "get_customer_by_name", { full_name: "john smith", dob: "1985-06-15" })).map((c: { customer_id: string }) => c.customer_id)).toEqual(["C1001"]);
    expect(agent(env, "get_customer_by_name", { full_name: "Jane Doe", dob: "1980-01-01" })).toBe("[]");
    // Datetimes go through json.dumps's default=str: a space between date and time.
    expect(agent(env, "get_customer_by_id", { customer_id: "C1001" })).toContain('"created_at": "2025-01-15 10:30:00", "last_extension_date": null, "goodwill_credit_used_this_year": 25.0}');
  });

  it("suspend_line / resume_line: status, the suspension date (the fixed clock), and the refusals", () => {
    const env = envOf(shippedPhone);
    const suspended = json(agent(env, "suspend_line", { customer_id: "C1001", line_id: "L1001", reason: "Customer request" }));
    expect(suspended.message).toBe("Line suspended successfully. $5/month holding fee will apply.");
    expect(suspended.line).toMatchObject({ status: "Suspended", suspension_start_date: "2025-02-25" });
    expect(call(env, "suspend_line", { customer_id: "C1001", line_id: "L9999", reason: "x" }).content).toBe("Error: Line L9999 not found for customer C1001");
    expect(call(env, "suspend_line", { customer_id: "C1001", line_id: "L1003", reason: "x" }).content).toBe("Error: Line must be active to suspend");
    const resumed = json(agent(env, "resume_line", { customer_id: "C1001", line_id: "L1003" }));
    expect(resumed.line).toMatchObject({ status: "Active", suspension_start_date: null });
    expect(call(env, "resume_line", { customer_id: "C1001", line_id: "L9999" }).error).toBe(true);
    expect(call(env, "resume_line", { customer_id: "C1002", line_id: "L1004" }).content).toBe("Error: Line must be suspended to resume");
  });

  it("get_bills_for_customer: newest issue date first, limited; unknown customer fails", () => {
    const env = envOf(shippedPhone);
    const bills = json(agent(env, "get_bills_for_customer", { customer_id: "C1001" }));
    expect(bills.map((b: { bill_id: string }) => b.bill_id)).toEqual(["B1003", "B1002", "B1001"]);
    expect(bills.every((b: { customer_id: string }) => b.customer_id === "C1001")).toBe(true);
    expect(json(agent(env, "get_bills_for_customer", { customer_id: "C1001", limit: 1 }))).toHaveLength(1);
    expect(call(env, "get_bills_for_customer", { customer_id: "C9999" }).error).toBe(true);
  });

  it("get_data_usage: a plain dict, so its numbers come back as strings (to_json_str's _process)", () => {
    const env = envOf(shippedPhone);
    expect(agent(env, "get_data_usage", { customer_id: "C1001", line_id: "L1002" })).toBe(
      '{"line_id": "L1002", "data_used_gb": "8.7", "data_limit_gb": "15.0", "data_refueling_gb": "0.0", "cycle_end_date": "2025-02-28"}',
    );
    expect(call(env, "get_data_usage", { customer_id: "C1001", line_id: "L9999" }).error).toBe(true);
  });

  it("roaming on and off; refuel_data charges the plan's rate on the draft bill", () => {
    const env = envOf(shippedPhone);
    expect(agent(env, "enable_roaming", { customer_id: "C1001", line_id: "L1001" })).toBe("Roaming enabled successfully");
    expect(agent(env, "enable_roaming", { customer_id: "C1001", line_id: "L1001" })).toBe("Roaming was already enabled");
    expect(call(env, "enable_roaming", { customer_id: "C1001", line_id: "L9999" }).error).toBe(true);
    expect(agent(env, "disable_roaming", { customer_id: "C1001", line_id: "L1001" })).toBe("Roaming disabled successfully");
    expect(agent(env, "disable_roaming", { customer_id: "C1001", line_id: "L1001" })).toBe("Roaming was already disabled");
    const refuel = json(agent(env, "refuel_data", '{"customer_id": "C1001", "line_id": "L1001", "gb_amount": 2.0}'));
    expect(refuel).toEqual({ message: "Successfully added 2.0 GB of data for line L1001 for $10.00", new_data_refueling_gb: "2.0", charge: "10.0" });
    // An int amount is printed as an int, and the float field becomes a float.
    expect(json(agent(env, "refuel_data", { customer_id: "C1001", line_id: "L1001", gb_amount: 1 })).message).toBe("Successfully added 1 GB of data for line L1001 for $5.00");
    expect(call(env, "refuel_data", { customer_id: "C1001", line_id: "L1001", gb_amount: -1 }).content).toBe("Error: Refuel amount must be positive");
    const draft = json(agent(env, "get_details_by_id", { id: "B1003" }));
    expect(draft.total_due).toBe(15);
    expect(draft.line_items.map((i: { description: string }) => i.description)).toEqual(["Data refueling: 2.0 GB at $5.0/GB", "Data refueling: 1 GB at $5.0/GB"]);
    expect(agent(env, "transfer_to_human_agents", { summary: "x" })).toBe("Transfer successful");
    expect(call(env, "get_details_by_id", { id: "X1" }).content).toBe("Error: Unknown ID format or type: X1");
    expect(call(env, "get_details_by_id", { id: 5 }).content).toBe("Error: 'int' object has no attribute 'startswith'");
  });
});

describe("upstream's telecom user-tool tests (its phone fixture)", () => {
  it("status bar, airplane mode, network status", () => {
    const env = envOf();
    expect(user(env, "check_status_bar")).toBe("Status Bar: \u{1F4F6}\u00B3 Good | 5G | \u{1F4F1} Data Enabled | \u{1F50B} 80%");
    expect(user(env, "toggle_airplane_mode")).toBe("Airplane Mode is now ON.\nStatus Bar: \u2708\uFE0F Airplane Mode | \u{1F50B} 80%");
    expect(user(env, "toggle_airplane_mode")).toMatch(/^Airplane Mode is now OFF\.\nStatus Bar: /);
    fn(env, "user", "turn_airplane_mode_on");
    expect(user(env, "check_status_bar")).toContain("\u2708\uFE0F Airplane Mode");
    fn(env, "user", "turn_airplane_mode_off");
    expect(user(env, "check_status_bar")).not.toContain("\u2708\uFE0F Airplane Mode");
    expect(user(env, "check_network_status")).toBe(
      "Airplane Mode: OFF\nSIM Card Status: active\nCellular Connection: connected\nCellular Signal: excellent\nCellular Network Type: 5G\nMobile Data Enabled: Yes\nData Roaming Enabled: No\nWi-Fi Radio: OFF\nWi-Fi Connected: No",
    );
  });

  it("SIM: status texts, unseat and reseat", () => {
    const env = envOf();
    expect(user(env, "check_sim_status")).toBe("Your SIM card is active and working.");
    fn(env, "user", "unseat_sim_card");
    expect(user(env, "check_sim_status")).toBe("No SIM card detected in the phone.");
    expect(user(env, "reseat_sim_card")).toMatch(/^SIM card re-seated successfully\.\nStatus Bar: /);
    expect(user(env, "check_network_status")).toContain("Cellular Connection: connected");
    fn(env, "user", "lock_sim_card", { mode: "pin" });
    expect(user(env, "check_sim_status")).toBe("The SIM card is locked with a PIN code.");
  });

  it("data, roaming, network mode", () => {
    const env = envOf();
    expect(user(env, "toggle_data")).toMatch(/^Mobile Data is now OFF\./);
    expect(user(env, "toggle_roaming")).toMatch(/^Data Roaming is now ON\./);
    expect(user(env, "set_network_mode_preference", { mode: "4g_only" })).toBe("Preferred Network Mode set to: 4g_only\nStatus Bar: \u{1F4F6}\u00B3 Good | 4G | \u{1F4F5} Data Disabled | \u{1F50B} 80%");
    expect(user(env, "check_network_mode_preference")).toBe("Network Mode Preference: 4g_only");
    expect(user(env, "set_network_mode_preference", { mode: "invalid_mode" })).toMatch(/^Failed to set network mode: 'invalid_mode' is not a valid option\. Please use one of: 4g_5g_preferred, 4g_only, 3g_only, 2g_only\n/);
  });

  it("APN: check, set (a dict is validated, extra keys refused), reset at the next reboot", () => {
    const env = envOf();
    expect(user(env, "check_apn_settings")).toBe("Current APN Name: internet\nMMSC URL (for picture messages): http://mms.carrier.com/mms/wapenc\n(These are technical settings, usually best left unchanged.)");
    expect(user(env, "set_apn_settings", { apn_settings: { apn_name: "internet", mmsc_url: "http://mms.new.com", mms_apn: "mms", reset_at_reboot: false } })).toMatch(/^APN settings set to: internet\nStatus Bar: /);
    expect(user(env, "check_apn_settings")).toContain("MMSC URL (for picture messages): http://mms.new.com");
    expect(call(env, "set_apn_settings", { apn_settings: { apn_name: "internet", bogus: 1 } }, "user").content).toBe(
      "Error: 1 validation error for APNSettings\nbogus\n  Extra inputs are not permitted [type=extra_forbidden, input_value=1, input_type=int]\n    For further information visit https://errors.pydantic.dev/2.10/v/extra_forbidden",
    );
    expect(user(env, "reset_apn_settings")).toMatch(/^APN settings will reset at reboot\.\nStatus Bar: /);
    expect(user(env, "reboot_device")).toMatch(/^Resetting APN settings\.\.\.\nRestarting network services\.\.\.\nStatus Bar: /);
    expect(user(env, "check_apn_settings")).toContain("MMSC URL (for picture messages): http://mms.carrier.com/mms/wapenc");
    expect(user(env, "reboot_device")).toMatch(/^Restarting network services\.\.\.\nStatus Bar: /);
  });

  it("Wi-Fi and Wi-Fi calling", () => {
    const env = envOf();
    expect(user(env, "check_wifi_status")).toBe("Wi-Fi is turned OFF.");
    expect(user(env, "toggle_wifi")).toMatch(/^Wi-Fi is now ON\./);
    expect(user(env, "check_wifi_status")).toBe("Wi-Fi is ON but not connected to any network.");
    setPhone(env, { wifi_connected: true, wifi_ssid: "MyHomeWiFi", wifi_signal_strength: "good" });
    expect(user(env, "check_wifi_status")).toBe("Wi-Fi is ON and connected to 'MyHomeWiFi'. Signal strength: good.");
    setPhone(env, { airplane_mode: true, wifi_enabled: false });
    expect(user(env, "toggle_wifi")).toMatch(/^Cannot change Wi-Fi settings while Airplane Mode is ON\./);
    expect(user(env, "check_wifi_calling_status")).toBe("Wi-Fi Calling is currently turned OFF.");
    expect(user(env, "toggle_wifi_calling")).toMatch(/^Wi-Fi Calling is now ON\./);
  });

  it("VPN: off, on in settings, connected with its details printed as a Python dict", () => {
    const env = envOf();
    expect(user(env, "check_vpn_status")).toBe("VPN is turned OFF.");
    setPhone(env, { vpn_enabled_setting: true });
    expect(user(env, "check_vpn_status")).toBe("VPN is turned ON in settings, but currently not connected.");
    setPhone(env, { vpn_connected: true, vpn_details: { server_address: "1.2.3.4", protocol: "TestVPN" } });
    expect(user(env, "check_vpn_status")).toBe("VPN is ON and connected. Details: {'server_address': '1.2.3.4', 'protocol': 'TestVPN', 'server_performance': <PerformanceLevel.UNKNOWN: 'unknown'>}");
    expect(user(env, "connect_vpn")).toBe("VPN already connected.");
    expect(user(env, "disconnect_vpn")).toMatch(/^VPN disconnected successfully\./);
    expect(user(env, "disconnect_vpn")).toMatch(/^No active VPN connection to disconnect\./);
    expect(user(env, "connect_vpn")).toMatch(/^VPN connected successfully\.\nStatus Bar: .*\u{1F512} VPN Connected/u);
    expect(user(env, "check_vpn_status")).toBe("VPN is ON and connected. Details: {'server_address': '192.168.1.1', 'protocol': 'OpenVPN', 'server_performance': <PerformanceLevel.EXCELLENT: 'excellent'>}");
  });

  it("apps and permissions", () => {
    const env = envOf();
    expect(user(env, "check_installed_apps")).toBe("The following apps are installed on the phone: messaging, browser");
    expect(user(env, "check_app_status", { app_name: "messaging" })).toBe("Status for App: messaging\n - Permissions: None granted.");
    expect(user(env, "check_app_status", { app_name: "browser" })).toBe("Status for App: browser\n - Permissions Granted:\n   - storage\n   - network");
    expect(user(env, "check_app_status", { app_name: "nonexistent_app" })).toBe("App 'nonexistent_app' not found on this phone.");
    expect(user(env, "check_app_permissions", { app_name: "messaging" })).toBe("App 'messaging' currently has no permissions granted.");
    expect(user(env, "grant_app_permission", { app_name: "messaging", permission: "storage" })).toMatch(/^Success\. Permission 'storage' granted to app 'messaging'\.\nStatus Bar: /);
    expect(user(env, "check_app_permissions", { app_name: "messaging" })).toBe("App 'messaging' has permission for: storage.");
    expect(user(env, "grant_app_permission", { app_name: "messaging", permission: "invalid_permission" })).toMatch(
      /^Error\. Permission 'invalid_permission' not tracked for app 'messaging', available permissions: \['sms', 'storage', 'phone', 'network'\]\n/,
    );
    expect(user(env, "grant_app_permission", { app_name: "nonexistent_app", permission: "storage" })).toMatch(/^Error\. App 'nonexistent_app' not found\. Cannot grant permission\.\n/);
    const removed = fn(env, "user", "remove_app_permission", { app_name: "browser", permission: "network" });
    expect(removed).toEqual([true, "Permission 'network' removed from app 'browser'."]);
    expect(user(env, "check_app_permissions", { app_name: "browser" })).toBe("App 'browser' has permission for: storage.");
  });

  it("can_send_mms: every failing condition", () => {
    const env = envOf();
    setPhone(env, { network_technology_connected: "4G", active_apn_settings: { mmsc_url: "http://mms.example.com" }, app_statuses: { messaging: { permissions: { sms: true, storage: true } } } });
    expect(user(env, "can_send_mms")).toBe("Your messaging app can send MMS messages.");
    const cannot = "Your messaging app cannot send MMS messages.";
    for (const [device, surroundings] of [
      [{ network_connection_status: "no_service" }, {}],
      [{ data_enabled: false }, {}],
      [{}, { mobile_data_usage_exceeded: true }],
      [{ network_technology_connected: "2G" }, {}],
      [{ wifi_calling_enabled: true, wifi_calling_mms_over_wifi: true }, {}],
      [{ active_apn_settings: { mmsc_url: null } }, {}],
      [{ app_statuses: { messaging: { permissions: { sms: false } } } }, {}],
    ] as const) {
      const e = envOf();
      setPhone(e, { network_technology_connected: "4G", active_apn_settings: { mmsc_url: "http://mms.example.com" }, app_statuses: { messaging: { permissions: { sms: true, storage: true } } } });
      setPhone(e, device, surroundings);
      expect(user(e, "can_send_mms"), JSON.stringify(device)).toBe(cannot);
    }
  });

  it("run_speed_test: 4G good, no signal, data saver, a poor VPN, 5G excellent", () => {
    const env = envOf();
    setPhone(env, { network_signal_strength: "good", network_technology_connected: "4G" });
    expect(user(env, "run_speed_test")).toBe("Speed Test Result: 44.00 Mbps (Good). Connection is good for most activities, including HD streaming.");
    setPhone(env, { network_signal_strength: "none" });
    expect(user(env, "run_speed_test")).toBe("Speed test failed: No Connection.");
    setPhone(env, { network_signal_strength: "good", data_saver_mode: true });
    expect(user(env, "run_speed_test")).toBe("Speed Test Result: 8.80 Mbps (Fair). Connection is okay for web browsing and some standard definition streaming.");
    setPhone(env, { data_saver_mode: false, vpn_connected: true, vpn_details: { server_performance: "poor" } });
    expect(user(env, "run_speed_test")).toBe("Speed Test Result: 4.40 Mbps (Poor). Connection is slow. Web browsing may be sluggish, streaming difficult.");
    setPhone(env, { vpn_connected: false, network_technology_connected: "5G", network_signal_strength: "excellent" });
    expect(user(env, "run_speed_test")).toBe("Speed Test Result: 275.00 Mbps (Excellent). Connection is very fast.");
  });
});

describe("the carrier and the phone (sync_tools)", () => {
  it("a payment request reaches the phone; paying it marks the bill paid", () => {
    const env = envOf(shippedPhone);
    fn(env, "user", "set_user_info", { name: "John Smith", phone_number: "555-123-2002" });
    expect(user(env, "check_payment_request")).toBe("No payment request has been made.");
    expect(agent(env, "send_payment_request", { customer_id: "C1001", bill_id: "B1002" })).toBe("Payment request sent to the customer for bill B1002");
    expect(call(env, "send_payment_request", { customer_id: "C1001", bill_id: "B1001" }).content).toBe("Error: A bill is already awaiting payment for this customer");
    expect(user(env, "check_payment_request")).toBe("You have a payment request for bill B1002 of 150.0 USD.");
    expect(user(env, "make_payment")).toBe("Payment of 150.0 USD has been made for bill B1002.");
    expect(json(agent(env, "get_details_by_id", { id: "B1002" })).status).toBe("Paid");
    expect(user(env, "make_payment")).toBe("You do not have a payment request.");
  });

  it("a suspended line leaves the phone without service after its next network search; roaming follows the line", () => {
    const env = envOf(shippedPhone);
    fn(env, "user", "set_user_info", { name: "John Smith", phone_number: "555-123-2001" });
    agent(env, "suspend_line", { customer_id: "C1001", line_id: "L1001", reason: "x" });
    expect(user(env, "reboot_device")).toBe("Restarting network services...\nStatus Bar: \u{1F4F5} No Signal | \u{1F4F5} Data Disabled | \u{1F50B} 80%");
    fn(env, "user", "set_user_location", { abroad: true });
    fn(env, "user", "turn_roaming_on");
    agent(env, "resume_line", { customer_id: "C1001", line_id: "L1001" });
    user(env, "reboot_device");
    expect(env.runEnvAssertion({ env_type: "user", func_name: "assert_mobile_data_status", arguments: py({ expected_status: false }) as PyDict, assert_value: true })).toBe(true);
    agent(env, "enable_roaming", { customer_id: "C1001", line_id: "L1001" });
    expect(env.runEnvAssertion({ env_type: "user", func_name: "assert_mobile_data_status", arguments: py({ expected_status: true }) as PyDict, assert_value: true })).toBe(true);
  });

  it("an assertion that returns no bool is refused as upstream refuses it; unknown functions fail with Python's AttributeError", () => {
    const env = envOf(shippedPhone);
    expect(() => env.runEnvAssertion({ env_type: "user", func_name: "check_status_bar", arguments: new PyDict(), assert_value: true })).toThrow(/returned <class 'str'> instead of bool/);
    expect(() => fn(env, "user", "nope")).toThrow(/'TelecomUserTools' object has no attribute 'nope'/);
  });
});

describe("upstream's observable quirks", () => {
  it("break_vpn degrades the VPN every later connection of the same process gets (one runtime); a new process starts clean", () => {
    const runtime = new TelecomRuntime();
    const first = envOf(testPhone, runtime);
    fn(first, "user", "break_vpn");
    expect(user(first, "check_vpn_status")).toContain("<PerformanceLevel.POOR: 'poor'>");
    const later = envOf(testPhone, runtime);
    user(later, "connect_vpn");
    expect(user(later, "check_vpn_status")).toBe("VPN is ON and connected. Details: {'server_address': '192.168.1.1', 'protocol': 'OpenVPN', 'server_performance': <PerformanceLevel.POOR: 'poor'>}");
    const other = envOf(testPhone, new TelecomRuntime());
    user(other, "connect_vpn");
    expect(user(other, "check_vpn_status")).toContain("<PerformanceLevel.EXCELLENT: 'excellent'>");
  });

  it("a tool that returns a plain dict has its numbers and booleans as strings; a model inside keeps them", () => {
    const env = envOf(shippedPhone);
    const suspended = agent(env, "suspend_line", { customer_id: "C1001", line_id: "L1001", reason: "x" });
    expect(suspended).toContain('"data_used_gb": 3.2, "data_refueling_gb": 0.0, "roaming_enabled": false');
  });
});

describe("loading and dumping the telecom DBs", () => {
  it("dumps reload with the same hashes", () => {
    const env = envOf(shippedPhone);
    fn(env, "user", "set_user_info", { name: "John Smith", phone_number: "555-123-2002" });
    agent(env, "refuel_data", '{"customer_id": "C1001", "line_id": "L1002", "gb_amount": 2.0}');
    const agentDump = env.domain.dump("assistant")!;
    const userDump = env.domain.dump("user")!;
    const { fromJson } = { fromJson: (t: string) => pyFromJsonText(t) as TValue };
    expect(hashModel(telecomDbFrom(fromJson(agentDump), "dump"))).toBe(env.dbHash());
    expect(hashModel(telecomUserDbFrom(fromJson(userDump), "dump"))).toBe(env.userDbHash());
    expect(agentDump).toContain('"activation_date": "2025-01-20T14:30:00"');
    expect(dumpModel(shippedPhone).startsWith('{\n    "device": {\n        "sim_card_status": "active"')).toBe(true);
  });

  it("a malformed file names the file and the line or the path", () => {
    expect(() => parseToml("[plans\nplan_id = 1", "db.toml")).toThrow(/^db\.toml:1: unterminated table header/);
    expect(() => parseToml('a = "x"\na = "y"', "db.toml")).toThrow(/^db\.toml:2: duplicate key a/);
    expect(() => telecomDbFrom(parseToml('[[plans]]\nplan_id = "P1"\nname = "x"\ndata_limit_gb = "lots"\nprice_per_month = 1.0\ndata_refueling_price_per_gb = 1.0', "db.toml"), "db.toml")).toThrow(
      /^db\.toml is not a valid TelecomDB: plans\.0\.data_limit_gb: Input should be a valid number, unable to parse string as a number/,
    );
    expect(() => telecomUserDbFrom(parseToml("[device]\nwarp_drive = true", "user_db.toml"), "user_db.toml")).toThrow(/device\.warp_drive: Extra inputs are not permitted/);
  });
});
