import { loadConfig } from "@roundtrip/server";
import { beforeAll, describe, expect, it } from "vitest";
import { loadDockerfile, ofKind } from "../src/dockerfile.js";
import { type K8sObject, kustomize, one, validate } from "../src/kubernetes.js";
import { AWS_SDK_VARIABLES, documentedServerVariables, SAMPLE_WRAPPED_KEY } from "../src/repo.js";

const rendered: Record<string, K8sObject[]> = {};

beforeAll(async () => {
  [rendered.base, rendered.example] = await Promise.all([kustomize("base"), kustomize("overlays/example")]);
});

const matches = (selector: Record<string, string>, labels: Record<string, string> | undefined) =>
  Object.keys(selector).length > 0 &&
  Object.entries(selector).every(([key, value]) => labels?.[key] === value);

describe.each(["base", "example"])("infra/k8s %s", (name) => {
  const objects = () => rendered[name]!;
  const deployment = () => one(objects(), "Deployment");
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
        ...(name === "example" ? ["Namespace"] : []),
      ].sort(),
    );
    for (const object of objects()) expect(() => validate(object), `${object.kind}`).not.toThrow();
  });

  it("probes readiness on /readyz and liveness on /healthz, at the container's named port", () => {
    const c = container();
    expect(c.ports).toEqual([{ name: "http", containerPort: 3000, protocol: "TCP" }]);
    expect(c.readinessProbe.httpGet).toEqual({ path: "/readyz", port: "http" });
    expect(c.livenessProbe.httpGet).toEqual({ path: "/healthz", port: "http" });
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

  it("configures the server from the generated ConfigMap and the wrapped keys from a Secret", async () => {
    const configMap = one(objects(), "ConfigMap");
    const c = container();
    expect(c.envFrom).toEqual([{ configMapRef: { name: configMap.metadata.name } }]);
    expect(configMap.metadata.name).toMatch(/^roundtrip-config-[a-z0-9]+$/);
    expect(c.env).toEqual([
      {
        name: "KMS_WRAPPED_KEYS",
        valueFrom: { secretKeyRef: { name: "roundtrip-wrapped-keys", key: "KMS_WRAPPED_KEYS" } },
      },
    ]);
    const data = configMap.data!;
    expect(data).not.toHaveProperty("KMS_WRAPPED_KEYS");
    expect(data.HOST).toBe("0.0.0.0");
    expect(String(data.PORT)).toBe(String(c.ports[0].containerPort));
    const documented = await documentedServerVariables();
    expect(Object.keys(data).filter((key) => !documented.has(key) && !AWS_SDK_VARIABLES.has(key))).toEqual(
      [],
    );
    // What the pod would get, through the server's own configuration loader.
    const config = loadConfig({ ...data, KMS_WRAPPED_KEYS: SAMPLE_WRAPPED_KEY });
    expect(config.keys.kind).toBe("kms");
    expect(config.serverName).toBe("roundtrip");
  });

  it("selects its pods consistently: Service, PodDisruptionBudget and NetworkPolicy", () => {
    const labels = pod().metadata.labels;
    expect(deployment().spec.selector.matchLabels).toEqual(
      expect.objectContaining({ "app.kubernetes.io/name": "roundtrip" }),
    );
    expect(matches(deployment().spec.selector.matchLabels, labels)).toBe(true);
    const service = one(objects(), "Service");
    expect(matches(service.spec.selector, labels)).toBe(true);
    expect(service.spec.ports).toEqual([expect.objectContaining({ targetPort: "http" })]);
    const pdb = one(objects(), "PodDisruptionBudget");
    expect(matches(pdb.spec.selector.matchLabels, labels)).toBe(true);
    expect(pdb.spec.maxUnavailable ?? pdb.spec.minAvailable).toBeDefined();
    // An empty podSelector would police every pod in the namespace instead of these.
    const policy = one(objects(), "NetworkPolicy");
    expect(matches(policy.spec.podSelector.matchLabels, labels)).toBe(true);
    expect(policy.spec.policyTypes).toEqual(["Ingress", "Egress"]);
    expect(policy.spec.ingress).toEqual([{ ports: [{ port: "http", protocol: "TCP" }] }]);
    const egressPorts = policy.spec.egress.flatMap((rule: { ports: { port: number }[] }) =>
      rule.ports.map((p) => p.port),
    );
    expect([...new Set(egressPorts)].sort()).toEqual([443, 53]);
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
    expect(one(rendered.base!, "Deployment").spec.replicas).toBe(3);
    expect(one(rendered.example!, "Deployment").spec.replicas).toBe(4);
  });

  it("sets the image, the public URL, the issuer, the KMS key and the role", () => {
    const objects = rendered.example!;
    const container = one(objects, "Deployment").spec.template.spec.containers[0];
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
});
