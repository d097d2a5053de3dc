/** A valid `recipe` create call for the store e2e tests; `overrides` replace fields. */
export function playbook(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    action: "create",
    title: "Bake normals for the hero prop",
    summary: "Bake tangent-space normals from the sculpt onto the game mesh.",
    whenToUse: "When the hero prop's low-poly mesh needs the sculpt's detail.",
    steps: [{ title: "Cage", detail: "Inflate a cage over the low-poly mesh." }],
    acceptanceCriteria: ["No seams visible"],
    tags: ["baking"],
    document: "# Bake\n",
    ...overrides,
  };
}
