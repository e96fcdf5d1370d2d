/** The REST client of the CLI: JSON over /api/v1 with a Bearer token; errors carry the API's { code, message, fieldErrors }. */

export interface FieldError {
  path: string;
  message: string;
}

export class ApiError extends Error {
  constructor(
    public readonly status: number,
    public readonly code: string,
    message: string,
    public readonly fieldErrors: FieldError[] = [],
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export class ApiClient {
  constructor(
    public readonly baseUrl: string,
    private readonly token: string,
  ) {}

  get authHeader(): Record<string, string> {
    return { authorization: `Bearer ${this.token}` };
  }

  async request<T>(method: "GET" | "POST" | "PATCH" | "DELETE", path: string, body?: unknown, query?: Record<string, string | number | string[] | undefined>): Promise<T> {
    const url = new URL(`${this.baseUrl.replace(/\/$/, "")}/api/v1${path}`);
    for (const [k, v] of Object.entries(query ?? {})) {
      if (v === undefined) continue;
      for (const item of Array.isArray(v) ? v : [v]) url.searchParams.append(k, String(item));
    }
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers: { ...this.authHeader, ...(body !== undefined ? { "content-type": "application/json" } : {}), accept: "application/json" },
        body: body !== undefined ? JSON.stringify(body) : undefined,
      });
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new ApiError(0, "UNREACHABLE", `cannot reach ${this.baseUrl} (${cause?.code ?? cause?.message ?? (err as Error).message})`);
    }
    const text = await res.text();
    let data: unknown = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch {
      throw new ApiError(res.status, "BAD_RESPONSE", `${method} ${url.pathname}: the server answered ${res.status} with something other than JSON — is ${this.baseUrl} an EnvACE Studio server?`);
    }
    if (!res.ok) {
      const e = (data ?? {}) as { code?: string; message?: string; fieldErrors?: FieldError[] };
      throw new ApiError(res.status, e.code ?? `HTTP_${res.status}`, e.message ?? `HTTP ${res.status}`, Array.isArray(e.fieldErrors) ? e.fieldErrors : []);
    }
    return data as T;
  }
}
