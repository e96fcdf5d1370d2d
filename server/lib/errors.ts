/** Coded domain errors, mapped to tRPC/HTTP codes once in server/trpc/init.ts. */
export type DomainErrorCode = "NOT_FOUND" | "CONFLICT" | "BAD_REQUEST" | "FORBIDDEN" | "UNAUTHORIZED";

export class DomainError extends Error {
  constructor(
    public readonly code: DomainErrorCode,
    message: string,
    public readonly fieldErrors?: { path: string; message: string }[],
  ) {
    super(message);
    this.name = "DomainError";
  }
}

export const notFound = (what: string, id: string) => new DomainError("NOT_FOUND", `${what} ${id} not found`);
