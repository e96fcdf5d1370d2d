/** The airline domain for the harness: the agent's 14 tools over an episode's copy of the DB; the user has no tools. */
import type { DomainEnv } from "../../harness/domain";
import { mergeForUpdate } from "../../harness/merge";
import { SpecToolkit } from "../../harness/toolkit";
import { airlineDbFrom, dumpAirlineDb, hashAirlineDb, type AirlineDb } from "./model";
import { AirlineState, airlineTools } from "./tools";

export function airlineDomainEnv(pristine: AirlineDb): DomainEnv {
  let state = new AirlineState(pristine);
  let tools = new SpecToolkit(airlineTools, state);
  return {
    get tools() {
      return tools;
    },
    userTools: null,
    sync() {},
    dbHash: () => hashAirlineDb(state.db),
    userDbHash: () => null,
    updateDb(side, data) {
      if (side === "user") throw new Error("the airline user has no DB");
      const merged = mergeForUpdate(new Map<string, import("../../harness/py").TValue>([["flights", state.db.flights], ["users", state.db.users], ["reservations", state.db.reservations]]), data);
      state = new AirlineState(airlineDbFrom(merged, "initialization_data.agent_data"));
      tools = new SpecToolkit(airlineTools, state);
    },
    dump: (side) => (side === "user" ? null : dumpAirlineDb(state.db)),
  };
}
