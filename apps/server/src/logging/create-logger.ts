import { type DestinationStream, type Logger, type LoggerOptions, pino } from "pino";
import type { ServerConfig } from "../config/server-config.js";
import { REDACTED_PATHS, REDACTION_CENSOR } from "./redaction.js";
import { scopeFields } from "./request-scope.js";
import { traceFields } from "./trace-fields.js";

interface RequestLike {
  method?: string;
  url?: string;
  ip?: string;
}

interface ReplyLike {
  statusCode?: number;
}

/** Only the path: a query string could carry a token from a misbehaving client. */
function pathOf(url: string | undefined): string | undefined {
  return url?.split("?")[0];
}

/** Request and response are logged by these fields alone: no headers, no body. */
const serializers = {
  req: (req: RequestLike) => ({ method: req.method, path: pathOf(req.url), remoteAddress: req.ip }),
  res: (res: ReplyLike) => ({ statusCode: res.statusCode }),
  err: pino.stdSerializers.err,
};

export function loggerOptions(config: Pick<ServerConfig, "log" | "serverName">): LoggerOptions {
  return {
    level: config.log.level,
    base: { service: config.serverName },
    redact: { paths: [...REDACTED_PATHS], censor: REDACTION_CENSOR },
    serializers,
    // The request being served, on every line it causes: Fastify's and the MCP SDK's alike, with the
    // active span's ids when OpenTelemetry is on.
    mixin: (_object, _level, logger) => ({ ...scopeFields(() => logger.bindings()), ...traceFields() }),
  };
}

/** Colours for a terminal only: not into a file or a pipe, and never with NO_COLOR set (no-color.org). */
export function prettyColours(env: NodeJS.ProcessEnv, stdoutIsTty: boolean): boolean {
  return stdoutIsTty && (env.NO_COLOR === undefined || env.NO_COLOR === "");
}

/**
 * Structured JSON on stdout by default; `pretty` renders lines for a terminal (through pino-pretty,
 * in a worker thread). A stream, when given, receives the JSON lines instead (tests read them).
 */
export function createLogger(
  config: Pick<ServerConfig, "log" | "serverName">,
  stream?: DestinationStream,
): Logger {
  const options = loggerOptions(config);
  if (stream) return pino(options, stream);
  if (config.log.format === "pretty") {
    const colorize = prettyColours(process.env, process.stdout.isTTY === true);
    return pino({ ...options, transport: { target: "pino-pretty", options: { colorize } } });
  }
  return pino(options);
}
