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

/**
 * A loopback port where every connection is refused (ECONNREFUSED), for tests of a server that does not
 * run. Checked before it is given out: if this machine listens there, it fails saying so.
 */
export async function refusedPort(): Promise<number> {
  const outcome = await new Promise<string>((resolve) => {
    const socket = connect(UNASSIGNED_PORT, HOST);
    socket.once("connect", () => {
      socket.destroy();
      resolve("accepted the connection");
    });
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
  if (outcome !== "ECONNREFUSED") {
    throw new Error(
      `${HOST}:${UNASSIGNED_PORT} was to refuse connections, for tests of a server that does not run, but ${outcome === "accepted the connection" ? outcome : `failed with ${outcome}`}: stop whatever listens on port ${UNASSIGNED_PORT} of this machine`,
    );
  }
  return UNASSIGNED_PORT;
}
