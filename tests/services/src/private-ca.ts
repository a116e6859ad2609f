import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { ensureTool } from "./ensure-tool.js";

const run = promisify(execFile);

/** A certificate authority of a test's own and one server certificate it signed, as PEM files. */
export interface PrivateCa {
  /** The CA's certificate: what a client is told to trust. */
  readonly caFile: string;
  /** The server's certificate (its subjectAltName is the host it was issued for) and key. */
  readonly certFile: string;
  readonly keyFile: string;
  remove(): Promise<void>;
}

/**
 * Makes a CA no system trusts and a server certificate it signed for `host` (an IP address), with
 * openssl, in a folder of their own: a server presenting it is trusted only by a client given the CA.
 */
export async function privateCa(host = "127.0.0.1"): Promise<PrivateCa> {
  const openssl = await ensureTool("openssl");
  const dir = await mkdtemp(join(tmpdir(), "roundtrip-ca-"));
  const at = (name: string) => join(dir, name);
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  try {
    await run(
      openssl,
      ["req", "-x509", ...ec, "-keyout", at("ca.key"), "-out", at("ca.pem")].concat([
        "-days",
        "2",
        "-subj",
        "/CN=Roundtrip test CA",
      ]),
    );
    await run(openssl, [
      "req",
      ...ec,
      "-keyout",
      at("server.key"),
      "-out",
      at("server.csr"),
      "-subj",
      `/CN=${host}`,
    ]);
    await writeFile(at("san.ext"), `subjectAltName=IP:${host}\n`);
    await run(openssl, [
      "x509",
      "-req",
      ...["-in", at("server.csr"), "-CA", at("ca.pem"), "-CAkey", at("ca.key"), "-CAcreateserial"],
      ...["-out", at("server.pem"), "-days", "2", "-extfile", at("san.ext")],
    ]);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    caFile: at("ca.pem"),
    certFile: at("server.pem"),
    keyFile: at("server.key"),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
