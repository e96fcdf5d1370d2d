/**
 * Canonical text and digests of back-end state (the public attributes the checker compares), and of
 * result texts, identical to what scripts/bfcl/make_goldens.py computes in Python. Used by the golden
 * tests and handy for spotting state changes in trajectories.
 */
import { createHash } from "node:crypto";
import { pyFloatRepr, pyJsonString } from "../../../lib/python/json";
import { compareStrings, PyDict, PyObject, PySet, PyTuple, type PyValue } from "../../../lib/python/values";
import { Directory, File } from "./backends/gorilla-file-system";
import type { BfclInstanceSet } from "./execute";

type Canon = null | boolean | string | Canon[] | { [key: string]: Canon };

function canon(v: PyValue): Canon {
  if (v === null || typeof v === "boolean" || typeof v === "string") return v;
  if (typeof v === "bigint") return { int: v.toString() };
  if (typeof v === "number") return { float: pyFloatRepr(v) };
  if (Array.isArray(v)) return v.map(canon);
  if (v instanceof PyTuple) return { tuple: v.items.map(canon) };
  if (v instanceof PyDict) return { dict: v.entries().map(([k, x]) => [canon(k), canon(x)]) };
  if (v instanceof PySet) {
    const items = v.items().map(canon);
    return { set: items.map((c) => [compactJson(c), c] as const).sort((a, b) => compareStrings(a[0], b[0])).map(([, c]) => c) };
  }
  if (v instanceof File) return { File: [canon(v.name), canon(v.content)] };
  if (v instanceof Directory) return { Directory: [canon(v.name), canon(v.contents)] };
  return { repr: (v as PyObject).repr() };
}

/** `json.dumps(value, separators=(",", ":"))` (ASCII-escaped) of a canonical form. */
function compactJson(c: Canon): string {
  if (c === null) return "null";
  if (typeof c === "boolean") return c ? "true" : "false";
  if (typeof c === "string") return pyJsonString(c);
  if (Array.isArray(c)) return "[" + c.map(compactJson).join(",") + "]";
  return "{" + Object.entries(c).map(([k, x]) => pyJsonString(k) + ":" + compactJson(x)).join(",") + "}";
}

/** UTF-8 bytes of a JS string with lone surrogates encoded as themselves (Python's "surrogatepass"). */
function wtf8(text: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    let cp = text.charCodeAt(i);
    if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < text.length) {
      const lo = text.charCodeAt(i + 1);
      if (lo >= 0xdc00 && lo <= 0xdfff) {
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        i++;
      }
    }
    if (cp < 0x80) bytes.push(cp);
    else if (cp < 0x800) bytes.push(0xc0 | (cp >> 6), 0x80 | (cp & 63));
    else if (cp < 0x10000) bytes.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
    else bytes.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
  }
  return Buffer.from(bytes);
}

/** First 16 hex digits of sha256 over the text (as the goldens store result digests). */
export function textDigest(text: string): string {
  return createHash("sha256").update(wtf8(text)).digest("hex").slice(0, 16);
}

export function fullTextSha256(text: string): string {
  return createHash("sha256").update(wtf8(text)).digest("hex");
}

/** Canonical text of the instances' public state, classes in involved order. */
export function stateText(set: BfclInstanceSet): string {
  const state: Canon = [...set.instances].map(([className, backend]) => [className, backend.publicState().map(([k, v]) => [k, canon(v)] as Canon)]);
  return compactJson(state);
}

export function stateDigest(set: BfclInstanceSet): string {
  return textDigest(stateText(set));
}
