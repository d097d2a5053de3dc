/**
 * The one confirmation question both era installers ask (a form with one
 * boolean), and how an elicitation's answer reads as a `ConfirmAnswer`.
 * Each installer sends it its own way (legacy-server.ts: `elicitation/create`
 * inside the call; modern-server.ts: an input-required answer).
 */
import type { ConfirmAnswer } from "../tools/context.js";

/** The key of the one input request (2026-07-28) and of the form's one field. */
export const CONFIRM_KEY = "confirm";

interface ConfirmForm {
  [key: string]: unknown;
  type: "object";
  properties: Record<string, { type: "boolean"; title: string; description: string }>;
  required: string[];
}

/** The form: one required boolean, which must be `true` to go ahead (a fresh object: the SDKs may keep it). */
export function confirmForm(): ConfirmForm {
  return {
    type: "object",
    properties: { [CONFIRM_KEY]: { type: "boolean", title: "Go ahead", description: "Yes: do it. No, or closing the form: nothing happens." } },
    required: [CONFIRM_KEY],
  };
}

/** An elicitation's action and content as an answer: only an accepted form whose `confirm` is `true` confirms. */
export function confirmAnswerOf(action: unknown, content: unknown): ConfirmAnswer {
  if (action === "accept") {
    const yes = content !== null && typeof content === "object" && (content as Record<string, unknown>)[CONFIRM_KEY] === true;
    return yes ? { kind: "confirmed" } : { kind: "refused", reason: "declined", message: "the user answered no" };
  }
  if (action === "decline") return { kind: "refused", reason: "declined", message: "the user declined" };
  if (action === "cancel") return { kind: "refused", reason: "cancelled", message: "the user dismissed the question" };
  return { kind: "refused", reason: "failed", message: "the client's answer to the confirmation was not an elicitation result" };
}
