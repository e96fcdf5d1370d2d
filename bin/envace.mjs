#!/usr/bin/env node
// The `envace` command (package.json "bin"): the CLI is TypeScript, run through tsx's loader (a runtime dependency).
import { register } from "tsx/esm/api";

register();
await import("../cli/main.ts");
