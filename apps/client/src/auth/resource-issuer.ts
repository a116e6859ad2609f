import { Client, HttpStatusError } from "@roundtrip/sdk/client";
import { discoverProtectedResource } from "@roundtrip/sdk/oauth-client";
import { silentLogger } from "@roundtrip/sdk/protocol";
import { CliError, ExitCode } from "../exit-codes.js";
import { CLIENT_VERSION } from "../version.js";

/**
 * The authorization server a server's protected resource metadata names (the first one, as the SDK's
 * OAuth client uses), found before any credential is sent: an unauthenticated request draws the
 * server's challenge, whose `resource_metadata` leads to the metadata. Undefined when the server lets
 * the request through without asking for credentials.
 */
export async function discoverResourceIssuer(server: string): Promise<string | undefined> {
  const client = new Client(server, {
    info: { name: "roundtrip-cli", version: CLIENT_VERSION },
    logger: silentLogger,
  });
  let challenge: string | null;
  try {
    await client.connect();
    return undefined;
  } catch (error) {
    if (!(error instanceof HttpStatusError && error.status === 401)) throw error;
    challenge = error.headers.get("www-authenticate");
  } finally {
    await client.close();
  }
  const { metadata } = await discoverProtectedResource(server, challenge);
  const issuer = metadata.authorization_servers[0];
  if (issuer === undefined) {
    throw new CliError(ExitCode.auth, `${server} names no authorization server to sign in with`);
  }
  return issuer;
}
