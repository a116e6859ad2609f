import { connect } from "node:net";

/**
 * Port 4 on loopback: unassigned, below the range the kernel hands out (to `listen(0)` and to the source
 * port of every outgoing connection), and only root may listen on it, so nothing a suite starts takes it.
 * A port freed a moment ago is no such thing: the kernel gives it out again, and a suite running beside
 * the test may have started a server on it before the test connects. Port 0 cannot be listened on
 * either, but `node:http` reads it as port 80.
 */
const UNASSIGNED_PORT = 4;
const HOST = "127.0.0.1";
const ACCEPTED = "accepted";
/** A refusal comes back at once; a firewall that drops packets would otherwise hold the test for minutes. */
const ANSWER_WITHIN_MS = 5_000;

/**
 * A loopback port where every connection is refused (ECONNREFUSED), for tests of a server that does not
 * run. Checked before it is given out: if this machine listens there, it fails saying so.
 */
export async function refusedPort(): Promise<number> {
  await expectRefused(UNASSIGNED_PORT);
  return UNASSIGNED_PORT;
}

/** Resolves if a connection to `port` on loopback is refused; otherwise fails naming what happened and what to do. */
export async function expectRefused(port: number): Promise<void> {
  const outcome = await new Promise<string>((resolve) => {
    const socket = connect(port, HOST);
    const end = (what: string) => {
      socket.destroy();
      resolve(what);
    };
    socket.setTimeout(ANSWER_WITHIN_MS, () => end(`nothing answered within ${ANSWER_WITHIN_MS} ms`));
    socket.once("connect", () => end(ACCEPTED));
    socket.once("error", (error: NodeJS.ErrnoException) => end(error.code ?? error.message));
  });
  if (outcome === "ECONNREFUSED") return;
  const why =
    outcome === ACCEPTED
      ? `something accepted a connection there: stop what listens on port ${port} of this machine`
      : `connecting got ${outcome}: check that loopback is up and that no firewall drops connections to it`;
  throw new Error(
    `${HOST}:${port} should refuse connections, for tests of a server that does not run, but ${why}`,
  );
}
