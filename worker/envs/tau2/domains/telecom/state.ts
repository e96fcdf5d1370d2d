/**
 * One telecom environment's state: the agent's DB, the user's phone DB, and the runtime the process
 * shares. Upstream keeps the VPN that `connect_vpn` attaches as ONE class attribute of TelecomUserTools:
 * every phone that connects references the same object, and `break_vpn` degrades it for every later
 * connection in the process. A runtime stands for that process (a CLI invocation, a run), so the quirk is
 * reproduced within it and nothing leaks between runs. New draft bills get ids from the runtime too:
 * upstream draws `uuid4()`; here ids are derived from a seed, so the live episode, its replay and the gold
 * environment name a new bill alike.
 */
import { createHash } from "node:crypto";
import type { TModel } from "../../harness/py";

export class TelecomRuntime {
  /** TelecomUserTools.default_vpn_details. */
  readonly defaultVpnDetails: TModel = { server_address: "192.168.1.1", protocol: "OpenVPN", server_performance: "excellent" };
  constructor(readonly billSeed = "tau2-telecom") {}
}

export class TelecomState {
  private bills = 0;
  constructor(
    public db: TModel,
    public user: TModel,
    readonly runtime: TelecomRuntime,
    private readonly seed: string,
  ) {}
  /** Eight hex digits for a new bill id (upstream: `uuid.uuid4().hex[:8]`). */
  newBillHex(): string {
    this.bills++;
    return createHash("sha256").update(`${this.runtime.billSeed}:${this.seed}:${this.bills}`).digest("hex").slice(0, 8);
  }
  get device(): TModel {
    return this.user.device as TModel;
  }
  get surroundings(): TModel {
    return this.user.surroundings as TModel;
  }
}
