/** Shared loading for the tau2 tests: parse the real data once per test file. */
import { loadRetailDb, type RetailDb } from "./model";
import { loadTasks, readJsonFile, retailDataFiles, type Tau2Task } from "./tasks";

let cached: { db: RetailDb; tasks: Tau2Task[]; files: ReturnType<typeof retailDataFiles> } | undefined;

export function retailTestData() {
  if (!cached) {
    const files = retailDataFiles({ required: ["db", "tasks", "goldReplay", "policy", "userGuidelines"] }); // throws a message naming ENVACE_DATA_DIR when missing
    cached = { db: loadRetailDb(files.db), tasks: loadTasks(files.tasks), files };
  }
  return cached;
}

export interface GoldReplayFile {
  initial_db_hash: string;
  tasks: {
    task_id: string;
    final_db_hash: string;
    db_unchanged: boolean;
    actions: { action_id: string; name: string; error: boolean; content_sha256: string; content_length: number; content?: string }[];
  }[];
}

export function goldReplayFile(): GoldReplayFile {
  return readJsonFile(retailTestData().files.goldReplay) as GoldReplayFile;
}
