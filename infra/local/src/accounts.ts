import type { FindAccount } from "oidc-provider";

/** An end user who can sign in through the development login page. */
export interface LocalUser {
  /** The login typed into the form; it becomes the token's `sub`. */
  id: string;
  name?: string;
  email?: string;
}

export const DEFAULT_USERS: readonly LocalUser[] = [
  { id: "alice", name: "Alice", email: "alice@example.test" },
  { id: "bob", name: "Bob", email: "bob@example.test" },
];

/**
 * The development login page accepts any login; refusing unknown ones here keeps a typo in a test from
 * minting tokens for a user nobody configured.
 */
export function findAccountIn(users: readonly LocalUser[]): FindAccount {
  const byId = new Map(users.map((user) => [user.id, user]));
  return (_ctx, sub) => {
    const user = byId.get(sub);
    if (!user) return undefined;
    return {
      accountId: user.id,
      claims: () => ({
        sub: user.id,
        ...(user.name === undefined ? {} : { name: user.name }),
        ...(user.email === undefined ? {} : { email: user.email }),
      }),
    };
  };
}
