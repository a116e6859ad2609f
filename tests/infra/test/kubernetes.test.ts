import { loadConfig } from "@roundtrip/server";
import { beforeAll, describe, expect, it } from "vitest";
import { loadDockerfile, ofKind } from "../src/dockerfile.js";
import {
  expandContainerVars,
  type K8sObject,
  kustomize,
  named,
  one,
  secretData,
  validate,
} from "../src/kubernetes.js";
import { parseRedisUrl, pingAs, startRedis } from "../src/redis.js";
import { expectKeepsState, measureDurability } from "../src/redis-durability.js";
import { readRepoFile, run, SAMPLE_WRAPPED_KEY, undocumentedVariables } from "../src/repo.js";

const rendered: Record<string, K8sObject[]> = {};

beforeAll(async () => {
  [rendered.base, rendered.example] = await Promise.all([kustomize("base"), kustomize("overlays/example")]);
});

/** What production puts in the roundtrip-redis Secret: a managed Redis over TLS. */
const MANAGED_REDIS_URL =
  "rediss://:0123456789abcdef0123456789abcdef@master.roundtrip.abc123.euw1.cache.amazonaws.com:6379";

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}

const matches = (selector: Record<string, string>, labels: Record<string, string> | undefined) =>
  Object.keys(selector).length > 0 &&
  Object.entries(selector).every(([key, value]) => labels?.[key] === value);

describe.each(["base", "example"])("infra/k8s %s", (name) => {
  const objects = () => rendered[name]!;
  const deployment = () => named(objects(), "Deployment", "roundtrip");
  const pod = () => deployment().spec.template;
  const container = () => {
    const containers = pod().spec.containers;
    expect(containers).toHaveLength(1);
    return containers[0];
  };

  it("renders only objects that validate against the Kubernetes schemas", () => {
    expect(
      objects()
        .map((o) => o.kind)
        .sort(),
    ).toEqual(
      [
        "ConfigMap",
        "Deployment",
        "HorizontalPodAutoscaler",
        "NetworkPolicy",
        "PodDisruptionBudget",
        "Service",
        "ServiceAccount",
        // The example's in-cluster Redis, and the Secret with its URL.
        ...(name === "example" ? ["Namespace", "StatefulSet", "Service", "NetworkPolicy", "Secret"] : []),
      ].sort(),
    );
    for (const object of objects()) expect(() => validate(object), `${object.kind}`).not.toThrow();
  });

  it("probes readiness on /readyz and liveness on /healthz, at the container's named port", () => {
    const c = container();
    expect(c.ports).toEqual([
      { name: "http", containerPort: 3000, protocol: "TCP" },
      { name: "metrics", containerPort: 9464, protocol: "TCP" },
    ]);
    expect(c.readinessProbe.httpGet).toEqual({ path: "/readyz", port: "http" });
    expect(c.livenessProbe.httpGet).toEqual({ path: "/healthz", port: "http" });
  });

  it("serves /metrics on the container's metrics port, annotated for Prometheus to scrape each pod", () => {
    const data = one(objects(), "ConfigMap").data!;
    const metrics = container().ports.find((p: { name: string }) => p.name === "metrics");
    expect(String(data.METRICS_PORT)).toBe(String(metrics.containerPort));
    expect(pod().metadata.annotations).toEqual({
      "prometheus.io/scrape": "true",
      "prometheus.io/port": String(metrics.containerPort),
      "prometheus.io/path": "/metrics",
    });
    // Scraped where it runs, never through the Service that balances MCP calls.
    expect(named(objects(), "Service", "roundtrip").spec.ports).toEqual([
      expect.objectContaining({ targetPort: "http" }),
    ]);
    const config = loadConfig({ ...data, KMS_WRAPPED_KEYS: SAMPLE_WRAPPED_KEY });
    expect(config.metrics).toEqual({ host: "0.0.0.0", port: metrics.containerPort });
  });

  it("runs non-root with a read-only root, no capabilities, no escalation, and /tmp on an emptyDir", async () => {
    const spec = pod().spec;
    const c = container();
    const { stages } = await loadDockerfile();
    const imageUser = ofKind(stages.at(-1)!, "USER").at(-1)!.getArgumentsContent()!;
    expect(spec.securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: Number(imageUser.split(":")[0]),
      seccompProfile: { type: "RuntimeDefault" },
    });
    expect(c.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      capabilities: { drop: ["ALL"] },
    });
    const tmp = c.volumeMounts.find((m: { mountPath: string }) => m.mountPath === "/tmp");
    expect(spec.volumes.find((v: { name: string }) => v.name === tmp?.name)?.emptyDir).toBeDefined();
    expect(c.volumeMounts).toHaveLength(1);
    expect(spec.automountServiceAccountToken).toBe(false);
    expect(spec.hostNetwork ?? false).toBe(false);
  });

  it("requests CPU and memory and caps memory", () => {
    const { requests, limits } = container().resources;
    expect(requests.cpu).toBeDefined();
    expect(requests.memory).toBeDefined();
    expect(limits.memory).toBeDefined();
  });

  it("drains before it is killed: preStop sleep plus SHUTDOWN_TIMEOUT_MS fit in the grace period", () => {
    const c = container();
    const config = one(objects(), "ConfigMap").data!;
    const [command, seconds] = c.lifecycle.preStop.exec.command;
    expect(command).toBe("sleep");
    const needed = Number(seconds) + Number(config.SHUTDOWN_TIMEOUT_MS) / 1000;
    expect(pod().spec.terminationGracePeriodSeconds).toBeGreaterThan(needed);
  });

  it("configures the server from the generated ConfigMap, the wrapped keys and REDIS_URL from Secrets", async () => {
    const configMap = one(objects(), "ConfigMap");
    const c = container();
    expect(c.envFrom).toEqual([{ configMapRef: { name: configMap.metadata.name } }]);
    expect(configMap.metadata.name).toMatch(/^roundtrip-config-[a-z0-9]+$/);
    // The base names the Secret an operator creates; the example's generator renames it with a hash.
    const redisSecret = name === "base" ? "roundtrip-redis" : one(objects(), "Secret").metadata.name;
    expect(c.env).toEqual([
      {
        name: "KMS_WRAPPED_KEYS",
        valueFrom: { secretKeyRef: { name: "roundtrip-wrapped-keys", key: "KMS_WRAPPED_KEYS" } },
      },
      { name: "REDIS_URL", valueFrom: { secretKeyRef: { name: redisSecret, key: "redis-url" } } },
    ]);
    const data = configMap.data!;
    expect(data).not.toHaveProperty("KMS_WRAPPED_KEYS");
    expect(data).not.toHaveProperty("REDIS_URL");
    // No URL with a password anywhere in the server's Deployment, whatever field it might hide in.
    expect(JSON.stringify(deployment())).not.toMatch(/rediss?:\/\//);
    expect(data.HOST).toBe("0.0.0.0");
    expect(String(data.PORT)).toBe(String(c.ports[0].containerPort));
    const names = [...Object.keys(data), ...c.env.map((e: EnvVar) => e.name)];
    expect(await undocumentedVariables(names)).toEqual([]);
    // What the pod would get, through the server's own configuration loader.
    const redisUrl = name === "base" ? MANAGED_REDIS_URL : secretData(one(objects(), "Secret"))["redis-url"]!;
    const config = loadConfig({ ...data, KMS_WRAPPED_KEYS: SAMPLE_WRAPPED_KEY, REDIS_URL: redisUrl });
    expect(config.keys.kind).toBe("kms");
    expect(config.serverName).toBe("roundtrip");
  });

  it("selects its pods consistently: Service, PodDisruptionBudget and NetworkPolicy", () => {
    const labels = pod().metadata.labels;
    expect(deployment().spec.selector.matchLabels).toEqual(
      expect.objectContaining({ "app.kubernetes.io/name": "roundtrip" }),
    );
    expect(matches(deployment().spec.selector.matchLabels, labels)).toBe(true);
    const service = named(objects(), "Service", "roundtrip");
    expect(matches(service.spec.selector, labels)).toBe(true);
    expect(service.spec.ports).toEqual([expect.objectContaining({ targetPort: "http" })]);
    const pdb = one(objects(), "PodDisruptionBudget");
    expect(matches(pdb.spec.selector.matchLabels, labels)).toBe(true);
    expect(pdb.spec.maxUnavailable ?? pdb.spec.minAvailable).toBeDefined();
    // An empty podSelector would police every pod in the namespace instead of these.
    const policy = named(objects(), "NetworkPolicy", "roundtrip");
    expect(matches(policy.spec.podSelector.matchLabels, labels)).toBe(true);
    expect(policy.spec.policyTypes).toEqual(["Ingress", "Egress"]);
    expect(policy.spec.ingress).toEqual([
      { ports: [{ port: "http", protocol: "TCP" }] },
      { ports: [{ port: "metrics", protocol: "TCP" }] },
    ]);
    const egressPorts = policy.spec.egress.flatMap((rule: { ports: { port: number }[] }) =>
      rule.ports.map((p) => p.port),
    );
    // DNS, HTTPS (KMS, STS, the issuer) and Redis for the shared state.
    expect([...new Set(egressPorts)].sort()).toEqual([443, 53, 6379]);
  });

  it("autoscales the Deployment (autoscaling/v2) from at least its replica count", () => {
    const hpa = one(objects(), "HorizontalPodAutoscaler");
    expect(hpa.apiVersion).toBe("autoscaling/v2");
    expect(hpa.spec.scaleTargetRef).toEqual({
      apiVersion: "apps/v1",
      kind: "Deployment",
      name: deployment().metadata.name,
    });
    expect(hpa.spec.minReplicas).toBe(deployment().spec.replicas);
    expect(hpa.spec.maxReplicas).toBeGreaterThan(hpa.spec.minReplicas);
  });

  it("runs as a ServiceAccount annotated with the IAM role that may decrypt with the KMS key", () => {
    const account = one(objects(), "ServiceAccount");
    expect(pod().spec.serviceAccountName).toBe(account.metadata.name);
    expect(account.metadata.annotations?.["eks.amazonaws.com/role-arn"]).toMatch(
      /^arn:aws:iam::\d{12}:role\/.+/,
    );
  });
});

describe("infra/k8s overlays/example", () => {
  it("keeps three replicas in the base and raises them in the example", () => {
    expect(named(rendered.base!, "Deployment", "roundtrip").spec.replicas).toBe(3);
    expect(named(rendered.example!, "Deployment", "roundtrip").spec.replicas).toBe(4);
  });

  it("sets the image, the public URL, the issuer, the KMS key and the role", () => {
    const objects = rendered.example!;
    const container = named(objects, "Deployment", "roundtrip").spec.template.spec.containers[0];
    expect(container.image).toBe("registry.example.com/roundtrip-server:0.1.0");
    const data = one(objects, "ConfigMap").data!;
    expect(data.PUBLIC_URL).toBe("https://mcp.example.com/mcp");
    expect(data.KMS_KEY_ID).toMatch(/^arn:aws:kms:/);
    const role = one(objects, "ServiceAccount").metadata.annotations?.["eks.amazonaws.com/role-arn"];
    expect(role).not.toBe(
      one(rendered.base!, "ServiceAccount").metadata.annotations?.["eks.amazonaws.com/role-arn"],
    );
  });

  it("puts everything in a namespace that enforces the restricted Pod Security Standard", () => {
    const objects = rendered.example!;
    const namespace = one(objects, "Namespace");
    expect(namespace.metadata.labels?.["pod-security.kubernetes.io/enforce"]).toBe("restricted");
    for (const object of objects.filter((o) => o.kind !== "Namespace")) {
      expect(object.metadata.namespace, object.kind).toBe(namespace.metadata.name);
    }
  });
});

describe("infra/k8s overlays/example: the in-cluster Redis", () => {
  const objects = () => rendered.example!;
  const redis = () => named(objects(), "StatefulSet", "roundtrip-redis");
  const redisPod = () => redis().spec.template;
  const redisContainer = () => {
    const containers = redisPod().spec.containers;
    expect(containers).toHaveLength(1);
    return containers[0];
  };
  const serverPodLabels = () => named(objects(), "Deployment", "roundtrip").spec.template.metadata.labels;
  const secret = () => one(objects(), "Secret");
  /** The container's environment as the kubelet builds it from the rendered Secret. */
  const redisEnv = () => {
    const data = secretData(secret());
    const env: Record<string, string> = {};
    for (const variable of redisContainer().env as EnvVar[]) {
      const ref = variable.valueFrom?.secretKeyRef;
      expect(variable.value, variable.name).toBeUndefined();
      expect(ref?.name, variable.name).toBe(secret().metadata.name);
      env[variable.name] = data[ref!.key]!;
    }
    return env;
  };

  it("is reached by the URL in the Secret: its Service's name and port, the password it requires", () => {
    const data = secretData(secret());
    const target = parseRedisUrl(data["redis-url"]!);
    const service = named(objects(), "Service", target.host);
    expect(service.metadata.namespace).toBe(named(objects(), "Deployment", "roundtrip").metadata.namespace);
    expect(service.spec.ports).toEqual([expect.objectContaining({ port: target.port, targetPort: "redis" })]);
    expect(matches(service.spec.selector, redisPod().metadata.labels)).toBe(true);
    expect(matches(service.spec.selector, serverPodLabels())).toBe(false);
    expect(redisContainer().ports).toEqual([{ name: "redis", containerPort: 6379, protocol: "TCP" }]);
    const args = redisContainer().args.map((arg: string) => expandContainerVars(arg, redisEnv()));
    expect(args[args.indexOf("--requirepass") + 1]).toBe(target.password);
    expect(redisEnv().REDISCLI_AUTH).toBe(target.password);
  });

  it("ships placeholders that say to replace them, in the Secret and in the file it is generated from", async () => {
    const data = secretData(secret());
    expect(Object.keys(data).sort()).toEqual(["redis-password", "redis-url"]);
    for (const value of Object.values(data)) expect(value).toContain("REPLACE-ME");
    const source = await readRepoFile("infra", "k8s", "overlays", "example", "redis.env");
    expect(source).toMatch(/^# REPLACE BOTH VALUES before applying/);
  });

  it("keeps the password out of the manifest: the kubelet puts it into the arguments from the Secret", () => {
    const c = redisContainer();
    expect(c.args[c.args.indexOf("--requirepass") + 1]).toBe("$(REDIS_PASSWORD)");
    expect(JSON.stringify(redis())).not.toContain(secretData(secret())["redis-password"]);
  });

  it("lets only the server pods reach it, on 6379, and lets it reach nothing", () => {
    const policy = named(objects(), "NetworkPolicy", "roundtrip-redis");
    expect(matches(policy.spec.podSelector.matchLabels, redisPod().metadata.labels)).toBe(true);
    expect(matches(policy.spec.podSelector.matchLabels, serverPodLabels())).toBe(false);
    expect(policy.spec.policyTypes).toEqual(["Ingress", "Egress"]);
    expect(policy.spec.egress).toEqual([]);
    expect(policy.spec.ingress).toHaveLength(1);
    const [rule] = policy.spec.ingress;
    // A podSelector alone means this namespace only; a namespaceSelector or ipBlock would widen it.
    expect(rule.from).toHaveLength(1);
    expect(Object.keys(rule.from[0])).toEqual(["podSelector"]);
    expect(matches(rule.from[0].podSelector.matchLabels, serverPodLabels())).toBe(true);
    expect(matches(rule.from[0].podSelector.matchLabels, redisPod().metadata.labels)).toBe(false);
    const port = redisContainer().ports.find((p: { name: string }) => p.name === rule.ports[0].port);
    expect(rule.ports).toHaveLength(1);
    expect(port?.containerPort).toBe(6379);
    // And the servers' own policy sends their Redis traffic to these pods only.
    const server = named(objects(), "NetworkPolicy", "roundtrip");
    const toRedis = server.spec.egress.filter((r: { ports: { port: number }[] }) =>
      r.ports.some((p) => p.port === 6379),
    );
    expect(toRedis).toHaveLength(1);
    expect(toRedis[0].to).toHaveLength(1);
    expect(matches(toRedis[0].to[0].podSelector.matchLabels, redisPod().metadata.labels)).toBe(true);
  });

  it("runs one pod, restricted like the server: non-root, read-only root, no capabilities", () => {
    expect(redis().spec.replicas).toBe(1);
    const spec = redisPod().spec;
    expect(spec.automountServiceAccountToken).toBe(false);
    expect(spec.securityContext).toMatchObject({
      runAsNonRoot: true,
      seccompProfile: { type: "RuntimeDefault" },
    });
    expect(spec.securityContext.runAsUser).toBeGreaterThan(0);
    const c = redisContainer();
    expect(c.image).toMatch(/^redis:7(\.\d+){0,2}-bookworm$/);
    expect(c.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      capabilities: { drop: ["ALL"] },
    });
    expect(c.resources.limits.memory).toBeDefined();
  });

  it("keeps /data, where the AOF lives, on a PersistentVolumeClaim its user can write", () => {
    const c = redisContainer();
    expect(c.volumeMounts).toEqual([{ name: "data", mountPath: "/data" }]);
    // From a claim template, not a pod volume: the claim outlives the pod and follows it on rescheduling.
    expect(redisPod().spec.volumes).toBeUndefined();
    const claims = redis().spec.volumeClaimTemplates;
    expect(claims).toHaveLength(1);
    expect(claims[0].metadata.name).toBe("data");
    expect(claims[0].spec.accessModes).toEqual(["ReadWriteOnce"]);
    expect(claims[0].spec.resources.requests.storage).toBeDefined();
    // The volume belongs to root until the kubelet hands it to the group Redis runs as.
    const security = redisPod().spec.securityContext;
    expect(security.fsGroup).toBe(security.runAsGroup);
    expect(c.args).not.toContain("--save");
  });

  it("caps Redis's memory under the container's limit, so a full store refuses writes rather than being killed", () => {
    const c = redisContainer();
    const maxmemory = c.args[c.args.indexOf("--maxmemory") + 1] as string;
    const mb = /^(\d+)mb$/.exec(maxmemory);
    const mi = /^(\d+)Mi$/.exec(c.resources.limits.memory);
    expect(mb, maxmemory).not.toBeNull();
    expect(mi, c.resources.limits.memory).not.toBeNull();
    // Room for the copy-on-write of the fork that rewrites the AOF: at least a third above the cap.
    expect(Number(mi![1]) * 1024 * 1024).toBeGreaterThan(Number(mb![1]) * 1024 * 1024 * (4 / 3));
  });

  it("keeps every acknowledged write through a restart and a SIGKILL, and refuses writes when full, in a real redis-server", async () => {
    const env = redisEnv();
    const [, ...args] = redisContainer().args.map((arg: string) => expandContainerVars(arg, env));
    expectKeepsState(await measureDurability(args, env.REDIS_PASSWORD));
  }, 120_000);

  it("starts from its arguments in a real redis-server that admits the Secret's URL, and its probe sees only PONG", async () => {
    const env = redisEnv();
    const [command, ...args] = redisContainer().args.map((arg: string) => expandContainerVars(arg, env));
    expect(command).toBe("redis-server");
    const running = await startRedis(args);
    try {
      const target = parseRedisUrl(secretData(secret())["redis-url"]!);
      expect(await pingAs(running, target)).toBe("PONG");
      expect(await pingAs(running, { ...target, password: "not-the-password" })).not.toBe("PONG");
      const [shell, flag, script] = redisContainer().readinessProbe.exec.command;
      expect([shell, flag]).toEqual(["sh", "-c"]);
      const probe = (auth: string) =>
        run("/bin/sh", ["-c", script.replace("redis-cli", `${running.cli} -p ${running.port}`)], {
          env: { PATH: process.env.PATH, REDISCLI_AUTH: auth },
        }).then(
          () => "ready",
          () => "not ready",
        );
      expect(await probe(env.REDISCLI_AUTH!)).toBe("ready");
      expect(await probe("not-the-password")).toBe("not ready");
    } finally {
      await running.stop();
    }
  });
});

describe("the schema validation itself", () => {
  it("rejects a Deployment whose replica count is not a number", () => {
    const broken = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "broken" },
      spec: {
        replicas: "three",
        selector: { matchLabels: { a: "b" } },
        template: { spec: { containers: [] } },
      },
    };
    expect(() => validate(broken as K8sObject)).toThrow(/replicas must be integer/);
    expect(() => validate({ ...broken, kind: "Pod", apiVersion: "v1" } as K8sObject)).toThrow(/no schema/);
  });

  it("rejects a Secret whose data is not base64, line breaks aside", () => {
    const secret = { apiVersion: "v1", kind: "Secret", metadata: { name: "s" }, data: { key: "cmVk\naXM=" } };
    expect(() => validate(secret as K8sObject)).not.toThrow();
    expect(() => validate({ ...secret, data: { key: "redis://:pw@host" } } as K8sObject)).toThrow(
      /must match format "byte"/,
    );
  });
});
