/**
 * The MCP URL a daemon started by a bench prints in its "serving MCP at"
 * JSON log line; stdout keeps flowing afterwards so the pipe never fills.
 */
import type { ChildProcess } from "node:child_process";

export function servingUrl(child: ChildProcess, label: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let buffer = "";
    const onData = (chunk: Buffer): void => {
      buffer += chunk.toString();
      const match = /"url":"([^"]+)"/.exec(buffer);
      if (match === null) return;
      child.stdout?.off("data", onData);
      child.stdout?.resume();
      resolve(match[1]!);
    };
    child.stdout?.on("data", onData);
    child.on("exit", (code) => reject(new Error(`${label}: daemon exited ${code}`)));
  });
}
