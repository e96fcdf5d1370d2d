/**
 * The function-tool schemas tau2-bench v0.2.0 sends for the airline and telecom domains, exactly as it
 * derives them: `Tool.openai_schema` — the description is the docstring's short description, then a blank
 * line and its long description (docstring_parser, Google style); the parameters are pydantic 2.10's
 * `create_model("parameters", …).model_json_schema()` of the method's signature (property order kept,
 * argument descriptions from the docstring's Args section, models and enums under $defs). In the tools'
 * upstream order. Data only (the JSON files beside this one): the worker sends them, the launch check
 * measures the telecom user's.
 */
import airline from "./tool-schemas/airline.json";
import telecom from "./tool-schemas/telecom.json";
import telecomUser from "./tool-schemas/telecom-user.json";

/** An OpenAI function-tool schema; the same shape as the engine's ToolSchema (lib/ does not import worker/). */
export interface Tau2ToolSchema {
  type: "function";
  function: {
    name: string;
    description?: string;
    parameters: { type: "object"; properties: Record<string, unknown>; required?: string[]; [k: string]: unknown };
    strict?: boolean;
  };
}

/** The 14 airline agent tools (AirlineTools). */
export const AIRLINE_TOOL_SCHEMAS = airline as Tau2ToolSchema[];
/** The 13 telecom agent tools (TelecomTools). */
export const TELECOM_TOOL_SCHEMAS = telecom as Tau2ToolSchema[];
/** The 30 telecom user tools (TelecomUserTools: the user's phone). */
export const TELECOM_USER_TOOL_SCHEMAS = telecomUser as Tau2ToolSchema[];
