import { describe, expect, it } from "vitest";
import { createEmbeddingProvider } from "../../../../src/recipes/search/embeddings/factory.js";

describe("createEmbeddingProvider", () => {
  it("none is null: lexical only", () => {
    expect(createEmbeddingProvider("none")).toBeNull();
  });

  it("openai needs its endpoint settings and names url and model in its id", async () => {
    expect(() => createEmbeddingProvider("openai")).toThrow(/needs options.openai/);
    const p = createEmbeddingProvider("openai", { openai: { url: "http://127.0.0.1:11434", model: "nomic-embed-text", apiKey: "k" } });
    expect(p?.id).toBe("openai:http://127.0.0.1:11434:nomic-embed-text");
    await p?.close();
  });
});
