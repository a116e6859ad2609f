import type { FastifyReply } from "fastify";
import { sendNotice } from "./html-page.js";

/**
 * The answer for a well-formed release the store has no record of. Release ids are the server's own
 * and unguessable, so someone holding one was sent here by a deploy: the record expired or the store
 * forgot it, and it is never re-created here. Said the same to anyone, so it tells nobody more.
 */
export function sendLostApproval(reply: FastifyReply, release: string) {
  return sendNotice(
    reply,
    404,
    `Release ${release}`,
    `No approval of release ${release} is on record: it expired an hour after it was asked for, or the ` +
      "approval store lost it (restarted empty or evicted it). Nothing was deployed from this page; " +
      "call deploy again in your MCP client to start a new release.",
  );
}
