/**
 * The run configuration (`contracts/run-config`): ONE zod schema shared by the API, the UI form and the
 * worker. parts.ts (the pieces: roles' node/model, checkpoints, suites, sampling), schema.ts (the schema
 * and its cross-field checks), parse.ts (errors naming each field), presets.ts (the form's presets).
 */
export * from "./parts";
export * from "./schema";
export * from "./parse";
export * from "./presets";
