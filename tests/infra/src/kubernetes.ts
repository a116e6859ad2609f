import { ensureTool } from "@roundtrip/test-services";
import { Deployment, StatefulSet } from "kubernetes-models/apps/v1";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2";
import { NetworkPolicy } from "kubernetes-models/networking.k8s.io/v1";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { ConfigMap, Namespace, Secret, Service, ServiceAccount } from "kubernetes-models/v1";
import { parseAllDocuments } from "yaml";
import { repoPath, run } from "./repo.js";

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  // biome-ignore lint/suspicious/noExplicitAny: rendered manifests are checked field by field in the tests
  spec?: any;
  data?: Record<string, string>;
  automountServiceAccountToken?: boolean;
}

/** The schema for each kind the templates may render; anything else is a mistake the tests report. */
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  "apps/v1/Deployment": Deployment,
  "apps/v1/StatefulSet": StatefulSet,
  "autoscaling/v2/HorizontalPodAutoscaler": HorizontalPodAutoscaler,
  "networking.k8s.io/v1/NetworkPolicy": NetworkPolicy,
  "policy/v1/PodDisruptionBudget": PodDisruptionBudget,
  "v1/ConfigMap": ConfigMap,
  "v1/Namespace": Namespace,
  "v1/Secret": Secret,
  "v1/Service": Service,
  "v1/ServiceAccount": ServiceAccount,
};

/** Validates one object against the Kubernetes OpenAPI schema of its kind (kubernetes-models). */
export function validate(object: K8sObject): void {
  const Model = MODELS[`${object.apiVersion}/${object.kind}`];
  if (Model === undefined) throw new Error(`no schema for ${object.apiVersion} ${object.kind}`);
  new Model(asTheApiServerReadsIt(object) as never).validate();
}

/**
 * kustomize wraps a long Secret value's base64 over several lines; the API server's decoder (Go's
 * base64, through encoding/json) skips those line breaks, the schema's "byte" format does not.
 */
function asTheApiServerReadsIt(object: K8sObject): K8sObject {
  if (object.apiVersion !== "v1" || object.kind !== "Secret" || object.data === undefined) return object;
  const data = Object.fromEntries(
    Object.entries(object.data).map(([key, value]) => [key, value.replace(/[\r\n]/g, "")]),
  );
  return { ...object, data };
}

/** `kubectl kustomize <dir>`: what `kubectl apply -k <dir>` would send. */
export async function kustomize(dir: string): Promise<K8sObject[]> {
  const { stdout } = await run(await ensureTool("kubectl"), ["kustomize", repoPath("infra", "k8s", dir)], {
    maxBuffer: 8 * 1024 * 1024,
  });
  return parseAllDocuments(stdout).map((document) => document.toJS() as K8sObject);
}

export function one(objects: K8sObject[], kind: string): K8sObject {
  const found = objects.filter((object) => object.kind === kind);
  if (found.length !== 1) throw new Error(`expected one ${kind}, rendered ${found.length}`);
  return found[0]!;
}

export function named(objects: K8sObject[], kind: string, name: string): K8sObject {
  const found = objects.filter((object) => object.kind === kind && object.metadata.name === name);
  if (found.length !== 1) throw new Error(`expected one ${kind} ${name}, rendered ${found.length}`);
  return found[0]!;
}

/** A Secret's `data` as the pod reads it (kustomize writes base64, wrapped over lines). */
export function secretData(secret: K8sObject): Record<string, string> {
  return Object.fromEntries(
    Object.entries(secret.data ?? {}).map(([key, value]) => [
      key,
      Buffer.from(value, "base64").toString("utf8"),
    ]),
  );
}

/**
 * The kubelet's expansion of `$(NAME)` in a container's command and args from its environment:
 * `$$(NAME)` stays literal, and a name the container does not define is left as written.
 */
export function expandContainerVars(arg: string, env: Readonly<Record<string, string>>): string {
  return arg.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (whole, name?: string) =>
    whole === "$$" ? "$" : (env[name!] ?? whole),
  );
}
