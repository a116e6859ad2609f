import { describe, expect, it } from "vitest";
import { CLIENT_REQUESTS, type ClientRequestFacts } from "../protocol/methods.js";
import { Client } from "./client.js";

describe("the method table's handler column", () => {
  it.each(Object.entries<ClientRequestFacts>(CLIENT_REQUESTS).filter(([, facts]) => facts.handler !== null))(
    "%s: names the Client method that sends it",
    (_method, { handler }) => {
      expect(typeof (Client.prototype as unknown as Record<string, unknown>)[handler ?? ""]).toBe("function");
    },
  );
});
