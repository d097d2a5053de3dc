/**
 * Playbooks and queries that share no word (the lexical index finds none of
 * them) but mean the same thing: a hit for one of these queries comes from
 * the semantic side. Checked with the local model (USE-Lite): each query's
 * cosine to its own topic's text is 0.52–0.56, to the others' at most 0.20,
 * except the dog's 0.44 for the cat's query (which is why the dog is there).
 */
import { playbook } from "./playbook-args.js";

export interface Topic {
  /** `recipe` create arguments (action included). */
  readonly create: Record<string, unknown>;
  /** The same fields as an update patch. */
  readonly patch: Record<string, unknown>;
  /** A paraphrase of the topic sharing no word with `create`. */
  readonly query: string;
}

function topic(title: string, summary: string, whenToUse: string, step: string, query: string): Topic {
  const fields = { title, summary, whenToUse, steps: [{ title: "Go", detail: step }], acceptanceCriteria: ["Done"], tags: [], document: `# ${title}\n\n${summary}\n` };
  return { create: playbook(fields), patch: fields, query };
}

export const TYRE = topic(
  "Repair a flat tyre",
  "Jack up the car, take off the rim and patch the leak in the rubber.",
  "The car leans and the tyre is flat.",
  "Patch the leak, then refill the tyre.",
  "fix punctured automobile wheel",
);

export const CAT = topic(
  "Feed the cat",
  "Give the kitten its dinner: tinned food in the bowl, fresh water beside it.",
  "Evening, the kitten is hungry.",
  "Fill the bowl with tinned food and the dish with water.",
  "nourish my pet feline",
);

/** Related to CAT's query (an animal's care), far from TYRE's: it outranks a tyre for "nourish my pet feline". */
export const DOG = topic(
  "Walk the dog",
  "Take the puppy out on its lead around the park twice a day.",
  "Morning and evening, the puppy needs exercise.",
  "Clip on the lead and go round the park.",
  "",
);

export const RAIN = topic(
  "Read the weather forecast",
  "Heavy rain and thunderstorms expected tomorrow afternoon.",
  "Before planning an outdoor shoot.",
  "Check the forecast for rain.",
  "stormy wet skies predicted",
);
