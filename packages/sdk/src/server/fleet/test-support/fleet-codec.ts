import { AesGcmRequestStateCodec } from "@roundtrip/sealing";
import { FLEET_KEYS } from "../../mcp-server/test-support/once.js";

/** The keys every instance of a test fleet shares: they seal its requestState and its bus messages. */
export const fleetCodec = (): AesGcmRequestStateCodec => new AesGcmRequestStateCodec(FLEET_KEYS);
