import { describe, expect, it } from "vitest";
import { nginxConfig } from "./nginx-config.js";

describe("the fleet's nginx configuration", () => {
  const text = nginxConfig({ dir: "/tmp/x", port: 8080, upstreams: [4001, 4002, 4003], keepalive: 16 });

  it("balances every instance round-robin, with no sticky routing and no retries", () => {
    for (const port of [4001, 4002, 4003]) expect(text).toContain(`server 127.0.0.1:${port};`);
    expect(text).not.toMatch(/\b(ip_hash|hash|sticky|least_conn)\b/);
    expect(text).toContain("proxy_next_upstream off;");
  });

  it("listens on loopback only and writes nowhere but its folder", () => {
    expect(text).toContain("listen 127.0.0.1:8080;");
    for (const line of text.split("\n").filter((l) => /^\s*(\w+_temp_path|pid) /.test(l)))
      expect(line).toContain("/tmp/x/");
  });
});
