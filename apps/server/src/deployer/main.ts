import { startDeployerApi } from "./deployer-api.js";

/**
 * The deployer API as its own process (compose, the demo): `node dist/deployer/main.js`, configured by
 * OAUTH_ISSUER (required), DEPLOYER_AUDIENCE (default its URL; required when it listens on port 0 or
 * a wildcard address), DEPLOYER_PORT (default 4100),
 * DEPLOYER_HOST (default 127.0.0.1) and OAUTH_ALLOW_INSECURE_HTTP.
 */
const issuer = process.env.OAUTH_ISSUER;
if (!issuer) {
  console.error("OAUTH_ISSUER is required: the issuer of the tokens the deployer accepts, exactly as in iss");
  process.exit(2);
}
const port = Number(process.env.DEPLOYER_PORT ?? "4100");
if (!(Number.isInteger(port) && port >= 0 && port <= 65535)) {
  console.error(`DEPLOYER_PORT must be a TCP port, got "${process.env.DEPLOYER_PORT}"`);
  process.exit(2);
}
const host = process.env.DEPLOYER_HOST ?? "127.0.0.1";
// Its own address is a usable audience only when callers reach it by that address.
const wildcard = port === 0 || host === "0.0.0.0" || host === "::";
if (process.env.DEPLOYER_AUDIENCE === undefined && wildcard) {
  console.error(
    `DEPLOYER_AUDIENCE is required with DEPLOYER_HOST=${host} DEPLOYER_PORT=${port}: set it to the name tokens for the deployer carry in aud (e.g. its URL as callers reach it)`,
  );
  process.exit(2);
}
const audience = process.env.DEPLOYER_AUDIENCE ?? `http://${host}:${port}`;
const api = await startDeployerApi({
  issuer,
  audience,
  port,
  host,
  allowInsecureHttp: process.env.OAUTH_ALLOW_INSECURE_HTTP === "true",
});
console.log(JSON.stringify({ deployer: api.url, audience, issuer }));
const stop = () => void api.close().then(() => process.exit(0));
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
