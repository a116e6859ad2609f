import { ErrorCode, McpError } from "../../protocol/errors.js";
import type { Recovery } from "./recovery.js";

/** -32022: the server speaks other versions; switch to the newest both speak, or fail naming both sides'. */
export const versionSwitch: Recovery = {
  kind: "version",
  applies: ({ error }) => error instanceof McpError && error.code === ErrorCode.UnsupportedProtocolVersion,
  recover: async ({ error }, { negotiation }) => {
    negotiation.switchVersion((error as McpError).data);
    return true;
  },
};
