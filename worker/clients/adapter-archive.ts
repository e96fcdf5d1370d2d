/**
 * Unpacking a checkpoint archive into a LoRA adapter directory an inference server can load: a tar
 * (hosted Tinker) or a gzipped tar (SkyRL tx), read as Python's tarfile writes them (ustar with PAX and
 * GNU long names). Extracted as the Tinker CLI does it (`tinker checkpoint download`): links and paths
 * outside the target are refused; the adapter is PEFT's adapter_config.json with
 * adapter_model.safetensors (or .bin), at the archive's root or in its one folder; hosted archives also
 * carry `checkpoint_complete`. A missing base_model_name_or_path is filled in with the base model.
 */
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";

const BLOCK = 512;

/** Files of an adapter directory (PEFT): what vLLM's LoRA loader reads. */
export const ADAPTER_CONFIG = "adapter_config.json";
const WEIGHTS = ["adapter_model.safetensors", "adapter_model.bin"];
const COMPLETE_MARKER = "checkpoint_complete";

export class ArchiveFormatError extends Error {
  constructor(message: string) {
    super(`checkpoint archive: ${message}`);
    this.name = "ArchiveFormatError";
  }
}

function field(header: Buffer, offset: number, length: number): string {
  const raw = header.subarray(offset, offset + length);
  const end = raw.indexOf(0);
  return raw.subarray(0, end < 0 ? raw.length : end).toString("utf8");
}

/** A numeric header field: octal text, or base-256 when its first byte has the high bit set (large files). */
function numeric(header: Buffer, offset: number, length: number): number {
  const raw = header.subarray(offset, offset + length);
  if (raw[0]! & 0x80) {
    let n = raw[0]! & 0x7f;
    for (let i = 1; i < raw.length; i++) n = n * 256 + raw[i]!;
    return n;
  }
  const text = field(header, offset, length).trim();
  return text === "" ? 0 : parseInt(text, 8);
}

/** PAX records "<len> key=value\n". */
function paxRecords(data: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  let i = 0;
  while (i < data.length) {
    const space = data.indexOf(0x20, i);
    if (space < 0) break;
    const len = parseInt(data.subarray(i, space).toString("ascii"), 10);
    if (!Number.isFinite(len) || len <= 0) break;
    const record = data.subarray(space + 1, i + len - 1).toString("utf8");
    const eq = record.indexOf("=");
    if (eq > 0) out[record.slice(0, eq)] = record.slice(eq + 1);
    i += len;
  }
  return out;
}

/** A member's path inside `root`, or an error for absolute paths and paths that climb out of it. */
function safeTarget(root: string, name: string): string | null {
  const clean = name.replace(/\\/g, "/").replace(/^(\.\/)+/, "");
  if (clean === "" || clean === ".") return null;
  if (clean.startsWith("/") || /^[A-Za-z]:/.test(clean)) throw new ArchiveFormatError(`unsafe path "${name}"`);
  const target = path.resolve(root, clean);
  if (target !== root && !target.startsWith(root + path.sep)) throw new ArchiveFormatError(`unsafe path "${name}"`);
  return target;
}

/** Extract the tar `file` into `dir` (created). Refuses links and unsafe paths; returns the regular files written. */
export async function extractTar(file: string, dir: string): Promise<string[]> {
  const root = path.resolve(dir);
  await mkdir(root, { recursive: true });
  const fh = await open(file, "r");
  const written: string[] = [];
  try {
    const { size } = await fh.stat();
    const header = Buffer.alloc(BLOCK);
    let offset = 0;
    let longName: string | null = null;
    let pax: Record<string, string> = {};
    for (;;) {
      if (offset + BLOCK > size) break;
      await fh.read(header, 0, BLOCK, offset);
      if (header.every((b) => b === 0)) break; // end of archive
      const stored = numeric(header, 148, 8);
      let sum = 0;
      for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : header[i]!;
      if (sum !== stored) throw new ArchiveFormatError(`bad header checksum at byte ${offset} (not a tar file?)`);
      const type = String.fromCharCode(header[156]!) || "0";
      const prefix = field(header, 257, 6).startsWith("ustar") ? field(header, 345, 155) : "";
      const baseName = field(header, 0, 100);
      const name = pax.path ?? longName ?? (prefix ? `${prefix}/${baseName}` : baseName);
      const length = pax.size !== undefined ? Number(pax.size) : numeric(header, 124, 12);
      const dataStart = offset + BLOCK;
      offset = dataStart + Math.ceil(length / BLOCK) * BLOCK;
      if (offset > size + BLOCK) throw new ArchiveFormatError(`"${name}" is truncated`);
      if (type === "x" || type === "g" || type === "L") {
        const data = Buffer.alloc(length);
        await fh.read(data, 0, length, dataStart);
        if (type === "x") pax = paxRecords(data);
        else if (type === "L") longName = data.toString("utf8").replace(/\0+$/, "");
        continue; // a global PAX header ("g") sets nothing this reader needs
      }
      longName = null;
      pax = {};
      if (type === "1" || type === "2") throw new ArchiveFormatError(`link "${name}" refused (links in an archive may point outside it)`);
      const target = safeTarget(root, name);
      if (!target) continue;
      if (type === "5") {
        await mkdir(target, { recursive: true });
        continue;
      }
      if (type !== "0" && header[156] !== 0 && type !== "7") throw new ArchiveFormatError(`unsupported member type "${type}" for "${name}"`);
      await mkdir(path.dirname(target), { recursive: true });
      if (length === 0) await writeFile(target, "");
      else await pipeline(createReadStream(file, { start: dataStart, end: dataStart + length - 1 }), createWriteStream(target));
      written.push(path.relative(root, target));
    }
  } finally {
    await fh.close();
  }
  return written;
}

/** A gzip file (magic 1f 8b) is decompressed next to itself first; returns the tar to read. */
async function plainTar(file: string): Promise<string> {
  const fh = await open(file, "r");
  const magic = Buffer.alloc(2);
  await fh.read(magic, 0, 2, 0);
  await fh.close();
  if (magic[0] !== 0x1f || magic[1] !== 0x8b) return file;
  const tar = `${file}.tar`;
  await pipeline(createReadStream(file), createGunzip(), createWriteStream(tar));
  return tar;
}

/** The folder of the extracted tree that holds adapter_config.json: the root, or its only folder. */
async function adapterRoot(dir: string): Promise<string | null> {
  const has = async (d: string) => (await stat(path.join(d, ADAPTER_CONFIG)).catch(() => null))?.isFile() ?? false;
  if (await has(dir)) return dir;
  const entries = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isDirectory());
  if (entries.length === 1 && (await has(path.join(dir, entries[0]!.name)))) return path.join(dir, entries[0]!.name);
  return null;
}

export interface UnpackOptions {
  /** The base model the adapter was trained on (fills adapter_config.json's base_model_name_or_path when absent). */
  baseModel: string;
  /** Hosted Tinker's archives mark a complete adapter with `checkpoint_complete`. */
  requireCompleteMarker: boolean;
}

/**
 * Unpack the archive `file` into the adapter directory `dest` atomically: extracted into a sibling work
 * folder, checked, then renamed into place (a reader never sees half an adapter). Returns the files.
 */
export async function unpackAdapter(file: string, dest: string, opts: UnpackOptions): Promise<string[]> {
  const work = `${dest}.partial-${process.pid}-${Date.now()}`;
  try {
    const tar = await plainTar(file);
    await extractTar(tar, work);
    if (tar !== file) await rm(tar, { force: true });
    const root = await adapterRoot(work);
    if (!root) throw new ArchiveFormatError(`no ${ADAPTER_CONFIG} in it (not a PEFT LoRA adapter)`);
    const files = await readdir(root);
    if (!WEIGHTS.some((w) => files.includes(w))) throw new ArchiveFormatError(`no adapter weights (${WEIGHTS.join(" or ")}) beside ${ADAPTER_CONFIG}`);
    if (opts.requireCompleteMarker && !files.includes(COMPLETE_MARKER)) throw new ArchiveFormatError(`no "${COMPLETE_MARKER}" marker: the adapter files may be incomplete`);
    const configPath = path.join(root, ADAPTER_CONFIG);
    let config: Record<string, unknown>;
    try {
      config = JSON.parse(await readFile(configPath, "utf8")) as Record<string, unknown>;
    } catch (e) {
      throw new ArchiveFormatError(`${ADAPTER_CONFIG} is not JSON: ${(e as Error).message}`);
    }
    if (typeof config.base_model_name_or_path !== "string" || !config.base_model_name_or_path) {
      await writeFile(configPath, `${JSON.stringify({ ...config, base_model_name_or_path: opts.baseModel }, null, 2)}\n`);
    }
    await rm(dest, { recursive: true, force: true });
    await rename(root, dest);
    return files;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
