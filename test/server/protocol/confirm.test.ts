import { describe, expect, it } from "vitest";
import { CONFIRM_KEY, confirmAnswerOf, confirmForm } from "../../../src/server/protocol/confirm.js";

describe("confirmAnswerOf: only an accepted form whose box is true confirms", () => {
  it("reads accept, decline and cancel", () => {
    expect(confirmAnswerOf("accept", { [CONFIRM_KEY]: true })).toEqual({ kind: "confirmed" });
    expect(confirmAnswerOf("accept", { [CONFIRM_KEY]: false })).toMatchObject({ kind: "refused", reason: "declined" });
    expect(confirmAnswerOf("decline", undefined)).toMatchObject({ kind: "refused", reason: "declined" });
    expect(confirmAnswerOf("cancel", undefined)).toMatchObject({ kind: "refused", reason: "cancelled" });
  });

  it("a truthy but not-true value, a missing box, or a malformed answer never confirms", () => {
    for (const content of [{ [CONFIRM_KEY]: "true" }, { [CONFIRM_KEY]: 1 }, {}, null, "yes", [true], JSON.parse('{"__proto__": {"confirm": true}}')]) {
      expect(confirmAnswerOf("accept", content)).toMatchObject({ kind: "refused", reason: "declined" });
    }
    for (const action of [undefined, "ACCEPT", 1, { action: "accept" }]) {
      expect(confirmAnswerOf(action, { [CONFIRM_KEY]: true })).toMatchObject({ kind: "refused", reason: "failed" });
    }
  });

  it("asks with a fresh one-boolean form each time", () => {
    const form = confirmForm();
    expect(form).toEqual({ type: "object", properties: { [CONFIRM_KEY]: expect.objectContaining({ type: "boolean" }) }, required: [CONFIRM_KEY] });
    expect(confirmForm()).not.toBe(form);
  });
});
