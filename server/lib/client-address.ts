/**
 * The caller's address as resolved by the web server (scripts/web.ts; see lib/client-address.ts). Under a
 * bare `next start` that header could be sent by anyone, so it is not trusted there and addresses are unknown.
 */
import { CLIENT_ADDRESS_HEADER } from "../../lib/client-address";

let warned = false;

/** The header that carries the resolved client address, or null when this process was not started by scripts/web.ts. */
export function trustedClientAddressHeader(): string | null {
  const marker = (globalThis as { __envaceClientAddressHeader?: string }).__envaceClientAddressHeader;
  if (marker === CLIENT_ADDRESS_HEADER) return marker;
  if (!warned && process.env.NODE_ENV === "production") {
    warned = true;
    console.warn("client addresses are unknown (the web app was not started by `npm start` / `npm run web`): per-address sign-in limits are off, per-account limits still apply");
  }
  return null;
}

export function clientAddress(headers: Headers): string | null {
  const header = trustedClientAddressHeader();
  return header ? headers.get(header) : null;
}
