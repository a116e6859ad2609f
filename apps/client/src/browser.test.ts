import { describe, expect, it } from "vitest";
import { highlightHost, openInBrowser } from "./browser.js";

describe("URLs shown to a person", () => {
  const strong = (text: string) => `<${text}>`;

  it("highlights the real host, not a look-alike in the user part or the path", () => {
    expect(highlightHost("https://example.com:8443/a?b=c#d", strong)).toBe(
      "https://<example.com:8443>/a?b=c#d",
    );
    expect(highlightHost("https://trusted.com@evil.example/trusted.com", strong)).toBe(
      "https://trusted.com@<evil.example>/trusted.com",
    );
    expect(highlightHost("https://evil.example@evil.example/", strong)).toBe(
      "https://evil.example@<evil.example>/",
    );
    expect(highlightHost("https://xn--80ak6aa92e.com/", strong)).toBe("https://<xn--80ak6aa92e.com>/");
  });

  it("opens only http and https pages", async () => {
    await expect(openInBrowser("file:///etc/passwd", { BROWSER: "true" })).rejects.toThrow(
      /only http and https/,
    );
    await expect(openInBrowser("javascript:alert(1)", { BROWSER: "true" })).rejects.toThrow(
      /only http and https/,
    );
  });
});
