/** The names lib/tau2 lets tasks use (the launch check reads them) are exactly the worker's toolkits. */
import { describe, expect, it } from "vitest";
import { agentToolSchemasFor, userToolSchemasFor } from "../../../../lib/tau2/prompts";
import { TAU2_ENV_FUNCTIONS } from "../../../../lib/tau2/validate";
import { airlineTools } from "./airline/tools";
import { TOOLS as retailTools } from "./retail/env";
import { telecomTools } from "./telecom/tools";
import { telecomUserTools } from "./telecom/user-tools";

const names = (schemas: { function: { name: string } }[] | null) => (schemas ?? []).map((s) => s.function.name);

describe("tool and function names", () => {
  it("the schemas the agent and the user are sent list each toolkit's tools in upstream's order", () => {
    expect(names(agentToolSchemasFor("retail"))).toEqual(Object.keys(retailTools));
    expect(names(agentToolSchemasFor("airline"))).toEqual(Object.keys(airlineTools.tools));
    expect(names(agentToolSchemasFor("telecom"))).toEqual(Object.keys(telecomTools.tools));
    expect(names(userToolSchemasFor("telecom"))).toEqual(Object.keys(telecomUserTools.tools));
    expect([names(agentToolSchemasFor("airline")).length, names(agentToolSchemasFor("telecom")).length, names(userToolSchemasFor("telecom")).length]).toEqual([14, 13, 30]);
    expect(userToolSchemasFor("airline")).toBeNull();
  });

  it("environment functions: the toolkits' other methods", () => {
    expect([...TAU2_ENV_FUNCTIONS.telecom.assistant].sort()).toEqual(Object.keys(telecomTools.functions!).sort());
    expect([...TAU2_ENV_FUNCTIONS.telecom.user].sort()).toEqual(Object.keys(telecomUserTools.functions!).sort());
    expect(airlineTools.functions).toBeUndefined();
  });
});
