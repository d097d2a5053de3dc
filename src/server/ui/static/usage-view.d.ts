// Types of usage-view.js for the project's TypeScript tests (the page itself loads the .js).
import type { UsageFigures } from "../../../recipes/catalog/usage-report.js";
export interface UsageRow {
  readonly recipeId: string;
  readonly visibility: "public" | "private";
  readonly uses: number;
  readonly get: number;
  readonly apply: number;
  readonly validatePass: number;
  readonly validateFail: number;
  readonly passRate: number | null;
  readonly runsOk: number;
  readonly runsFailed: number;
  readonly failures: number;
  readonly lastUsedAt: string | null;
  readonly mine: number | null;
}
export function failuresOf(figures: UsageFigures): number;
export function usageRows(answer: unknown): UsageRow[];
export function sortUsage(rows: readonly UsageRow[], order: "uses" | "failing" | "last" | "name" | string): UsageRow[];
