import { subscribe } from "node:diagnostics_channel";

// Preloaded (NODE_OPTIONS=--import) into a server process by the tests that must know when the
// server saw a client go away: one JSON line on stdout, beside the server's own log, for every HTTP
// response that closes, and whether it had finished (false: the client left first).
subscribe("http.server.request.start", ({ request, response }) => {
  response.once("close", () => {
    const line = { msg: "response closed", method: request.method, finished: response.writableFinished };
    process.stdout.write(`${JSON.stringify(line)}\n`);
  });
});
