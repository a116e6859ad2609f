import { execFile } from "node:child_process";
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);

export const packageDir = fileURLToPath(new URL("..", import.meta.url));
const bin = join(packageDir, "node_modules", ".bin");

export interface CfnTemplate {
  Parameters?: Record<string, { Type: string; Default?: string | number; AllowedPattern?: string }>;
  Resources: Record<string, { Type: string; Properties?: Record<string, unknown>; DeletionPolicy?: string }>;
  Outputs?: Record<string, unknown>;
}

/**
 * Runs the real CLI, `cdk synth`, into a fresh folder, exactly as an operator would: the app through
 * cdk.json, with telemetry and notices off. Returns the folder and the stacks' templates.
 */
export async function synthesize(): Promise<{ outDir: string; templates: Record<string, CfnTemplate> }> {
  const outDir = await mkdtemp(join(tmpdir(), "roundtrip-cdk-"));
  await run(join(bin, "cdk"), ["synth", "--quiet", "--no-notices", "--output", outDir], {
    cwd: packageDir,
    env: {
      ...process.env,
      // cdk.json names `tsx`, which lives in this package's node_modules/.bin.
      PATH: `${bin}${delimiter}${process.env.PATH ?? ""}`,
      CDK_DISABLE_CLI_TELEMETRY: "true",
    },
    maxBuffer: 16 * 1024 * 1024,
  });
  const templates: Record<string, CfnTemplate> = {};
  for (const stack of ["RoundtripKey", "RoundtripService"]) {
    templates[stack] = JSON.parse(
      await readFile(join(outDir, `${stack}.template.json`), "utf8"),
    ) as CfnTemplate;
  }
  return { outDir, templates };
}

/**
 * Evaluates the CloudFormation intrinsics that appear in the container's environment, with sample
 * values for the parameters an operator must supply and the defaults for the rest.
 */
export function resolveValue(
  value: unknown,
  template: CfnTemplate,
  samples: Record<string, string>,
  pseudo: Record<string, string>,
): string {
  if (typeof value === "string") return value;
  if (typeof value === "object" && value !== null) {
    const entry = Object.entries(value)[0];
    if (entry !== undefined) {
      const [fn, arg] = entry;
      if (fn === "Ref" && typeof arg === "string") {
        if (arg in pseudo) return pseudo[arg]!;
        if (arg in samples) return samples[arg]!;
        const fallback = template.Parameters?.[arg]?.Default;
        if (fallback !== undefined) return String(fallback);
        throw new Error(`parameter ${arg} has no default and no sample value`);
      }
      if (fn === "Fn::ImportValue" && "Fn::ImportValue" in pseudo) return pseudo["Fn::ImportValue"]!;
      // Sample values keyed "<logical id>.<attribute>": what the resource reports once it exists.
      if (fn === "Fn::GetAtt" && Array.isArray(arg)) {
        const sample = pseudo[`${arg[0]}.${arg[1]}`];
        if (sample !== undefined) return sample;
        throw new Error(`no sample for ${arg.join(".")}`);
      }
      if (fn === "Fn::Join" && Array.isArray(arg)) {
        const [separator, parts] = arg as [string, unknown[]];
        return parts.map((part) => resolveValue(part, template, samples, pseudo)).join(separator);
      }
    }
  }
  throw new Error(`cannot resolve ${JSON.stringify(value)}`);
}

/**
 * CloudFormation's resolution of `{{resolve:secretsmanager:<arn>:SecretString:::}}` references in a
 * resolved string, from the secrets' sample values by ARN.
 */
export function resolveSecretReferences(value: string, secrets: Record<string, string>): string {
  return value.replace(/\{\{resolve:secretsmanager:(.+?):SecretString:::\}\}/g, (_, arn: string) => {
    const secret = secrets[arn];
    if (secret === undefined) throw new Error(`no sample value for secret ${arn}`);
    return secret;
  });
}
