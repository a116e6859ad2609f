import { roundsServer } from "../../src/client/test-support/rounds-server.js";
import { serveStdio } from "../../src/server/transport/stdio-server.js";

// The child process of the stdio tests: the rounds server on stdin/stdout. A call that starts waiting,
// and its cancellation, are reported on stderr, the one channel the test can watch besides the protocol.
const { server } = roundsServer({
  onWaiting: (requestId) => process.stderr.write(`waiting ${String(requestId)}\n`),
  onCancelled: (requestId) => process.stderr.write(`cancelled ${String(requestId)}\n`),
});
await serveStdio(server);
