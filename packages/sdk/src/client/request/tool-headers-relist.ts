import { ErrorCode, McpError } from "../../protocol/errors.js";
import type { Recovery } from "./recovery.js";

/** -32020 on a request sent with Mcp-Param-* headers: the tool's annotations changed, so list tools again. */
export const toolHeadersRelist: Recovery = {
  kind: "headers",
  applies: ({ error, sentParamHeaders }) =>
    sentParamHeaders && error instanceof McpError && error.code === ErrorCode.HeaderMismatch,
  recover: async ({ signal }, { relistTools }) => {
    await relistTools(signal);
    return true;
  },
};
