/**
 * Multi-turn scores as upstream computes them: per category, accuracy = correct / total
 * (`save_eval_results`); the multi-turn overall is the unweighted mean of the four categories
 * (`calculate_unweighted_accuracy`), where a category that was not run counts as 0 and makes the
 * overall display "N/A".
 */
import { MULTI_TURN_CATEGORIES, type MultiTurnCategory } from "../data";

export interface CategoryScore {
  category: MultiTurnCategory;
  accuracy: number;
  correctCount: number;
  totalCount: number;
}

export interface MultiTurnOverall {
  accuracy: number;
  totalCount: number;
  /** False when a category was not run (upstream then displays "N/A"). */
  complete: boolean;
  categories: Partial<Record<MultiTurnCategory, CategoryScore>>;
}

export function scoreCategory(category: MultiTurnCategory, results: readonly { valid: boolean }[]): CategoryScore {
  if (results.length === 0) throw new Error(`no results for ${category}: a category with no tasks has no accuracy`);
  const correctCount = results.filter((r) => r.valid).length;
  return { category, accuracy: correctCount / results.length, correctCount, totalCount: results.length };
}

/** The multi-turn overall from the categories that were run; `taskCounts` gives the size of the others. */
export function multiTurnOverall(
  scores: readonly CategoryScore[],
  taskCounts: Partial<Record<MultiTurnCategory, number>> = {},
): MultiTurnOverall {
  const byCategory: Partial<Record<MultiTurnCategory, CategoryScore>> = {};
  for (const s of scores) byCategory[s.category] = s;
  let sum = 0;
  let total = 0;
  let complete = true;
  for (const category of MULTI_TURN_CATEGORIES) {
    const s = byCategory[category];
    if (s) {
      sum += s.accuracy;
      total += s.totalCount;
    } else {
      complete = false;
      total += taskCounts[category] ?? 0;
    }
  }
  return { accuracy: sum / MULTI_TURN_CATEGORIES.length, totalCount: total, complete, categories: byCategory };
}
