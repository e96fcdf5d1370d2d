/** The eight ported back-end classes of BFCL's multi-turn categories. */
import type { BfclClassName } from "../data";
import type { ModuleScope } from "../scope";
import type { Backend } from "./base";
import { GorillaFileSystem } from "./gorilla-file-system";
import { MathAPI } from "./math-api";
import { MessageAPI } from "./message-api";
import { TicketAPI } from "./ticket-api";
import { TradingBot } from "./trading-bot";
import { TravelAPI } from "./travel-api";
import { TwitterAPI } from "./twitter-api";
import { VehicleControlAPI } from "./vehicle-control";

const CONSTRUCTORS: Record<BfclClassName, new (scope: ModuleScope) => Backend> = {
  GorillaFileSystem,
  MathAPI,
  MessageAPI,
  TwitterAPI,
  TicketAPI,
  TradingBot,
  TravelAPI,
  VehicleControlAPI,
};

/** Classes upstream never loads a scenario into. */
export const STATELESS_CLASSES: ReadonlySet<BfclClassName> = new Set(["MathAPI"]);

export function createBackend(className: BfclClassName, scope: ModuleScope): Backend {
  return new CONSTRUCTORS[className](scope);
}
