import { ALL_PROTOCOL_VERSIONS, ERAS, eraOfVersion, type ProtocolEra } from "../../protocol/eras.js";
import { ErrorCode, McpError } from "../../protocol/errors.js";
import type { Logger } from "../../protocol/logger.js";
import { describeError } from "../../protocol/logger.js";
import { resultSchemaOf } from "../../protocol/methods.js";
import type { ClientCapabilities, ServerCapabilities } from "../../protocol/schemas/capabilities.js";
import type { Implementation, LoggingLevel } from "../../protocol/schemas/common.js";
import { LegacyMethod } from "../../protocol/schemas/legacy.js";
import { LATEST_PROTOCOL_VERSION, META, SUPPORTED_PROTOCOL_VERSIONS } from "../../protocol/versions.js";
import { ProtocolViolationError, VersionNegotiationError } from "../errors.js";
import { readResult } from "../results.js";
import type { ClientTransport } from "../transport/client-transport.js";
import { HttpStatusError } from "../transport/http-errors.js";
import type { Era } from "./era.js";
import { legacyEra } from "./legacy.js";
import { openLegacySession } from "./legacy-session.js";
import { modernEra } from "./modern.js";

export type { ProtocolEra };

/** How a Client picks its era: "auto" probes the server; the others speak one era only. */
export type EraChoice = "auto" | ProtocolEra;

/** What connecting settled: the era and version both sides speak, and what the server said of itself. */
export interface ServerDescription {
  era: ProtocolEra;
  protocolVersion: string;
  /** What server/discover offered, or the one version initialize settled on. */
  supportedVersions: readonly string[];
  /** Undefined when the probe was skipped (`knownEra: "modern"`) and no server/discover was sent. */
  capabilities: ServerCapabilities | undefined;
  serverInfo: Implementation | undefined;
  instructions: string | undefined;
}

const legacy = (version: string) => eraOfVersion(version) === "legacy";

/** Statuses with which servers of the 2025 era refuse a method they do not know, without JSON-RPC. */
const LEGACY_REFUSALS = new Set([400, 404, 405, 406, 415, 422]);

/**
 * Whether a failed server/discover says "I am a 2025-era server": any JSON-RPC error (-32601 Method
 * not found, a session-less request refused), a version error naming only versions we speak on a
 * session, a 4xx refusal without JSON-RPC, a 200 that is not JSON-RPC, or a result that is not a
 * discover result. Credentials refused (401, 403), server failures (5xx) and network errors are not
 * era answers: they reach the caller as they are.
 */
export function isLegacyAnswer(error: unknown): boolean {
  if (error instanceof VersionNegotiationError) {
    return error.serverVersions.some(legacy);
  }
  if (error instanceof McpError && error.code === ErrorCode.UnsupportedProtocolVersion) {
    const supported = supportedVersionsOf(error.data);
    return mutualVersion(supported) === undefined && supported.some(legacy);
  }
  if (error instanceof McpError || error instanceof ProtocolViolationError) return true;
  if (error instanceof HttpStatusError) return error.status < 300 || LEGACY_REFUSALS.has(error.status);
  return false;
}

/**
 * Whether a failed initialize says "I speak 2026-07-28 only": the version error a modern server
 * answers initialize with, naming a modern version we speak.
 */
export function isModernAnswer(error: unknown): boolean {
  return (
    error instanceof VersionNegotiationError &&
    error.serverVersions.some((version) => eraOfVersion(version) === "modern")
  );
}

/** The error for a server that answered neither era's opening: names both sides' versions and a way on. */
function noCommonEra(
  url: string,
  discoverFailure: unknown,
  initializeFailure: unknown,
): VersionNegotiationError {
  const offered = [discoverFailure, initializeFailure].flatMap((error) =>
    error instanceof VersionNegotiationError ? error.serverVersions : [],
  );
  return new VersionNegotiationError([...new Set(offered)], ALL_PROTOCOL_VERSIONS, {
    detail: `${url} answered server/discover with ${describe(discoverFailure)} and initialize with ${describe(initializeFailure)}; check that the URL or command is an MCP server's`,
    cause: initializeFailure,
  });
}

function isNotFound(error: unknown): error is HttpStatusError {
  return error instanceof HttpStatusError && error.status === 404;
}

function describe(error: unknown): string {
  if (error instanceof McpError) return `JSON-RPC error ${error.code} "${error.message}"`;
  if (error instanceof HttpStatusError) return `HTTP ${error.status}`;
  if (error instanceof Error) return `"${error.message}"`;
  return String(error);
}

/** The newest version this client speaks that the server offers, if any. */
function mutualVersion(offered: readonly string[]): string | undefined {
  return SUPPORTED_PROTOCOL_VERSIONS.find((version) => offered.includes(version));
}

/** The versions a -32022 error says the server supports (its `data.supported`). */
function supportedVersionsOf(errorData: unknown): string[] {
  const supported = (errorData as { supported?: unknown } | undefined)?.supported;
  return Array.isArray(supported) ? supported.filter((v): v is string => typeof v === "string") : [];
}

/** What the negotiation needs from the Client it settles the era for. */
export interface NegotiationPeer {
  readonly transport: ClientTransport;
  /** Sends one request on the wire of the era being tried (`era` is set before the first one). */
  send(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>>;
  readonly info: Implementation;
  capabilities(): ClientCapabilities;
  readonly logLevel: LoggingLevel | undefined;
  readonly logger: Logger;
}

/**
 * The era and version a Client speaks with one server, and how they are settled: the probe, the
 * fallback to a 2025-era session, prior knowledge, pinned eras, the version switch and the session's
 * renewal. Only this class changes them; requests read them.
 */
export class Negotiation {
  readonly #eras: Readonly<Record<ProtocolEra, Era>> = { modern: modernEra(), legacy: legacyEra() };
  #era: Era | undefined;
  #server: ServerDescription | undefined;
  #protocolVersion = LATEST_PROTOCOL_VERSION;
  #unconfirmed = false;
  #generation = 0;
  readonly #peer: NegotiationPeer;
  readonly #choice: EraChoice;
  readonly #known: ProtocolEra | undefined;
  #reopening: Promise<unknown> | undefined;

  constructor(peer: NegotiationPeer, choice: EraChoice = "auto", known?: ProtocolEra) {
    if (known !== undefined && choice !== "auto" && choice !== known) {
      throw new TypeError(
        `era "${choice}" and knownEra "${known}" contradict each other; knownEra only guides era "auto"`,
      );
    }
    this.#peer = peer;
    this.#choice = choice;
    this.#known = known;
  }

  /** The era requests are sent in: set while connecting, before the server is described; modern until then. */
  get era(): Era {
    return this.#era ?? this.#eras.modern;
  }
  get server(): ServerDescription | undefined {
    return this.#server;
  }
  /** The version every request carries. */
  get protocolVersion(): string {
    return this.#protocolVersion;
  }
  /** Started in the modern era on prior knowledge alone: the first answer may still say otherwise. */
  get unconfirmed(): boolean {
    return this.#unconfirmed;
  }
  /** Counts 2025-era sessions, so that requests failing on an expired one reopen it only once. */
  get generation(): number {
    return this.#generation;
  }

  /** The server answered a request: the era is no longer a guess. */
  confirm(): void {
    this.#unconfirmed = false;
  }

  /** A -32022 error named the versions the server speaks: switch to the newest both speak. */
  switchVersion(errorData: unknown): void {
    const supported = supportedVersionsOf(errorData);
    const version = mutualVersion(supported);
    if (!version) throw new VersionNegotiationError(supported, SUPPORTED_PROTOCOL_VERSIONS);
    this.#protocolVersion = version;
  }

  /** Settles the era: see the Client's `era` and `knownEra` options. */
  async negotiate(): Promise<ServerDescription> {
    try {
      return await this.#negotiate();
    } catch (error) {
      this.#era = undefined;
      throw error;
    }
  }

  /** The session expired (404): one new session for every request that met the same expired one. */
  async reopen(generation: number): Promise<void> {
    if (generation !== this.generation) return;
    await this.#openLegacyOnce();
  }

  /**
   * A request sent on the modern guess of prior knowledge met a 2025-era answer: open a session. False
   * when initialize is refused by a 2026-07-28 server, which confirms the guess.
   */
  async reconsider(): Promise<boolean> {
    try {
      await this.#openLegacyOnce();
      return true;
    } catch (error) {
      if (!isModernAnswer(error)) throw error;
      this.#era = this.#eras.modern;
      this.#unconfirmed = false;
      return false;
    }
  }

  /** How this server is named in errors: its URL or command. */
  where(): string {
    const { transport } = this.#peer;
    const target = transport as { url?: URL; parameters?: { command?: string } };
    return target.url?.href ?? target.parameters?.command ?? `the ${transport.kind} server`;
  }

  async #negotiate(): Promise<ServerDescription> {
    const choice = this.#choice;
    if (choice === "modern") return this.#pinned("modern", () => this.#discover());
    if (choice === "legacy") return this.#pinned("legacy", () => this.#openLegacy());
    if (this.#known === "modern") return this.#assumeModern();
    if (this.#known === "legacy") {
      try {
        return await this.#openLegacy();
      } catch (error) {
        if (!isModernAnswer(error)) throw error;
        return this.#discover();
      }
    }
    let discoverFailure: unknown;
    try {
      return await this.#discover();
    } catch (error) {
      if (!isLegacyAnswer(error)) throw error;
      discoverFailure = error;
    }
    try {
      return await this.#openLegacy();
    } catch (error) {
      // 404 to both openings: nothing serves MCP at this URL, whatever its version; not a version mismatch.
      if (isNotFound(discoverFailure) && isNotFound(error)) throw error;
      if (isLegacyAnswer(error) || error instanceof VersionNegotiationError) {
        throw noCommonEra(this.where(), discoverFailure, error);
      }
      throw error;
    }
  }

  /** One era only: an answer of the other era becomes an error that says how to reach the server. */
  async #pinned(era: ProtocolEra, open: () => Promise<ServerDescription>): Promise<ServerDescription> {
    try {
      return await open();
    } catch (error) {
      const otherEra = era === "modern" ? isLegacyAnswer(error) : isModernAnswer(error);
      if (!otherEra) throw error;
      const served = error instanceof VersionNegotiationError ? error.serverVersions : [];
      const other = ERAS[era === "modern" ? "legacy" : "modern"].label;
      throw new VersionNegotiationError(served, ERAS[era].versions, {
        detail: `this client is pinned to era "${era}" and ${this.where()} answered as a ${other} server; use era "auto" to speak whichever it offers`,
        cause: error,
      });
    }
  }

  async #discover(): Promise<ServerDescription> {
    this.#era = this.#eras.modern;
    const raw = await this.#peer.send("server/discover", {});
    const result = readResult("server/discover", raw, resultSchemaOf("server/discover"));
    const version = mutualVersion(result.supportedVersions);
    if (!version) throw new VersionNegotiationError(result.supportedVersions, SUPPORTED_PROTOCOL_VERSIONS);
    this.#protocolVersion = version;
    this.#server = {
      era: "modern",
      protocolVersion: version,
      supportedVersions: result.supportedVersions,
      capabilities: result.capabilities,
      serverInfo: result._meta?.[META.serverInfo],
      instructions: result.instructions,
    };
    return this.#server;
  }

  /** Prior knowledge says 2026-07-28: no probe; the first request's answer confirms it. */
  #assumeModern(): ServerDescription {
    this.#era = this.#eras.modern;
    this.#unconfirmed = true;
    this.#protocolVersion = LATEST_PROTOCOL_VERSION;
    this.#server = {
      era: "modern",
      protocolVersion: LATEST_PROTOCOL_VERSION,
      supportedVersions: [LATEST_PROTOCOL_VERSION],
      capabilities: undefined,
      serverInfo: undefined,
      instructions: undefined,
    };
    return this.#server;
  }

  #openLegacyOnce(): Promise<unknown> {
    this.#reopening ??= this.#openLegacy().finally(() => {
      this.#reopening = undefined;
    });
    return this.#reopening;
  }

  async #openLegacy(): Promise<ServerDescription> {
    this.#era = this.#eras.legacy;
    this.#unconfirmed = false;
    const peer = this.#peer;
    const result = await openLegacySession(
      peer.transport,
      (method, params) => peer.send(method, params).catch(asVersionError),
      peer.info,
      peer.capabilities(),
    );
    this.#generation += 1;
    this.#protocolVersion = result.protocolVersion;
    this.#server = {
      era: "legacy",
      protocolVersion: result.protocolVersion,
      supportedVersions: [result.protocolVersion],
      capabilities: result.capabilities,
      serverInfo: result.serverInfo,
      instructions: result.instructions,
    };
    await this.#applyLogLevel();
    return this.#server;
  }

  /** A 2025-era session sets the log level once, with logging/setLevel; 2026-07-28 sends it per request. */
  async #applyLogLevel(): Promise<void> {
    const level = this.#peer.logLevel;
    if (level === undefined || !this.#server?.capabilities?.logging) return;
    try {
      await this.#peer.send(LegacyMethod.setLevel, { level });
    } catch (error) {
      this.#peer.logger.warn(
        describeError(error),
        "the server refused logging/setLevel; its default level applies",
      );
    }
  }
}

/** initialize refused with -32022 names the server's versions, which the era negotiation reads. */
function asVersionError(error: unknown): never {
  if (error instanceof McpError && error.code === ErrorCode.UnsupportedProtocolVersion) {
    throw new VersionNegotiationError(supportedVersionsOf(error.data), ALL_PROTOCOL_VERSIONS, {
      cause: error,
    });
  }
  throw error;
}
