/**
 * Every refusal is JSON-RPC shaped, including the ones Node or fastify would
 * answer in their own shape: HTTP/1.1 without Host (was 400 with
 * an empty body), several Host lines, a URL that does not decode (was
 * fastify's `{error, code, statusCode}`), a method no endpoint serves (was
 * 404), an unknown Expect (was an empty 417), CONNECT (was a dropped socket).
 */
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "./fixture.js";

let t: TestApp | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

/** One raw request; resolves with everything the server sent before closing (or 1 s of quiet). */
function exchange(port: number, payload: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.write(payload));
    let received = "";
    const quiet = setTimeout(() => socket.end(), 1000);
    socket.on("data", (d: Buffer) => (received += d.toString()));
    socket.on("close", () => {
      clearTimeout(quiet);
      resolve(received);
    });
    socket.on("error", reject);
  });
}

function parse(answer: string): { status: number; headers: string; body: { jsonrpc: string; id: unknown; error: { code: number; message: string } } } {
  const split = answer.indexOf("\r\n\r\n");
  const headers = answer.slice(0, split);
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(headers)?.[1]), headers, body: JSON.parse(answer.slice(split + 4)) };
}

const HOST = "Host: 127.0.0.1\r\n";
const CASES: ReadonlyArray<readonly [string, string, number, number, RegExp]> = [
  ["regression: HTTP/1.1 GET without Host (was an empty 400)", "GET /healthz HTTP/1.1\r\n\r\n", 400, -32600, /needs a Host header/],
  ["regression: HTTP/1.1 POST without Host (was an empty 400)", 'POST /mcp HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}', 400, -32600, /needs a Host header/],
  ["two Host lines", `GET /healthz HTTP/1.1\r\n${HOST}Host: evil.example\r\n\r\n`, 400, -32600, /more than one Host header/],
  ["a URL that does not decode (was fastify's own body)", `GET /mcp%zz HTTP/1.1\r\n${HOST}\r\n`, 400, -32600, /URL is not valid/],
  ["PUT on the endpoint (was 404)", `PUT /mcp HTTP/1.1\r\n${HOST}Content-Length: 0\r\n\r\n`, 405, -32000, /Method not allowed: PUT \(allowed: GET, POST, DELETE\)/],
  ["OPTIONS on the endpoint (was 404)", `OPTIONS /mcp HTTP/1.1\r\n${HOST}\r\n`, 405, -32000, /Method not allowed: OPTIONS/],
  ["an Expect other than 100-continue (was an empty 417)", `POST /mcp HTTP/1.1\r\n${HOST}Expect: bogus\r\nContent-Length: 0\r\n\r\n`, 417, -32600, /Expectation Failed/],
  ["CONNECT (was a dropped socket)", `CONNECT 127.0.0.1:80 HTTP/1.1\r\n${HOST}\r\n`, 405, -32000, /Method not allowed: CONNECT/],
  ["an unknown path", `GET /nowhere HTTP/1.1\r\n${HOST}\r\n`, 404, -32601, /Not found/],
];

describe("refusals are JSON-RPC shaped", () => {
  it.each(CASES)("%s", async (_name, payload, status, code, message) => {
    t = await startTestApp();
    const answer = parse(await exchange(Number(new URL(t.url).port), payload));
    expect(answer.status).toBe(status);
    expect(answer.headers).toMatch(/\r\ncontent-type: application\/json/i);
    expect(answer.body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code } });
    expect(answer.body.error.message).toMatch(message);
    // The server keeps serving.
    expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
  });

  it("an HTTP/1.0 request without Host is still served (Host is optional before 1.1)", async () => {
    t = await startTestApp();
    expect(await exchange(Number(new URL(t.url).port), "GET /healthz HTTP/1.0\r\n\r\n")).toMatch(/^HTTP\/1\.1 200 [\s\S]*\{"status":"ok"\}$/);
  });

  it("stateless mode names POST as the only method", async () => {
    t = await startTestApp({ stateless: true });
    const answer = parse(await exchange(Number(new URL(t.url).port), `PATCH /mcp HTTP/1.1\r\n${HOST}Content-Length: 0\r\n\r\n`));
    expect(answer.status).toBe(405);
    expect(answer.headers).toMatch(/\r\nallow: POST\r\n/i);
  });
});
