import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { safeFetch } from "@/server/capabilities/web-scrape/safe-fetch";
import { localCapabilityConfig } from "../helpers/trackers";

/**
 * A server closes an idle keep-alive connection just as the client's pool hands it out: the request meets a reset
 * before any answer. A real TCP server here answers the first request on each connection and resets the connection
 * when a second request arrives on it — the race made certain. A GET is sent again on a new connection; a POST is not.
 */

let server: net.Server;
let origin: string;
let connections = 0;
const answered: string[] = [];

beforeAll(async () => {
  server = net.createServer((socket) => {
    connections++;
    let served = false;
    let buffered = "";
    socket.on("data", (chunk) => {
      buffered += chunk.toString("latin1");
      if (!buffered.includes("\r\n\r\n")) return;
      const head = buffered.slice(0, buffered.indexOf("\r\n\r\n"));
      buffered = "";
      if (served) {
        socket.resetAndDestroy(); // this connection was "closed while idle": RST, no answer
        return;
      }
      served = true;
      answered.push(head.split(" ").slice(0, 2).join(" "));
      const body = "<html><body><p>ok</p></body></html>";
      socket.write(
        `HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: ${body.length}\r\nconnection: keep-alive\r\nkeep-alive: timeout=30\r\n\r\n${body}`,
      );
    });
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe("safeFetch and a keep-alive connection the server closed", () => {
  it("sends a GET again on a new connection; the caller sees one answer", async () => {
    const config = localCapabilityConfig([origin]).fetch;
    const before = { connections, answered: answered.length };
    const first = await safeFetch(`${origin}/a`, config);
    expect(first.status).toBe(200);
    // The pool hands the first connection out again; the server resets it before answering.
    const second = await safeFetch(`${origin}/b`, config);
    expect(second.status).toBe(200);
    expect(second.text).toContain("ok");
    expect(connections - before.connections).toBe(2);
    expect(answered.slice(before.answered)).toEqual(["GET /a", "GET /b"]);
  });

  it("does not send a POST again: its failure is reported as a retryable connection failure", async () => {
    const config = localCapabilityConfig([origin]).fetch;
    const before = answered.length;
    await safeFetch(`${origin}/c`, config);
    await expect(
      safeFetch(`${origin}/d`, config, { post: { body: "{}", headers: { "content-type": "application/json" } } }),
    ).rejects.toMatchObject({ code: "CONNECTION_FAILED", retryable: true });
    expect(answered.slice(before)).toEqual(["GET /c"]);
  });
});
