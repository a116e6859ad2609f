import { execFile } from "node:child_process";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { loadConfig } from "@roundtrip/server";
import { ensureTool } from "@roundtrip/test-services";
import { Match, Template } from "aws-cdk-lib/assertions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CfnTemplate, packageDir, resolveValue, synthesize } from "./synth.js";

const run = promisify(execFile);

// One `cdk synth` for the whole file: it is the slow part (the app runs in a child process).
let outDir: string;
let keyJson: CfnTemplate;
let serviceJson: CfnTemplate;
let key: Template;
let service: Template;

beforeAll(async () => {
  const synth = await synthesize();
  outDir = synth.outDir;
  keyJson = synth.templates.RoundtripKey!;
  serviceJson = synth.templates.RoundtripService!;
  key = Template.fromJSON(keyJson);
  service = Template.fromJSON(serviceJson);
}, 300_000);

afterAll(async () => {
  if (outDir) await rm(outDir, { recursive: true, force: true });
});

function only<T = Record<string, unknown>>(template: CfnTemplate, type: string): T {
  const found = Object.values(template.Resources).filter((resource) => resource.Type === type);
  expect(found, type).toHaveLength(1);
  return found[0]!.Properties as T;
}

interface ContainerDefinition {
  Environment: { Name: string; Value: unknown }[];
  Secrets: { Name: string; ValueFrom: unknown }[];
  [key: string]: unknown;
}

function container(): ContainerDefinition {
  const task = only<{ ContainerDefinitions: ContainerDefinition[] }>(serviceJson, "AWS::ECS::TaskDefinition");
  expect(task.ContainerDefinitions).toHaveLength(1);
  return task.ContainerDefinitions[0]!;
}

describe("RoundtripKey", () => {
  it("creates one symmetric KMS key with yearly rotation, kept when the stack is deleted", () => {
    key.resourceCountIs("AWS::KMS::Key", 1);
    key.hasResource("AWS::KMS::Key", {
      Properties: { EnableKeyRotation: true },
      DeletionPolicy: "Retain",
      UpdateReplacePolicy: "Retain",
    });
    const props = only(keyJson, "AWS::KMS::Key");
    expect(props.KeySpec ?? "SYMMETRIC_DEFAULT").toBe("SYMMETRIC_DEFAULT");
  });

  it("names the key alias/roundtrip, the --key-id the README gives roundtrip-kms-keygen", () => {
    key.hasResourceProperties("AWS::KMS::Alias", {
      AliasName: "alias/roundtrip",
      TargetKeyId: { "Fn::GetAtt": [Match.stringLikeRegexp("^RequestStateKey"), "Arn"] },
    });
  });

  it("exports the key ARN that the service stack imports as KMS_KEY_ID", () => {
    const imported = container().Environment.find((e) => e.Name === "KMS_KEY_ID")?.Value as {
      "Fn::ImportValue": string;
    };
    const exports = Object.values(
      (keyJson.Outputs ?? {}) as Record<string, { Export?: { Name: string }; Value: unknown }>,
    );
    const exported = exports.find((output) => output.Export?.Name === imported["Fn::ImportValue"]);
    expect(exported?.Value).toEqual({ "Fn::GetAtt": [expect.stringMatching(/^RequestStateKey/), "Arn"] });
  });
});

describe("RoundtripService", () => {
  it("keeps the wrapped keys in a String SSM parameter taken from the WrappedKeys parameter", () => {
    service.hasResourceProperties("AWS::SSM::Parameter", {
      Type: "String",
      Value: { Ref: "WrappedKeys" },
      Name: "/RoundtripService/kms-wrapped-keys",
    });
    const parameter = serviceJson.Parameters?.WrappedKeys;
    expect(parameter?.Default).toBeUndefined();
    const pattern = new RegExp(parameter!.AllowedPattern!);
    // The shape roundtrip-kms-keygen prints, alone and as a rotation pair.
    const wrapped = Buffer.alloc(184, 7).toString("base64");
    expect(pattern.test(wrapped)).toBe(true);
    expect(pattern.test(`${wrapped},${wrapped}`)).toBe(true);
    expect(pattern.test("")).toBe(false);
    expect(pattern.test(`${wrapped}, ${wrapped}`)).toBe(false);
    expect(pattern.test("not base64!")).toBe(false);
  });

  it("passes the wrapped keys as an ECS secret from that parameter, never as plain environment", () => {
    const c = container();
    expect(c.Environment.map((e) => e.Name)).not.toContain("KMS_WRAPPED_KEYS");
    expect(c.Secrets).toEqual([
      {
        Name: "KMS_WRAPPED_KEYS",
        ValueFrom: {
          "Fn::Join": [
            "",
            expect.arrayContaining([":parameter", { Ref: expect.stringMatching(/^WrappedKeysParameter/) }]),
          ],
        },
      },
    ]);
  });

  it("grants the task role kms:Decrypt on the key only, with the encryption context service = ServerName", () => {
    const policies = Object.values(serviceJson.Resources).filter((r) => r.Type === "AWS::IAM::Policy");
    const taskRoleId = Object.entries(serviceJson.Resources).find(
      ([, r]) =>
        r.Type === "AWS::IAM::Role" &&
        JSON.stringify(r.Properties?.AssumeRolePolicyDocument).includes("ecs-tasks.amazonaws.com") &&
        r.Properties?.Description !== undefined,
    )?.[0];
    expect(taskRoleId).toBeDefined();
    const taskPolicies = policies.filter((p) =>
      JSON.stringify(p.Properties?.Roles).includes(`"${taskRoleId}"`),
    );
    expect(taskPolicies).toHaveLength(1);
    const statements = (taskPolicies[0]!.Properties!.PolicyDocument as { Statement: unknown[] }).Statement;
    expect(statements).toEqual([
      {
        Effect: "Allow",
        Action: "kms:Decrypt",
        Resource: { "Fn::ImportValue": expect.stringContaining("RequestStateKey") },
        Condition: { StringEquals: { "kms:EncryptionContext:service": { Ref: "ServerName" } } },
      },
    ]);
    // Nothing else in the template hands the task role KMS rights, managed policies included.
    const role = serviceJson.Resources[taskRoleId!]!.Properties!;
    expect(role.ManagedPolicyArns).toBeUndefined();
    expect(role.Policies).toBeUndefined();
    // The service name the role allows is the one the server asks KMS for.
    const env = container().Environment;
    expect(env.find((e) => e.Name === "KMS_SERVICE_NAME")?.Value).toEqual({ Ref: "ServerName" });
    expect(env.find((e) => e.Name === "SERVER_NAME")?.Value).toEqual({ Ref: "ServerName" });
  });

  it("runs at least two Fargate tasks with autoscaling from DesiredCount to MaxCount on CPU", () => {
    service.hasResourceProperties("AWS::ECS::Service", {
      LaunchType: "FARGATE",
      DesiredCount: { Ref: "DesiredCount" },
      DeploymentConfiguration: Match.objectLike({
        MinimumHealthyPercent: 100,
        DeploymentCircuitBreaker: { Enable: true, Rollback: true },
      }),
    });
    expect(serviceJson.Parameters?.DesiredCount).toMatchObject({ Type: "Number", Default: 2, MinValue: 2 });
    service.hasResourceProperties("AWS::ApplicationAutoScaling::ScalableTarget", {
      MinCapacity: { Ref: "DesiredCount" },
      MaxCapacity: { Ref: "MaxCount" },
      ScalableDimension: "ecs:service:DesiredCount",
    });
    service.hasResourceProperties("AWS::ApplicationAutoScaling::ScalingPolicy", {
      PolicyType: "TargetTrackingScaling",
      TargetTrackingScalingPolicyConfiguration: Match.objectLike({
        PredefinedMetricSpecification: { PredefinedMetricType: "ECSServiceAverageCPUUtilization" },
      }),
    });
  });

  it("puts an HTTPS ALB in front, redirects HTTP, and routes only to tasks whose /readyz is 200", () => {
    service.hasResourceProperties("AWS::ElasticLoadBalancingV2::Listener", {
      Protocol: "HTTPS",
      Port: 443,
      Certificates: [{ CertificateArn: { Ref: "CertificateArn" } }],
    });
    service.hasResourceProperties("AWS::ElasticLoadBalancingV2::Listener", {
      Protocol: "HTTP",
      Port: 80,
      DefaultActions: [
        Match.objectLike({ Type: "redirect", RedirectConfig: Match.objectLike({ Protocol: "HTTPS" }) }),
      ],
    });
    // Targets are the tasks' IPs at the container port, which the health check uses too (traffic-port).
    service.hasResourceProperties("AWS::ECS::Service", {
      LoadBalancers: [Match.objectLike({ ContainerName: "server", ContainerPort: 3000 })],
    });
    service.hasResourceProperties("AWS::ElasticLoadBalancingV2::TargetGroup", {
      TargetType: "ip",
      HealthCheckPath: "/readyz",
      Matcher: { HttpCode: "200" },
      TargetGroupAttributes: Match.arrayWith([{ Key: "deregistration_delay.timeout_seconds", Value: "30" }]),
    });
  });

  it("lets ECS (the execution role, not the task role) pull from ECR and read the wrapped-keys parameter", () => {
    const task = only<{ ExecutionRoleArn: { "Fn::GetAtt": [string, string] }; TaskRoleArn: unknown }>(
      serviceJson,
      "AWS::ECS::TaskDefinition",
    );
    const executionRoleId = task.ExecutionRoleArn["Fn::GetAtt"][0];
    expect(JSON.stringify(serviceJson.Resources[executionRoleId]!.Properties!.ManagedPolicyArns)).toContain(
      "service-role/AmazonECSTaskExecutionRolePolicy",
    );
    const policy = Object.values(serviceJson.Resources).find(
      (r) =>
        r.Type === "AWS::IAM::Policy" && JSON.stringify(r.Properties?.Roles).includes(`"${executionRoleId}"`),
    );
    expect(JSON.stringify(policy?.Properties?.PolicyDocument)).toMatch(
      /ssm:GetParameters.*WrappedKeysParameter/,
    );
  });

  it("runs the container as uid 1000 on a read-only root with /tmp writable, checking /healthz", () => {
    const c = container();
    expect(c.User).toBe("1000:1000");
    expect(c.ReadonlyRootFilesystem).toBe(true);
    expect(c.MountPoints).toEqual([{ ContainerPath: "/tmp", ReadOnly: false, SourceVolume: "tmp" }]);
    expect(JSON.stringify((c.HealthCheck as { Command: string[] }).Command)).toContain("/healthz");
    expect(c.StopTimeout).toBe(30);
    expect(c.PortMappings).toEqual([expect.objectContaining({ ContainerPort: 3000 })]);
  });

  it("sends logs to a CloudWatch log group with a 30-day retention", () => {
    const groups = Object.entries(serviceJson.Resources).filter(([, r]) => r.Type === "AWS::Logs::LogGroup");
    expect(groups).toHaveLength(1);
    expect(groups[0]![1].Properties?.RetentionInDays).toBe(30);
    expect(container().LogConfiguration).toEqual({
      LogDriver: "awslogs",
      Options: expect.objectContaining({ "awslogs-group": { Ref: groups[0]![0] } }),
    });
  });

  it("sets only variables the server documents, and each parameter reaches the container", async () => {
    const documented = new Set(
      [
        ...(await readFile(join(packageDir, "../../apps/server/.env.example"), "utf8")).matchAll(
          /^([A-Z0-9_]+)=/gm,
        ),
      ].map((m) => m[1]),
    );
    // Read by the AWS SDK, not the server; .env.example names them in a comment.
    const awsSdk = new Set(["AWS_REGION", "AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED"]);
    const c = container();
    const names = [...c.Environment.map((e) => e.Name), ...c.Secrets.map((s) => s.Name)];
    expect(names.filter((name) => !documented.has(name) && !awsSdk.has(name))).toEqual([]);
    expect(new Set(names).size).toBe(names.length);

    const used = JSON.stringify(serviceJson.Resources);
    const unused = Object.keys(serviceJson.Parameters ?? {}).filter(
      (name) => name !== "BootstrapVersion" && !used.includes(`{"Ref":"${name}"}`),
    );
    expect(unused).toEqual([]);
  });

  it("gives the server an environment its own configuration loader accepts", () => {
    const samples = {
      PublicUrl: "https://mcp.example.com/mcp",
      OAuthIssuer: "https://auth.example.com/",
      ContainerImage: "111122223333.dkr.ecr.eu-west-1.amazonaws.com/roundtrip-server:0.1.0",
      CertificateArn: "arn:aws:acm:eu-west-1:111122223333:certificate/0b4c1f2e",
    };
    const pseudo = {
      "AWS::Region": "eu-west-1",
      "Fn::ImportValue": "arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab",
    };
    for (const [name, sample] of Object.entries(samples)) {
      const pattern = serviceJson.Parameters?.[name]?.AllowedPattern;
      if (pattern !== undefined) expect(new RegExp(pattern).test(sample), name).toBe(true);
    }
    const env: Record<string, string> = {};
    for (const { Name, Value } of container().Environment) {
      env[Name] = resolveValue(Value, serviceJson, samples, pseudo);
    }
    env.KMS_WRAPPED_KEYS = Buffer.alloc(184, 7).toString("base64");
    const config = loadConfig(env);
    expect(config.publicUrl).toBe(samples.PublicUrl);
    expect(config.serverName).toBe("roundtrip");
    expect(config.keys.kind).toBe("kms");
  });

  it("passes cfn-lint", async () => {
    // W3005: CDK adds a DependsOn from the ECS service to its listener that a Ref already implies.
    const result = await run(
      await ensureTool("cfn-lint"),
      [
        "--ignore-checks",
        "W3005",
        "--",
        join(outDir, "RoundtripKey.template.json"),
        join(outDir, "RoundtripService.template.json"),
      ],
      { maxBuffer: 16 * 1024 * 1024 },
    ).catch((error: { code?: number; stdout?: string }) => error);
    expect("stdout" in result ? result.stdout : "").toBe("");
    expect("code" in result ? result.code : 0).toBe(0);
  });
});

describe("cdk.json", () => {
  it("turns CLI telemetry and notices off, so synth and deploy call no one but AWS", async () => {
    const cdk = JSON.parse(await readFile(join(packageDir, "cdk.json"), "utf8")) as {
      notices?: boolean;
      context?: Record<string, unknown>;
    };
    expect(cdk.notices).toBe(false);
    expect(cdk.context?.["cli-telemetry"]).toBe(false);
  });
});
