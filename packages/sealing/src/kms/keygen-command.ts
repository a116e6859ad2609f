import { parseArgs } from "node:util";
import { generateWrappedDataKey } from "./generate-wrapped-key.js";
import type { KmsClientOptions } from "./kms-client.js";
import { KmsKeyError } from "./kms-key-error.js";

/** Where the command writes: stdout gets only the wrapped key, so it can be captured by scripts. */
export interface KeygenIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

const USAGE = `Usage: roundtrip-kms-keygen --key-id <kms key id, ARN or alias/...> --service <service name> [--region <region>]

Mints a new AES-256 data key wrapped under the KMS key, bound to the service name (KMS encryption
context { service }), and prints the wrapped key (base64) on stdout. Put it first in your list of
wrapped keys; keep the previous one second until one requestState TTL has passed, then drop it.
Credentials and region come from the standard AWS chain; AWS_ENDPOINT_URL_KMS selects another endpoint.
`;

/** Runs the keygen command and returns its exit code: 0 done, 1 KMS failure, 2 usage error. */
export async function runKeygen(
  argv: readonly string[],
  io: KeygenIo,
  kms: KmsClientOptions = {},
): Promise<number> {
  const args = parse(argv);
  if (args === undefined || args.help) {
    (args?.help ? io.stdout : io.stderr)(USAGE);
    return args?.help ? 0 : 2;
  }
  const clientConfig =
    args.region === undefined ? kms.clientConfig : { ...kms.clientConfig, region: args.region };
  try {
    const minted = await generateWrappedDataKey({
      ...kms,
      clientConfig,
      keyId: args.keyId,
      service: args.service,
    });
    io.stdout(`${minted.wrappedKey}\n`);
    io.stderr(`Wrapped a new data key under ${minted.keyArn ?? args.keyId} for service "${args.service}".\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof KmsKeyError || error instanceof TypeError)) throw error;
    io.stderr(`${error.message}\n`);
    return 1;
  }
}

interface KeygenArgs {
  readonly keyId: string;
  readonly service: string;
  readonly region: string | undefined;
  readonly help: boolean;
}

function parse(argv: readonly string[]): KeygenArgs | undefined {
  let values: { "key-id"?: string; service?: string; region?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        "key-id": { type: "string" },
        service: { type: "string" },
        region: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch {
    return undefined;
  }
  const keyId = values["key-id"];
  const { service, region, help = false } = values;
  if (help) return { keyId: "", service: "", region, help };
  if (!keyId || !service) return undefined;
  return { keyId, service, region, help };
}
