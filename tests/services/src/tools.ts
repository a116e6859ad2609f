/**
 * The programs the test suites run, and where each one comes from on a machine that lacks it. The
 * Python tools go into a project-local virtual environment (pip never touches the system Python);
 * the servers come from Debian's packages, which need root and apt-get.
 */
export type ToolSource =
  | { readonly kind: "pip"; readonly requirement: string }
  | {
      readonly kind: "apt";
      readonly packages: readonly string[];
      /** From the release's backports suite (e.g. bookworm-backports): the release itself lacks them. */
      readonly backports?: true;
    }
  | { readonly kind: "manual"; readonly instructions: string };

export interface Tool {
  /** The command a test runs. */
  readonly command: string;
  /** What the suites use it for, for the messages a person reads. */
  readonly purpose: string;
  /** Absolute paths to try after PATH: Debian puts servers in /usr/sbin, which a non-root PATH omits. */
  readonly alsoAt: readonly string[];
  readonly source: ToolSource;
}

export const TOOLS = {
  moto_server: {
    command: "moto_server",
    purpose: "the AWS KMS emulator the KMS tests run against",
    alsoAt: [],
    source: { kind: "pip", requirement: "moto[server]" },
  },
  "cfn-lint": {
    command: "cfn-lint",
    purpose: "the CloudFormation linter the CDK app's templates must pass",
    alsoAt: [],
    source: { kind: "pip", requirement: "cfn-lint" },
  },
  nginx: {
    command: "nginx",
    purpose: "the proxy the fleet tests put in front of the servers",
    alsoAt: ["/usr/sbin/nginx"],
    source: { kind: "apt", packages: ["nginx-light"] },
  },
  "redis-server": {
    command: "redis-server",
    purpose: "the shared store a fleet keeps its state in",
    alsoAt: ["/usr/bin/redis-server"],
    source: { kind: "apt", packages: ["redis-server"] },
  },
  "valkey-server": {
    command: "valkey-server",
    purpose: "Valkey, the drop-in for Redis the fleet's stores are also tested against",
    alsoAt: ["/usr/bin/valkey-server"],
    // Debian 12 has Valkey only in its backports suite.
    source: { kind: "apt", packages: ["valkey-server"], backports: true },
  },
  prometheus: {
    command: "prometheus",
    purpose: "the Prometheus server the fleet's metrics test scrapes the instances with",
    alsoAt: ["/usr/bin/prometheus"],
    source: { kind: "apt", packages: ["prometheus"] },
  },
  openssl: {
    command: "openssl",
    purpose: "the private certificate authority the TLS tests sign a Redis certificate with",
    alsoAt: ["/usr/bin/openssl"],
    source: { kind: "apt", packages: ["openssl"] },
  },
  strace: {
    command: "strace",
    purpose: "slows a Redis's disk syncs in place, so the durability tests can kill it while its disk lags",
    alsoAt: ["/usr/bin/strace"],
    source: { kind: "apt", packages: ["strace"] },
  },
  chromium: {
    command: "chromium",
    purpose: "the headless browser the approval page's tests drive (through playwright-core)",
    alsoAt: ["/usr/bin/chromium"],
    source: { kind: "apt", packages: ["chromium"] },
  },
  kubectl: {
    command: "kubectl",
    purpose: "kustomize, which renders the Kubernetes manifests the infra tests check",
    alsoAt: [],
    // Debian ships only kubectl 1.20, whose kustomize predates what the manifests use.
    source: {
      kind: "manual",
      instructions:
        "install kubectl 1.27 or later (https://kubernetes.io/docs/tasks/tools/) and put it on PATH",
    },
  },
} as const satisfies Record<string, Tool>;

export type ToolName = keyof typeof TOOLS;

/** The one command a person runs to install `tool` by hand. */
export function manualInstall(tool: Tool): string {
  switch (tool.source.kind) {
    case "pip":
      return `pip install '${tool.source.requirement}'`;
    case "apt":
      return tool.source.backports
        ? `sudo apt-get install -y -t "$(. /etc/os-release && echo "$VERSION_CODENAME")-backports" ${tool.source.packages.join(" ")} (with the backports suite in apt's sources)`
        : `sudo apt-get install -y ${tool.source.packages.join(" ")}`;
    case "manual":
      return tool.source.instructions;
  }
}
