/**
 * Fields that must never reach a log line: credentials, sealed or plaintext requestState, and whatever
 * a user answered. pino redaction works on exact paths, so each sensitive key is listed at the depths
 * where a log call could carry it (top level, inside one object, inside a request's params).
 */
const SENSITIVE_KEYS = [
  "authorization",
  "token",
  "accessToken",
  "access_token",
  "clientSecret",
  "client_secret",
  "requestState",
  "inputResponses",
  "answers",
  "content",
  "keys",
  "wrappedKeys",
];

const NESTINGS = ["", "*.", "*.*.", "params.", "*.params.", "req.headers.", "headers."];

export const REDACTED_PATHS: readonly string[] = [
  ...new Set(NESTINGS.flatMap((prefix) => SENSITIVE_KEYS.map((key) => `${prefix}${key}`))),
  'req.headers["cookie"]',
];

export const REDACTION_CENSOR = "[redacted]";
