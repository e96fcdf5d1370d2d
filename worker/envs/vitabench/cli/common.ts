/** What the vita:* commands share: their --cases argument and JSONL input. */
export function argValue(flag: string): string {
  const i = process.argv.indexOf(flag);
  const v = i >= 0 ? process.argv[i + 1] : undefined;
  if (!v) {
    process.stderr.write(`usage: ${flag} FILE (one JSON case per line)\n`);
    process.exit(2);
  }
  return v;
}

export const casesOf = (text: string): string[] => text.split("\n").filter((l) => l.trim().length > 0);
