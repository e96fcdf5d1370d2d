/**
 * The reference's prompt cap for simulator (rehearse) generations: the rendered prompt ids are truncated on
 * the left to `rollout_max_prompt_length` (12,000; verl's `truncation="left"` keeps `ids[-max:]`), so the
 * system prompt goes first and the current call (at the end) always stays (envace-method.md §1.6). The act
 * prompt is not truncated: the machine ends the episode with LENGTH_EXCEEDED before it would outgrow its
 * budget (machine/limits.ts).
 */
export function leftTruncate(tokens: number[], maxTokens: number | undefined): number[] {
  if (maxTokens === undefined || tokens.length <= maxTokens) return tokens;
  return tokens.slice(tokens.length - maxTokens);
}
