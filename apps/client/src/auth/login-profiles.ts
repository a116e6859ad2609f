import { join } from "node:path";
import * as z from "zod";
import { readOptionalFile, writePrivateFile } from "../private-file.js";

/**
 * The enterprise IdP of the identity assertion grant (ID-JAG): the user's ID token, read from a file the
 * host's single sign-on keeps fresh, is exchanged there for an ID-JAG for the server's authorization server.
 */
const IdentityAssertionSchema = z.strictObject({
  idpIssuer: z.string(),
  idpTokenEndpoint: z.string().optional(),
  idpClientId: z.string(),
  /** The name of the environment variable holding the client's secret at the IdP, never the secret. */
  idpClientSecretEnv: z.string().optional(),
  idTokenFile: z.string(),
});

const LoginProfileSchema = z.object({
  /**
   * `identity_assertion` and `workload_identity` are written by hand (no `roundtrip login` flags): a
   * profile for an enterprise sign-in through the IdP, or for a workload with a platform token file.
   */
  grant: z.enum(["client_credentials", "authorization_code", "identity_assertion", "workload_identity"]),
  clientId: z.string().optional(),
  /** A pre-registered confidential client's secret: needed for every new client_credentials token. */
  clientSecret: z.string().optional(),
  /**
   * The issuer of the authorization server the client id (and secret) belongs to, recorded at login:
   * they are never presented to another one, whatever the server's metadata names later.
   */
  issuer: z.string().optional(),
  scope: z.string().optional(),
  /** For `identity_assertion`. */
  identityAssertion: IdentityAssertionSchema.optional(),
  /** For `workload_identity`: the workload's identity token (a JWT), read again for every grant. */
  workloadTokenFile: z.string().optional(),
  /** The loopback port of the sign-in callback; 0 picks a free one each time. */
  callbackPort: z.number().int().min(0).max(65535).optional(),
});
export type LoginProfile = z.output<typeof LoginProfileSchema>;

const ProfilesSchema = z.record(z.string(), LoginProfileSchema);

/**
 * How `roundtrip login` signed in to each server (by MCP endpoint URL), so later commands use the same
 * grant and client. It holds a client secret when one was given, hence 0600 like the tokens.
 */
export class LoginProfiles {
  readonly path: string;

  constructor(home: string) {
    this.path = join(home, "logins.json");
  }

  async #all(): Promise<Record<string, LoginProfile>> {
    const text = await readOptionalFile(this.path);
    if (text === undefined) return {};
    const parsed = ProfilesSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : {};
  }

  async get(server: string): Promise<LoginProfile | undefined> {
    return (await this.#all())[server];
  }

  async set(server: string, profile: LoginProfile): Promise<void> {
    const all = await this.#all();
    all[server] = profile;
    await writePrivateFile(this.path, `${JSON.stringify(all, null, 2)}\n`);
  }

  /** Removes one server's profile, or all of them; returns the servers removed. */
  async delete(server?: string): Promise<string[]> {
    const all = await this.#all();
    const removed = server === undefined ? Object.keys(all) : server in all ? [server] : [];
    for (const name of removed) delete all[name];
    await writePrivateFile(this.path, `${JSON.stringify(all, null, 2)}\n`);
    return removed;
  }
}
