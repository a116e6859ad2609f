import { ERAS } from "../protocol/eras.js";
import type { Logger } from "../protocol/logger.js";
import { describeError } from "../protocol/logger.js";
import type { ClientCapabilities } from "../protocol/schemas/capabilities.js";
import type { Implementation, LoggingLevel } from "../protocol/schemas/common.js";
import { DiscoverResultSchema } from "../protocol/schemas/discover.js";
import { LegacyMethod } from "../protocol/schemas/legacy.js";
import { LATEST_PROTOCOL_VERSION, META, SUPPORTED_PROTOCOL_VERSIONS } from "../protocol/versions.js";
import {
  type EraChoice,
  isLegacyAnswer,
  isModernAnswer,
  noCommonEra,
  type ProtocolEra,
  type ServerDescription,
} from "./era-negotiation.js";
import { VersionNegotiationError } from "./errors.js";
import { openLegacySession } from "./legacy-session.js";
import { readResult } from "./results.js";
import type { ClientTransport } from "./transport/client-transport.js";
import { mutualVersion } from "./version-negotiation.js";

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
 * fallback to a 2025-era session, prior knowledge, pinned eras, and the session's renewal.
 */
export class Negotiation {
  /** The wire requests take; set while connecting, before the description is known. */
  era: ProtocolEra | undefined;
  server: ServerDescription | undefined;
  protocolVersion = LATEST_PROTOCOL_VERSION;
  /** Started in the modern era on prior knowledge alone: the first answer may still say otherwise. */
  unconfirmed = false;
  /** Counts 2025-era sessions, so that requests failing on an expired one reopen it only once. */
  generation = 0;
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

  /** Settles the era: see the Client's `era` and `knownEra` options. */
  async negotiate(): Promise<ServerDescription> {
    try {
      return await this.#negotiate();
    } catch (error) {
      this.era = undefined;
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
      this.era = "modern";
      this.unconfirmed = false;
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
    this.era = "modern";
    const raw = await this.#peer.send("server/discover", {});
    const result = readResult("server/discover", raw, DiscoverResultSchema);
    const version = mutualVersion(result.supportedVersions);
    if (!version) throw new VersionNegotiationError(result.supportedVersions, SUPPORTED_PROTOCOL_VERSIONS);
    this.protocolVersion = version;
    this.server = {
      era: "modern",
      protocolVersion: version,
      supportedVersions: result.supportedVersions,
      capabilities: result.capabilities,
      serverInfo: result._meta?.[META.serverInfo],
      instructions: result.instructions,
    };
    return this.server;
  }

  /** Prior knowledge says 2026-07-28: no probe; the first request's answer confirms it. */
  #assumeModern(): ServerDescription {
    this.era = "modern";
    this.unconfirmed = true;
    this.protocolVersion = LATEST_PROTOCOL_VERSION;
    this.server = {
      era: "modern",
      protocolVersion: LATEST_PROTOCOL_VERSION,
      supportedVersions: [LATEST_PROTOCOL_VERSION],
      capabilities: undefined,
      serverInfo: undefined,
      instructions: undefined,
    };
    return this.server;
  }

  #openLegacyOnce(): Promise<unknown> {
    this.#reopening ??= this.#openLegacy().finally(() => {
      this.#reopening = undefined;
    });
    return this.#reopening;
  }

  async #openLegacy(): Promise<ServerDescription> {
    this.era = "legacy";
    this.unconfirmed = false;
    const peer = this.#peer;
    const result = await openLegacySession(
      peer.transport,
      (method, params) => peer.send(method, params),
      peer.info,
      peer.capabilities(),
    );
    this.generation += 1;
    this.protocolVersion = result.protocolVersion;
    this.server = {
      era: "legacy",
      protocolVersion: result.protocolVersion,
      supportedVersions: [result.protocolVersion],
      capabilities: result.capabilities,
      serverInfo: result.serverInfo,
      instructions: result.instructions,
    };
    await this.#applyLogLevel();
    return this.server;
  }

  /** A 2025-era session sets the log level once, with logging/setLevel; 2026-07-28 sends it per request. */
  async #applyLogLevel(): Promise<void> {
    const level = this.#peer.logLevel;
    if (level === undefined || !this.server?.capabilities?.logging) return;
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
