/**
 * Worker side of parse-pool.ts: parses the packs it is handed, as text or
 * as a path to read and key itself, and answers each with its parse (see
 * parse-job.ts). From the TypeScript sources it runs under tsx's loader
 * (spawnParseWorker, parse-pool.ts).
 */
import { parentPort } from "node:worker_threads";
import { parsePack } from "./parsed-pack.js";
import { fileResultToWire, parsePackFile, recordToWire, type ParseReply, type ParseRequest } from "./parse-job.js";

const port = parentPort;
if (port !== null) {
  port.on("message", (request: ParseRequest) => {
    let reply: ParseReply;
    try {
      const value =
        request.kind === "text" ? recordToWire(parsePack(request.text, request.file)) : fileResultToWire(parsePackFile(request.within, request.path, request.file, request.fingerprint, request.quietMs));
      reply = { id: request.id, value };
    } catch (err) {
      reply = { id: request.id, error: err instanceof Error ? err.message : String(err) };
    }
    port.postMessage(reply);
  });
}
