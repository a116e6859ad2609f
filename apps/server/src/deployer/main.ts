import { startDeployerApi } from "./deployer-api.js";

/**
 * The deployer API as its own process (compose, the demo): `node dist/deployer/main.js`, configured by
 * OAUTH_ISSUER (required), DEPLOYER_AUDIENCE (default its URL), DEPLOYER_PORT (default 4100),
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
