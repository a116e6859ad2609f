import { ensureTool } from "@roundtrip/test-services";
import { Deployment } from "kubernetes-models/apps/v1";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2";
import { NetworkPolicy } from "kubernetes-models/networking.k8s.io/v1";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { ConfigMap, Namespace, Service, ServiceAccount } from "kubernetes-models/v1";
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
  "autoscaling/v2/HorizontalPodAutoscaler": HorizontalPodAutoscaler,
  "networking.k8s.io/v1/NetworkPolicy": NetworkPolicy,
  "policy/v1/PodDisruptionBudget": PodDisruptionBudget,
  "v1/ConfigMap": ConfigMap,
  "v1/Namespace": Namespace,
  "v1/Service": Service,
  "v1/ServiceAccount": ServiceAccount,
};

/** Validates one object against the Kubernetes OpenAPI schema of its kind (kubernetes-models). */
export function validate(object: K8sObject): void {
  const Model = MODELS[`${object.apiVersion}/${object.kind}`];
  if (Model === undefined) throw new Error(`no schema for ${object.apiVersion} ${object.kind}`);
  new Model(object as never).validate();
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
