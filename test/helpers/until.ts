/**
 * The one polling helper of the tests: waits until `probe` holds, checking
 * every `stepMs`, and throws (failing the test) when `timeoutMs` passes first.
 * `explain` adds what the test saw to the error, for a readable failure.
 */
export interface UntilOptions {
  timeoutMs?: number;
  stepMs?: number;
  explain?: () => string;
}

export async function until(probe: () => Promise<boolean> | boolean, options: UntilOptions = {}): Promise<void> {
  const { timeoutMs = 20_000, stepMs = 20, explain } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await probe()) return;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms${explain ? `; ${explain()}` : ""}`);
    await new Promise((resolve) => setTimeout(resolve, stepMs));
  }
}
