/** Why an MCP session broke — the server, not a tool's answer. The worker turns these into EnvironmentFailure. */
export const mcpFailureCodes = ["START_FAILED", "CRASHED", "TIMEOUT", "RESULT_TOO_LARGE", "MALFORMED_RESULT"] as const;
export type McpFailureCode = (typeof mcpFailureCodes)[number];

export class McpSessionError extends Error {
  constructor(
    readonly code: McpFailureCode,
    message: string,
  ) {
    super(message);
    this.name = "McpSessionError";
  }
}
