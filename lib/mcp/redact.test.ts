import { describe, expect, it } from "vitest";
import { redactDeep, redactorFor, secretForms } from "./redact";

const KEY = 'sk-live-0123456789abcdef/a+b=c "q"\\z';

describe("redacting a server's secrets", () => {
  const redact = redactorFor([{ label: "API_KEY", value: KEY }, { label: "header Authorization", value: "Bearer tok-abcdef" }]);

  it("replaces the secret as written and URL-encoded, JSON-escaped, base64 and hex", () => {
    const texts = [
      `Error: invalid API key ${KEY}`,
      `json ${JSON.stringify({ key: KEY })}`,
      `double ${JSON.stringify(JSON.stringify({ key: KEY }))}`,
      `url ?key=${encodeURIComponent(KEY)}&x=1`,
      `lower ?key=${encodeURIComponent(KEY).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase())}`,
      `form ${encodeURIComponent(KEY).replace(/%20/g, "+")}`,
      `b64 ${Buffer.from(KEY).toString("base64")} b64url ${Buffer.from(KEY).toString("base64url")}`,
      `hex ${Buffer.from(KEY).toString("hex")} HEX ${Buffer.from(KEY).toString("hex").toUpperCase()}`,
      `header: Bearer tok-abcdef`,
    ];
    for (const t of texts) {
      const out = redact(t);
      expect(out, t).toContain("[secret ");
      for (const form of secretForms(KEY)) expect(out, t).not.toContain(form);
      expect(out).not.toContain("0123456789abcdef");
    }
    expect(redact(`Error: invalid API key ${KEY}`)).toBe("Error: invalid API key [secret API_KEY]");
    expect(redact("header: Bearer tok-abcdef")).toBe("header: [secret header Authorization]");
  });

  it("finds the secret inside a longer base64 text at every alignment (Basic credentials)", () => {
    for (const prefix of ["", "u:", "us:", "use:", "user:"]) {
      const encoded = Buffer.from(`${prefix}${KEY}@host`).toString("base64");
      const out = redact(`Authorization: Basic ${encoded}`);
      expect(out, prefix).toContain("[secret API_KEY]");
      // What is left of the base64 text cannot be decoded back to the key.
      const left = out.replace(/\[secret API_KEY\]/g, "");
      expect(Buffer.from(left.split(" ").pop()!, "base64").toString("latin1")).not.toContain("0123456789abcdef");
    }
  });

  it("walks objects and arrays, keys included; leaves short secrets and other text alone", () => {
    expect(redactDeep({ content: [{ type: "text", text: `k=${KEY}` }], [KEY]: 1, n: 2 }, redact)).toEqual({ content: [{ type: "text", text: "k=[secret API_KEY]" }], "[secret API_KEY]": 1, n: 2 });
    const short = redactorFor([{ label: "PIN", value: "12" }]);
    expect(short("call 1234")).toBe("call 1234");
    expect(redactorFor([])("anything")).toBe("anything");
  });
});
