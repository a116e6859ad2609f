import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, expectTypeOf, it } from "vitest";
import * as main from "../src/index.js";
import {
  type AnySealingError,
  InvalidRequestState,
  isRequestStateRejection,
  REQUEST_STATE_REJECTIONS,
  type RequestStateRejection,
  RequestStateSealError,
  SealingError,
  type SealingErrorCode,
} from "../src/index.js";
import * as kms from "../src/kms/index.js";
import { KmsKeyError } from "../src/kms/index.js";
import { loadVectors } from "./support/vectors.js";

/**
 * The released codes, class by class, keyed by SealingErrorCode so that a code cannot be added,
 * dropped or renamed without this table failing.
 */
const CLASSES: { [C in SealingErrorCode]: [{ readonly code: string }, () => SealingError] } = {
  ERR_INVALID_REQUEST_STATE: [InvalidRequestState, () => new InvalidRequestState("expired")],
  ERR_REQUEST_STATE_SEAL: [RequestStateSealError, () => new RequestStateSealError("codec seal failed")],
  ERR_KMS_KEY: [KmsKeyError, () => new KmsKeyError("no key", { kmsError: "AccessDeniedException" })],
};
const CODES = Object.entries(CLASSES).map(([code, [errorClass, make]]) => [code, errorClass, make] as const);

describe("sealing error codes", () => {
  it.each(CODES)("%s is the code of its class and of every instance", (code, errorClass, make) => {
    const error = make();
    expect(errorClass.code).toBe(code);
    expect(error.code).toBe(code);
    expect(error).toBeInstanceOf(SealingError);
    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(errorClass);
  });

  it("keeps names and messages", () => {
    expect(new InvalidRequestState("expired")).toMatchObject({
      name: "InvalidRequestState",
      message: "expired",
      reason: "expired",
    });
    expect(new RequestStateSealError("codec seal failed")).toMatchObject({
      name: "RequestStateSealError",
      message: "refusing to seal requestState: codec seal failed",
    });
    expect(new KmsKeyError("no key", { kmsError: "x" }).name).toBe("KmsKeyError");
  });

  it("gives each class its own code", () => {
    expect(new Set(CODES.map(([, errorClass]) => errorClass)).size).toBe(CODES.length);
  });

  it("has a row for every error class either entry point exports", () => {
    const exported = new Set(
      [...Object.values(main), ...Object.values(kms)].filter(
        (value) => typeof value === "function" && value.prototype instanceof Error,
      ),
    );
    exported.delete(SealingError);
    expect(exported).toEqual(new Set(CODES.map(([, errorClass]) => errorClass)));
  });

  it("narrows AnySealingError on its code", () => {
    const detail = (error: AnySealingError): string => {
      switch (error.code) {
        case "ERR_INVALID_REQUEST_STATE":
          expectTypeOf(error).toEqualTypeOf<InvalidRequestState>();
          return error.reason;
        case "ERR_REQUEST_STATE_SEAL":
          expectTypeOf(error).toEqualTypeOf<RequestStateSealError>();
          return error.reason;
        case "ERR_KMS_KEY":
          expectTypeOf(error).toEqualTypeOf<KmsKeyError>();
          return error.kmsError;
      }
    };
    expect(detail(new InvalidRequestState("seal"))).toBe("seal");
    expect(detail(new KmsKeyError("m", { kmsError: "ECONNREFUSED" }))).toBe("ECONNREFUSED");
    expectTypeOf<AnySealingError["code"]>().toEqualTypeOf<SealingErrorCode>();
  });
});

describe("RequestStateRejection", () => {
  const vectors = loadVectors();

  it("holds exactly the reasons the reference vectors expect from the codec", () => {
    const codecReasons = new Set(vectors.unseal_reject.cases.map((c) => c.reason));
    expect([...codecReasons].sort()).toEqual(["malformed", "seal", "unknown key"]);
    for (const reason of codecReasons) {
      expect(REQUEST_STATE_REJECTIONS).toContain(reason);
      expect(isRequestStateRejection(reason)).toBe(true);
    }
  });

  it("lists every reason the package's own code refuses with, and nothing else", () => {
    const src = fileURLToPath(new URL("../src/", import.meta.url));
    const used = new Set<string>();
    for (const file of readdirSync(src, { recursive: true, encoding: "utf8" })) {
      if (!file.endsWith(".ts") || file.endsWith(".test.ts")) continue;
      const text = readFileSync(`${src}${file}`, "utf8");
      for (const [, reason] of text.matchAll(/rejectRequestState\("([^"]+)"/g)) used.add(reason!);
    }
    expect([...used].sort()).toEqual([...REQUEST_STATE_REJECTIONS].sort());
  });

  it("recognises the bindPrincipal pattern and refuses a custom codec's reason", () => {
    expect(isRequestStateRejection("bindPrincipal returned number, expected string or null")).toBe(true);
    expect(isRequestStateRejection("bindPrincipal returned")).toBe(false);
    expect(isRequestStateRejection("keys not loaded")).toBe(false);
    expectTypeOf<"expired">().toExtend<RequestStateRejection>();
    expectTypeOf<"bindPrincipal returned object, expected string or null">().toExtend<RequestStateRejection>();
    expectTypeOf<"boom">().not.toExtend<RequestStateRejection>();
  });
});
