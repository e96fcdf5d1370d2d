/** "Download adapter": a checkpoint's LoRA adapter archive from its node (server/features/runs/adapter-download.ts). */
import { downloadAdapter } from "@/server/features/runs/adapter-download";

export const dynamic = "force-dynamic";

export async function GET(req: Request, ctx: { params: Promise<{ id: string }> }) {
  return downloadAdapter(req, (await ctx.params).id);
}
