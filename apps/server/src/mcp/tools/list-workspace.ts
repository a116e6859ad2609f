import { inputRequired, inputResponse, listRoots, type McpServer } from "@roundtrip/sdk";

const ROOTS = "roots";

/** Hand-built form, roots: the first round asks for the client's roots, the retry reads them. */
export function registerListWorkspace(mcp: McpServer): void {
  mcp.tool(
    "list_workspace",
    {
      title: "List workspace roots",
      description: "Lists the directories the client shares with this server",
    },
    (_args, ctx) => {
      const answer = inputResponse(ctx.inputResponses, ROOTS);
      if (answer.kind !== "roots") return inputRequired({ inputRequests: { [ROOTS]: listRoots() } });
      if (answer.roots.length === 0) return "The client shares no roots";
      const lines = answer.roots.map((root) => (root.name ? `${root.name}: ${root.uri}` : root.uri));
      return `The client shares ${answer.roots.length} root(s):\n${lines.join("\n")}`;
    },
  );
}
