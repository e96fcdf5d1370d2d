/**
 * The 30 tools the telecom user calls on their own phone (tau2-bench v0.2.0
 * `domains/telecom/user_tools.py`, `TelecomUserTools`) in class order, plus the methods tasks call as
 * environment functions to break the phone (`turn_data_off`, `break_vpn`, …) or check it (`assert_*`).
 * Texts are upstream's, emoji and all.
 */
import { round2 } from "../../../../../lib/python/json";
import { formatFixed } from "../../../../../lib/python/numbers";
import { pyStr as pyValueStr, pyStrRepr, type PyValue } from "../../../../../lib/python/values";
import { validateModel } from "../../harness/pydantic";
import { deepCopy, isModel, type TModel, type TValue } from "../../harness/py";
import { attributeError, dictKey, eq, ge, isDict, kwargsOfDict, typeName, valueError } from "../../harness/pyops";
import type { ToolkitSpec } from "../../harness/toolkit";
import { PyException } from "../../../../../lib/python/values";
import { APNNames, APNSettings, defaultApnSettings, enumRepr, NetworkModePreference, NetworkStatus, NetworkTechnology, PerformanceLevel, SignalStrength, SimStatus } from "./model";
import type { TelecomState } from "./state";
import { truthy } from "./tools";

const s = (v: TValue) => pyValueStr(v as PyValue);
const assertion = () => new PyException("AssertionError", "");

const SIGNAL_BARS: Record<string, string> = {
  none: "\u{1F4F5} No Signal",
  poor: "\u{1F4F6}\u00B9 Poor",
  fair: "\u{1F4F6}\u00B2 Fair",
  good: "\u{1F4F6}\u00B3 Good",
  excellent: "\u{1F4F6}\u2074 Excellent",
};

function statusBar(st: TelecomState): string {
  const d = st.device;
  const out: string[] = [];
  if (truthy(d.airplane_mode!)) out.push("\u2708\uFE0F Airplane Mode");
  else {
    out.push(SIGNAL_BARS[d.network_signal_strength as string] ?? "\u{1F4F5} No Signal");
    if (d.network_technology_connected !== NetworkTechnology.NONE) out.push(d.network_technology_connected as string);
    if (truthy(d.data_enabled!) && d.network_technology_connected !== NetworkTechnology.NONE) {
      out.push("\u{1F4F1} Data Enabled");
      if (truthy(d.data_saver_mode!)) out.push("\u{1F53D} Data Saver");
    } else out.push("\u{1F4F5} Data Disabled");
  }
  if (truthy(d.wifi_enabled!) && truthy(d.wifi_connected!)) out.push(truthy(d.wifi_ssid!) ? `\u{1F4E1} Connected to ${s(d.wifi_ssid!)}` : "\u{1F4E1} Enabled");
  if (truthy(d.vpn_connected!)) out.push("\u{1F512} VPN Connected");
  out.push(`\u{1F50B} ${s(d.battery_level!)}%`);
  return out.join(" | ");
}
const withBar = (st: TelecomState, text: string) => `${text}\nStatus Bar: ${statusBar(st)}`;

function simStatus(st: TelecomState): string {
  return truthy(st.device.sim_card_missing!) ? SimStatus.MISSING : (st.device.sim_card_status as string);
}

/** `simulate_network_search`: the network the phone finds for its SIM, preference, radios and line. */
export function simulateNetworkSearch(st: TelecomState): void {
  const d = st.device;
  const signals = st.surroundings.signal_strength as Map<string, TValue>;
  const signal = (tech: string) => (signals.get(tech) ?? SignalStrength.NONE) as string;
  const none = () => {
    d.network_connection_status = NetworkStatus.NO_SERVICE;
    d.network_technology_connected = NetworkTechnology.NONE;
    d.network_signal_strength = SignalStrength.NONE;
  };
  const sim = simStatus(st);
  if (sim === SimStatus.ACTIVE) {
    d.network_connection_status = NetworkStatus.CONNECTED;
    const pref = d.network_mode_preference;
    const connect = (tech: string) => {
      d.network_technology_connected = tech;
      d.network_signal_strength = signal(tech);
    };
    if (eq(pref!, NetworkModePreference.FOUR_G_5G_PREFERRED)) {
      const five = signal(NetworkTechnology.FIVE_G);
      if (five === SignalStrength.NONE) connect(NetworkTechnology.FOUR_G);
      else {
        d.network_technology_connected = NetworkTechnology.FIVE_G;
        d.network_signal_strength = five;
      }
    } else if (eq(pref!, NetworkModePreference.FOUR_G_ONLY)) connect(NetworkTechnology.FOUR_G);
    else if (eq(pref!, NetworkModePreference.THREE_G_ONLY)) connect(NetworkTechnology.THREE_G);
    else if (eq(pref!, NetworkModePreference.TWO_G_ONLY)) connect(NetworkTechnology.TWO_G);
    else connect(NetworkTechnology.FOUR_G);
  } else none();
  if (truthy(d.airplane_mode!)) none();
  if (isModel(d.active_apn_settings) ? d.active_apn_settings.apn_name === APNNames.BROKEN : (() => { throw attributeError(`'${typeName(d.active_apn_settings!)}' object has no attribute 'apn_name'`); })()) none();
  if (!truthy(st.surroundings.line_active!)) none();
}

function mobileDataWorking(st: TelecomState): boolean {
  const d = st.device;
  const sur = st.surroundings;
  if (truthy(d.airplane_mode!) || d.network_signal_strength === SignalStrength.NONE) return false;
  if (d.network_connection_status === NetworkStatus.NO_SERVICE) return false;
  if (truthy(sur.is_abroad!) && (!truthy(d.roaming_enabled!) || !truthy(sur.roaming_allowed!))) return false;
  if (!truthy(d.data_enabled!)) return false;
  if (truthy(sur.mobile_data_usage_exceeded!)) return false;
  return true;
}

const TECH_SPEED: Record<string, [number, number]> = { "2G": [0.1, 0.4], "3G": [1.0, 5.0], "4G": [10.0, 100.0], "5G": [50.0, 500.0], none: [0, 0] };
const SIGNAL_FACTOR: Record<string, number> = { poor: 0.2, fair: 0.5, good: 0.8, excellent: 1.0, none: 0.0 };

/** `_run_speed_test`: (speed rounded to 2 decimals, description), or (None, "No Connection"). */
export function runSpeedTest(st: TelecomState): [number | null, string] {
  if (!mobileDataWorking(st)) return [null, "No Connection"];
  const d = st.device;
  const vpn = d.vpn_details;
  let base = truthy(d.vpn_connected!) && vpn !== null && isModel(vpn) && vpn.server_performance === PerformanceLevel.POOR ? 0.1 : 1.0;
  if (truthy(d.data_saver_mode!)) base *= 0.2;
  const [min, max] = TECH_SPEED[d.network_technology_connected as string] ?? [0, 0];
  const factor = SIGNAL_FACTOR[d.network_signal_strength as string] ?? 0.0;
  const speed = round2(((min + max) / 2.0) * factor * base);
  const desc = speed < 1 ? "Very Poor" : speed < 5 ? "Poor" : speed < 25 ? "Fair" : speed < 100 ? "Good" : "Excellent";
  return [speed, desc];
}

function toggleAirplane(st: TelecomState): boolean {
  const d = st.device;
  const wasOn = truthy(d.airplane_mode!);
  d.airplane_mode = !wasOn;
  if (wasOn) {
    d.network_connection_status = NetworkStatus.SEARCHING;
    if (truthy(d.wifi_enabled!)) {
      d.wifi_connected = false;
      d.wifi_ssid = null;
      d.wifi_signal_strength = SignalStrength.NONE;
    }
  } else {
    d.wifi_connected = false;
    d.wifi_ssid = null;
    d.wifi_signal_strength = SignalStrength.NONE;
    if (truthy(d.vpn_connected!)) disconnectVpn(st);
  }
  simulateNetworkSearch(st);
  return d.airplane_mode as boolean;
}

function toggleField(st: TelecomState, field: string, search: boolean): boolean {
  const next = !truthy(st.device[field]!);
  st.device[field] = next;
  if (search) simulateNetworkSearch(st);
  return next;
}

function connectVpn(st: TelecomState): boolean | null {
  if (truthy(st.device.vpn_connected!)) return null;
  st.device.vpn_connected = true;
  // The shared default object itself, not a copy (see state.ts).
  st.device.vpn_details = st.runtime.defaultVpnDetails;
  return true;
}
function disconnectVpn(st: TelecomState): boolean {
  if (!truthy(st.device.vpn_connected!)) return false;
  st.device.vpn_connected = false;
  st.device.vpn_details = null;
  return true;
}

function apn(st: TelecomState): TModel {
  const a = st.device.active_apn_settings!;
  if (!isModel(a)) throw attributeError(`'${typeName(a)}' object has no attribute 'apn_name'`);
  return a;
}

function canSendMms(st: TelecomState): boolean {
  const d = st.device;
  if (!mobileDataWorking(st)) return false;
  if (d.network_technology_connected === NetworkTechnology.TWO_G) return false;
  if (truthy(d.wifi_calling_enabled!) && truthy(d.wifi_calling_mms_over_wifi!)) return false;
  if (apn(st).mmsc_url === null) return false;
  const app = appStatus(st, "messaging");
  if (!app) return false;
  const p = app.permissions as TModel;
  // `storage and sms`: the value of the first false operand.
  return (truthy(p.storage!) ? p.sms : p.storage) as boolean;
}

function appStatus(st: TelecomState, name: TValue): TModel | undefined {
  const key = dictKey(name);
  return key === undefined ? undefined : ((st.device.app_statuses as Map<string, TModel>).get(key) ?? undefined);
}

function allowedPermissions(app: TModel): string[] {
  return Object.entries(app.permissions as TModel)
    .filter(([, allowed]) => truthy(allowed))
    .map(([name]) => name.replace(/_/g, " ").toLowerCase());
}

const lowerOf = (v: TValue): string => {
  if (typeof v !== "string") throw attributeError(`'${typeName(v)}' object has no attribute 'lower'`);
  return v.toLowerCase();
};

const PERMISSIONS = ["sms", "storage", "phone", "network"];

function paymentRequest(st: TelecomState): TModel | null {
  return (st.surroundings.payment_request as TModel | null) ?? null;
}

export const telecomUserTools: ToolkitSpec<TelecomState> = {
  className: "TelecomUserTools",
  tools: {
    check_status_bar: { params: [], run: (st) => `Status Bar: ${statusBar(st)}` },
    check_network_status: {
      params: [],
      run(st) {
        const d = st.device;
        const yes = (v: TValue) => (truthy(v) ? "Yes" : "No");
        const on = (v: TValue) => (truthy(v) ? "ON" : "OFF");
        const lines = [
          `Airplane Mode: ${on(d.airplane_mode!)}`,
          `SIM Card Status: ${simStatus(st)}`,
          `Cellular Connection: ${s(d.network_connection_status!)}`,
          `Cellular Signal: ${s(d.network_signal_strength!)}`,
          `Cellular Network Type: ${s(d.network_technology_connected!)}`,
          `Mobile Data Enabled: ${yes(d.data_enabled!)}`,
          `Data Roaming Enabled: ${yes(d.roaming_enabled!)}`,
          `Wi-Fi Radio: ${on(d.wifi_enabled!)}`,
          `Wi-Fi Connected: ${yes(d.wifi_connected!)}`,
        ];
        if (truthy(d.wifi_connected!)) lines.push(`Connected Wi-Fi Network: ${s(d.wifi_ssid!)}`);
        return lines.join("\n");
      },
    },
    check_network_mode_preference: { params: [], run: (st) => `Network Mode Preference: ${s(st.device.network_mode_preference!)}` },
    set_network_mode_preference: {
      params: [{ name: "mode" }],
      run(st, a) {
        let mode = a.mode!;
        let valid: TValue | null;
        if (typeof mode === "string" && !Object.values(NetworkModePreference).includes(mode as never)) valid = null;
        else {
          st.device.network_mode_preference = mode;
          simulateNetworkSearch(st);
          valid = mode;
        }
        if (valid === null) {
          return withBar(st, `Failed to set network mode: '${s(mode)}' is not a valid option. Please use one of: ${Object.values(NetworkModePreference).join(", ")}`);
        }
        if (typeof valid !== "string") throw attributeError(`'${typeName(valid)}' object has no attribute 'value'`);
        mode = valid;
        return withBar(st, `Preferred Network Mode set to: ${mode}`);
      },
    },
    run_speed_test: {
      params: [],
      run(st) {
        const [speed, desc] = runSpeedTest(st);
        if (speed === null) return `Speed test failed: ${desc || "Could not determine speed"}.`;
        const advice =
          desc === "Very Poor" ? "Connection is very slow. Basic web browsing might be difficult."
          : desc === "Poor" ? "Connection is slow. Web browsing may be sluggish, streaming difficult."
          : desc === "Fair" ? "Connection is okay for web browsing and some standard definition streaming."
          : desc === "Good" ? "Connection is good for most activities, including HD streaming."
          : desc === "Excellent" ? "Connection is very fast."
          : "";
        return `Speed Test Result: ${formatFixed(speed, 2)} Mbps (${desc}). ${advice}`;
      },
    },
    toggle_airplane_mode: { params: [], run: (st) => withBar(st, `Airplane Mode is now ${toggleAirplane(st) ? "ON" : "OFF"}.`) },
    check_sim_status: {
      params: [],
      run(st) {
        const status = simStatus(st);
        const map: Record<string, string> = {
          active: "Your SIM card is active and working.",
          missing: "No SIM card detected in the phone.",
          locked_pin: "The SIM card is locked with a PIN code.",
          locked_puk: "The SIM card is locked with a PUK code.",
        };
        return map[status] ?? `Unknown SIM status: ${status}`;
      },
    },
    reseat_sim_card: {
      params: [],
      run(st) {
        st.device.sim_card_missing = false;
        simulateNetworkSearch(st);
        if (truthy(st.device.sim_card_missing!) || simStatus(st) === SimStatus.MISSING) throw assertion();
        return withBar(st, "SIM card re-seated successfully.");
      },
    },
    toggle_data: { params: [], run: (st) => withBar(st, `Mobile Data is now ${toggleField(st, "data_enabled", true) ? "ON" : "OFF"}.`) },
    toggle_roaming: { params: [], run: (st) => withBar(st, `Data Roaming is now ${toggleField(st, "roaming_enabled", true) ? "ON" : "OFF"}.`) },
    check_data_restriction_status: {
      params: [],
      run: (st) => (truthy(st.device.data_saver_mode!) ? "Data Saver mode is ON (limits data usage)." : "Data Saver mode is OFF."),
    },
    toggle_data_saver_mode: { params: [], run: (st) => withBar(st, `Data Saver Mode is now ${toggleField(st, "data_saver_mode", false) ? "ON" : "OFF"}.`) },
    check_apn_settings: {
      params: [],
      run(st) {
        const settings = deepCopy(apn(st));
        const name = truthy(settings.apn_name!) ? s(settings.apn_name!) : "Not Set";
        const mmsc = truthy(settings.mmsc_url!) ? s(settings.mmsc_url!) : "Not Set";
        return `Current APN Name: ${name}\nMMSC URL (for picture messages): ${mmsc}\n(These are technical settings, usually best left unchanged.)`;
      },
    },
    set_apn_settings: {
      params: [{ name: "apn_settings" }],
      run(st, a) {
        let settings = a.apn_settings!;
        if (isDict(settings)) settings = validateModel(APNSettings, kwargsOfDict(settings));
        // Assigned before it is read, as upstream does (a non-model breaks the phone's APN).
        st.device.active_apn_settings = settings;
        if (!isModel(settings)) throw attributeError(`'${typeName(settings)}' object has no attribute 'apn_name'`);
        const update = `APN settings set to: ${s(settings.apn_name!)}`;
        simulateNetworkSearch(st);
        return withBar(st, update);
      },
    },
    reset_apn_settings: {
      params: [],
      run(st) {
        apn(st).reset_at_reboot = true;
        simulateNetworkSearch(st);
        return withBar(st, "APN settings will reset at reboot.");
      },
    },
    check_wifi_status: {
      params: [],
      run(st) {
        const d = st.device;
        if (!truthy(d.wifi_enabled!)) return "Wi-Fi is turned OFF.";
        if (truthy(d.wifi_connected!)) return `Wi-Fi is ON and connected to '${s(d.wifi_ssid!)}'. Signal strength: ${s(d.wifi_signal_strength!)}.`;
        return "Wi-Fi is ON but not connected to any network.";
      },
    },
    toggle_wifi: {
      params: [],
      run(st) {
        const d = st.device;
        if (truthy(d.airplane_mode!)) return withBar(st, "Cannot change Wi-Fi settings while Airplane Mode is ON.");
        const next = !truthy(d.wifi_enabled!);
        d.wifi_enabled = next;
        if (!next) {
          d.wifi_connected = false;
          d.wifi_ssid = null;
          d.wifi_signal_strength = SignalStrength.NONE;
        }
        return withBar(st, `Wi-Fi is now ${next ? "ON" : "OFF"}.`);
      },
    },
    check_wifi_calling_status: { params: [], run: (st) => `Wi-Fi Calling is currently turned ${truthy(st.device.wifi_calling_enabled!) ? "ON" : "OFF"}.` },
    toggle_wifi_calling: { params: [], run: (st) => withBar(st, `Wi-Fi Calling is now ${toggleField(st, "wifi_calling_enabled", false) ? "ON" : "OFF"}.`) },
    check_vpn_status: {
      params: [],
      run(st) {
        const d = st.device;
        if (truthy(d.vpn_connected!)) {
          const details = d.vpn_details;
          if (details !== null && isModel(details)) {
            // Python prints the model_dump() dict itself: its repr, enum member included.
            const repr = `{'server_address': ${details.server_address === null ? "None" : pyStrRepr(details.server_address as string)}, 'protocol': ${details.protocol === null ? "None" : pyStrRepr(details.protocol as string)}, 'server_performance': ${enumRepr("PerformanceLevel", PerformanceLevel, details.server_performance as string)}}`;
            return `VPN is ON and connected. Details: ${repr}`;
          }
          return "VPN is ON and connected (no specific details available).";
        }
        if (truthy(d.vpn_enabled_setting!)) return "VPN is turned ON in settings, but currently not connected.";
        return "VPN is turned OFF.";
      },
    },
    connect_vpn: {
      params: [],
      run(st) {
        const connected = connectVpn(st);
        if (connected === null) return "VPN already connected.";
        return withBar(st, "VPN connected successfully.");
      },
    },
    disconnect_vpn: {
      params: [],
      run: (st) => withBar(st, disconnectVpn(st) ? "VPN disconnected successfully." : "No active VPN connection to disconnect."),
    },
    check_installed_apps: { params: [], run: (st) => `The following apps are installed on the phone: ${[...(st.device.app_statuses as Map<string, TModel>).keys()].join(", ")}` },
    check_app_status: {
      params: [{ name: "app_name" }],
      run(st, a) {
        const app = appStatus(st, a.app_name!);
        if (!app) return `App '${s(a.app_name!)}' not found on this phone.`;
        const lines = [`Status for App: ${s(a.app_name!)}`];
        const perms = allowedPermissions(app);
        if (!perms.length) lines.push(" - Permissions: None granted.");
        else {
          lines.push(" - Permissions Granted:");
          for (const p of perms) lines.push(`   - ${p}`);
        }
        return lines.join("\n");
      },
    },
    check_app_permissions: {
      params: [{ name: "app_name" }],
      run(st, a) {
        const app = appStatus(st, a.app_name!);
        if (!app) return `App '${s(a.app_name!)}' not found on this phone.`;
        const perms = allowedPermissions(app);
        if (!perms.length) return `App '${s(a.app_name!)}' currently has no permissions granted.`;
        return `App '${s(a.app_name!)}' has permission for: ${perms.join(", ")}.`;
      },
    },
    grant_app_permission: {
      params: [{ name: "app_name" }, { name: "permission" }],
      run(st, a) {
        const app = appStatus(st, a.app_name!);
        const permission = lowerOf(a.permission!);
        let ok: boolean;
        let message: string;
        if (app) {
          const available = Object.keys(app.permissions as TModel);
          if (!available.includes(permission)) {
            ok = false;
            message = `Permission '${permission}' not tracked for app '${s(a.app_name!)}', available permissions: [${available.map((p) => `'${p}'`).join(", ")}]`;
          } else {
            (app.permissions as TModel)[permission] = true;
            ok = true;
            message = `Permission '${permission}' granted to app '${s(a.app_name!)}'.`;
          }
        } else {
          ok = false;
          message = `App '${s(a.app_name!)}' not found. Cannot grant permission.`;
        }
        return withBar(st, `${ok ? "Success. " : "Error. "}${message}`);
      },
    },
    can_send_mms: {
      params: [],
      run: (st) => (canSendMms(st) ? "Your messaging app can send MMS messages." : "Your messaging app cannot send MMS messages."),
    },
    reboot_device: {
      params: [],
      run(st) {
        const lines: string[] = [];
        if (truthy(apn(st).reset_at_reboot!)) {
          lines.push("Resetting APN settings...");
          st.device.active_apn_settings = defaultApnSettings();
        }
        lines.push("Restarting network services...");
        st.device.network_connection_status = NetworkStatus.SEARCHING;
        simulateNetworkSearch(st);
        return withBar(st, lines.join("\n"));
      },
    },
    check_payment_request: {
      params: [],
      run(st) {
        const req = paymentRequest(st);
        if (req === null) return "No payment request has been made.";
        return `You have a payment request for bill ${s(req.bill_id!)} of ${s(req.amount_due!)} USD.`;
      },
    },
    make_payment: {
      params: [],
      run(st) {
        const req = paymentRequest(st);
        if (req === null) return "You do not have a payment request.";
        req.paid = true;
        return `Payment of ${s(req.amount_due!)} USD has been made for bill ${s(req.bill_id!)}.`;
      },
    },
  },
  functions: {
    set_user_info: {
      params: [{ name: "name" }, { name: "phone_number" }],
      run(st, a) {
        st.surroundings.name = a.name!;
        st.surroundings.phone_number = a.phone_number!;
        return null;
      },
    },
    set_user_location: {
      params: [{ name: "abroad" }],
      run(st, a) {
        st.surroundings.is_abroad = a.abroad!;
        return null;
      },
    },
    turn_airplane_mode_on: {
      params: [],
      run(st) {
        if (!toggleAirplane(st)) toggleAirplane(st);
        return "Airplane Mode is now ON.";
      },
    },
    turn_airplane_mode_off: {
      params: [],
      run(st) {
        if (toggleAirplane(st)) toggleAirplane(st);
        return "Airplane Mode is now OFF.";
      },
    },
    unseat_sim_card: {
      params: [],
      run(st) {
        st.device.sim_card_missing = true;
        simulateNetworkSearch(st);
        if (!truthy(st.device.sim_card_missing!) || simStatus(st) !== SimStatus.MISSING) throw assertion();
        return "SIM card un-seated successfully.";
      },
    },
    lock_sim_card: {
      params: [{ name: "mode" }],
      run(st, a) {
        if (eq(a.mode!, "pin")) st.device.sim_card_status = SimStatus.LOCKED_PIN;
        else if (eq(a.mode!, "puk")) st.device.sim_card_status = SimStatus.LOCKED_PUK;
        simulateNetworkSearch(st);
        if (eq(a.mode!, "pin") && st.device.sim_card_status !== SimStatus.LOCKED_PIN) throw assertion();
        if (eq(a.mode!, "puk") && st.device.sim_card_status !== SimStatus.LOCKED_PUK) throw assertion();
        return `SIM card locked successfully in ${s(a.mode!)} mode.`;
      },
    },
    turn_data_on: {
      params: [],
      run(st) {
        st.device.data_enabled = true;
        return "Data connection restored.";
      },
    },
    turn_data_off: {
      params: [],
      run(st) {
        if (toggleField(st, "data_enabled", true)) toggleField(st, "data_enabled", true);
        return "Data connection broken.";
      },
    },
    turn_roaming_on: {
      params: [],
      run(st) {
        if (!toggleField(st, "roaming_enabled", true)) toggleField(st, "roaming_enabled", true);
        return "Data Roaming is now ON.";
      },
    },
    turn_roaming_off: {
      params: [],
      run(st) {
        if (toggleField(st, "roaming_enabled", true)) toggleField(st, "roaming_enabled", true);
        return "Data Roaming is now OFF.";
      },
    },
    turn_data_saver_mode_on: {
      params: [],
      run(st) {
        if (!toggleField(st, "data_saver_mode", false)) toggleField(st, "data_saver_mode", false);
        return "Data Saver Mode is now ON.";
      },
    },
    turn_data_saver_mode_off: {
      params: [],
      run(st) {
        if (toggleField(st, "data_saver_mode", false)) toggleField(st, "data_saver_mode", false);
        return "Data Saver Mode is now OFF.";
      },
    },
    break_apn_settings: {
      params: [],
      run(st) {
        apn(st).apn_name = APNNames.BROKEN;
        simulateNetworkSearch(st);
        if (st.device.network_connection_status !== NetworkStatus.NO_SERVICE) throw assertion();
        return "APN settings broken. Please call reset_apn_settings() to fix.";
      },
    },
    break_apn_mms_setting: {
      params: [],
      run(st) {
        apn(st).mmsc_url = null;
        if (canSendMms(st)) throw assertion();
        return "APN MMS setting broken. Please call reset_apn_settings() to fix.";
      },
    },
    set_wifi_calling: {
      params: [{ name: "enabled" }, { name: "mms_over_wifi", default: null }],
      run(st, a) {
        if (!eq(st.device.wifi_calling_enabled!, a.enabled!)) toggleField(st, "wifi_calling_enabled", false);
        let msg = `Wi-Fi Calling is now ${truthy(a.enabled!) ? "ON" : "OFF"}.`;
        if (a.mms_over_wifi !== null) {
          st.device.wifi_calling_mms_over_wifi = a.mms_over_wifi!;
          msg += `\nMMS over Wi-Fi is now ${truthy(a.mms_over_wifi!) ? "ON" : "OFF"}.`;
        }
        return msg;
      },
    },
    break_vpn: {
      params: [],
      run(st) {
        connectVpn(st);
        const details = st.device.vpn_details!;
        if (!isModel(details)) throw attributeError("'NoneType' object has no attribute 'server_performance'");
        details.server_performance = PerformanceLevel.POOR;
        return "VPN connection broken.";
      },
    },
    remove_app_permission: {
      params: [{ name: "app_name" }, { name: "permission" }],
      run(st, a) {
        const app = appStatus(st, a.app_name!);
        const permission = lowerOf(a.permission!);
        if (app) {
          if (!PERMISSIONS.includes(permission)) return [false, `Permission '${permission}' not tracked for app '${s(a.app_name!)}'.`];
          (app.permissions as TModel)[permission] = false;
          return [true, `Permission '${permission}' removed from app '${s(a.app_name!)}'.`];
        }
        return [false, `App '${s(a.app_name!)}' not found. Cannot remove permission.`];
      },
    },
    simulate_network_search: {
      params: [],
      run(st) {
        simulateNetworkSearch(st);
        return null;
      },
    },
    assert_airplane_mode_status: { params: [{ name: "expected_status" }], run: (st, a) => eq(st.device.airplane_mode!, a.expected_status!) },
    assert_service_status: {
      params: [{ name: "expected_status" }],
      run(st, a) {
        const v = a.expected_status!;
        if (typeof v !== "string" || !Object.values(NetworkStatus).includes(v as never)) throw valueError(`${s(typeof v === "string" ? pyStrRepr(v) : v)} is not a valid NetworkStatus`);
        return st.device.network_connection_status === v;
      },
    },
    assert_mobile_data_status: { params: [{ name: "expected_status" }], run: (st, a) => eq(mobileDataWorking(st), a.expected_status!) },
    assert_mobile_roaming_status: { params: [{ name: "expected_status" }], run: (st, a) => eq(st.device.roaming_enabled!, a.expected_status!) },
    assert_mobile_data_saver_mode_status: { params: [{ name: "expected_status" }], run: (st, a) => eq(st.device.data_saver_mode!, a.expected_status!) },
    assert_internet_speed: {
      params: [{ name: "expected_speed" }, { name: "expected_desc", default: null }],
      run(st, a) {
        const [speed, desc] = runSpeedTest(st);
        const sp: number = speed || 0.0;
        if (a.expected_desc === null) return ge(sp, a.expected_speed!);
        return ge(sp, a.expected_speed!) && desc.toLowerCase() === lowerOf(a.expected_desc!);
      },
    },
    assert_internet_not_excellent: { params: [], run: (st) => runSpeedTest(st)[1].toLowerCase() !== "excellent" },
    assert_can_send_mms: { params: [{ name: "expected_status" }], run: (st, a) => eq(canSendMms(st), a.expected_status!) },
    assert_mobile_data_usage_exceeded: { params: [{ name: "expected_status" }], run: (st, a) => eq(st.surroundings.mobile_data_usage_exceeded!, a.expected_status!) },
    _check_status_bar: { params: [], run: (st) => statusBar(st) },
    _get_mobile_data_working: { params: [], run: (st) => mobileDataWorking(st) },
    _can_send_mms: { params: [], run: (st) => canSendMms(st) },
  },
};

