import { mkdtempSync, readFileSync, writeFileSync, existsSync, readdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { adapterArchive, tarOf } from "../../test/doubles/tinker-archive";
import { extractTar, unpackAdapter } from "./adapter-archive";

const tmp = () => mkdtempSync(path.join(os.tmpdir(), "envace-adapter-"));
const write = (dir: string, name: string, data: Buffer) => {
  const file = path.join(dir, name);
  writeFileSync(file, data);
  return file;
};

describe("unpacking a checkpoint archive into an adapter directory", () => {
  it("unpacks hosted Tinker's tar (with its checkpoint_complete marker)", async () => {
    const dir = tmp();
    const file = write(dir, "a.tar", adapterArchive({ rank: 4, style: "hosted" }));
    const files = await unpackAdapter(file, path.join(dir, "adapter"), { baseModel: "Qwen/Qwen3-8B", requireCompleteMarker: true });
    expect(files.sort()).toEqual(["adapter_config.json", "adapter_model.safetensors", "checkpoint_complete"]);
    expect(JSON.parse(readFileSync(path.join(dir, "adapter", "adapter_config.json"), "utf8")).r).toBe(4);
    // Nothing half-made is left beside it.
    expect(readdirSync(dir).sort()).toEqual(["a.tar", "adapter"]);
  });

  it("unpacks SkyRL tx's .tar.gz (root directory entry, no marker) and fills in the base model", async () => {
    const dir = tmp();
    const file = write(dir, "a.tar.gz", adapterArchive({ rank: 2, style: "skyrl", baseModel: null }));
    await unpackAdapter(file, path.join(dir, "adapter"), { baseModel: "Qwen/Qwen3-8B", requireCompleteMarker: false });
    const config = JSON.parse(readFileSync(path.join(dir, "adapter", "adapter_config.json"), "utf8"));
    expect(config.base_model_name_or_path).toBe("Qwen/Qwen3-8B");
    expect(existsSync(path.join(dir, "adapter", "adapter_model.safetensors"))).toBe(true);
  });

  it("refuses archives that are not a complete adapter", async () => {
    const dir = tmp();
    const noMarker = write(dir, "b.tar.gz", adapterArchive({ rank: 2, style: "skyrl" }));
    await expect(unpackAdapter(noMarker, path.join(dir, "x"), { baseModel: "m", requireCompleteMarker: true })).rejects.toThrow(/checkpoint_complete/);
    const noWeights = write(dir, "c.tar", adapterArchive({ rank: 2, style: "hosted", withoutWeights: true }));
    await expect(unpackAdapter(noWeights, path.join(dir, "y"), { baseModel: "m", requireCompleteMarker: false })).rejects.toThrow(/no adapter weights/);
    const notTar = write(dir, "d.tar", Buffer.from("<html>403 Forbidden</html>".padEnd(2048, " ")));
    await expect(unpackAdapter(notTar, path.join(dir, "z"), { baseModel: "m", requireCompleteMarker: false })).rejects.toThrow(/checksum/);
    expect(existsSync(path.join(dir, "x")) || existsSync(path.join(dir, "y")) || existsSync(path.join(dir, "z"))).toBe(false);
  });

  it("refuses links and paths outside the target, as the Tinker CLI does", async () => {
    const dir = tmp();
    const link = write(dir, "l.tar", tarOf([{ name: "adapter_config.json", type: "2", linkName: "/etc/passwd" }]));
    await expect(extractTar(link, path.join(dir, "l"))).rejects.toThrow(/link .* refused/);
    const climb = write(dir, "c.tar", tarOf([{ name: "../../escaped.txt", data: "x" }]));
    await expect(extractTar(climb, path.join(dir, "c"))).rejects.toThrow(/unsafe path/);
    expect(existsSync(path.join(dir, "..", "escaped.txt"))).toBe(false);
    const absolute = write(dir, "a.tar", tarOf([{ name: "/tmp/escaped.txt", data: "x" }]));
    await expect(extractTar(absolute, path.join(dir, "a"))).rejects.toThrow(/unsafe path/);
  });
});
