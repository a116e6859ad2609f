import { describe, expect, it } from "vitest";
import { createLogger } from "../src/logging/create-logger.js";
import { LogCapture } from "./support/log-capture.js";

const config = { serverName: "roundtrip", log: { level: "debug" as const, format: "json" as const } };

describe("log redaction", () => {
  it("censors credentials, requestState and answers wherever a log call puts them", () => {
    const capture = new LogCapture();
    const log = createLogger(config, capture);
    const secrets = [
      "Bearer eyJ-token-1",
      "v1.sealed-state-2",
      "plain-state-3",
      "answer-4",
      "wrapped-5",
      "secret-6",
    ];

    log.info({ authorization: secrets[0], requestState: secrets[1] }, "top level");
    log.info(
      { params: { requestState: secrets[2], inputResponses: { k: { content: { v: secrets[3] } } } } },
      "params",
    );
    log.info(
      { request: { params: { requestState: secrets[1] } }, kms: { wrappedKeys: [secrets[4]] } },
      "nested",
    );
    log.info(
      { req: { headers: { authorization: secrets[0] } }, introspection: { clientSecret: secrets[5] } },
      "headers",
    );
    log.info({ answers: { region: secrets[3] }, token: secrets[0] }, "answers");

    const text = capture.text();
    expect(capture.lines()).toHaveLength(5);
    for (const secret of secrets) expect(text).not.toContain(secret);
    expect(text.match(/\[redacted\]/g)?.length).toBeGreaterThanOrEqual(9);
  });

  it("logs a request by method, path and address only, dropping the query string", () => {
    const capture = new LogCapture();
    createLogger(config, capture).info(
      {
        req: { method: "POST", url: "/mcp?access_token=leaked-7", ip: "127.0.0.1", headers: { cookie: "c" } },
      },
      "incoming request",
    );
    expect(capture.lines()[0]?.req).toEqual({ method: "POST", path: "/mcp", remoteAddress: "127.0.0.1" });
    expect(capture.text()).not.toContain("leaked-7");
  });
});
