import { execFile } from "node:child_process";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { loadConfig } from "@roundtrip/server";
import { ensureTool } from "@roundtrip/test-services";
import { App } from "aws-cdk-lib";
import { Match, Template } from "aws-cdk-lib/assertions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addRoundtripStacks } from "../src/roundtrip-app.js";
import { type CfnTemplate, packageDir, resolveSecretReferences, resolveValue, synthesize } from "./synth.js";

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

function containers(template: CfnTemplate = serviceJson): ContainerDefinition[] {
  return only<{ ContainerDefinitions: ContainerDefinition[] }>(template, "AWS::ECS::TaskDefinition")
    .ContainerDefinitions;
}

/** The task's containers: the server, and the OpenTelemetry collector beside it. */
function container(template: CfnTemplate = serviceJson, name = "server"): ContainerDefinition {
  const found = containers(template).filter((c) => c.Name === name);
  expect(found, name).toHaveLength(1);
  return found[0]!;
}

/** The task role: the one ECS tasks assume that the stack describes (the execution role has none). */
function taskRole(): string {
  const id = Object.entries(serviceJson.Resources).find(
    ([, r]) =>
      r.Type === "AWS::IAM::Role" &&
      JSON.stringify(r.Properties?.AssumeRolePolicyDocument).includes("ecs-tasks.amazonaws.com") &&
      r.Properties?.Description !== undefined,
  )?.[0];
  expect(id).toBeDefined();
  return id!;
}

interface Statement {
  Action: unknown;
  Resource: unknown;
  [key: string]: unknown;
}

/** Every statement of the policies attached to the task role. */
function taskRoleStatements(): Statement[] {
  const id = taskRole();
  const policies = Object.values(serviceJson.Resources).filter(
    (r) => r.Type === "AWS::IAM::Policy" && JSON.stringify(r.Properties?.Roles).includes(`"${id}"`),
  );
  expect(policies).toHaveLength(1);
  return policies.flatMap((p) => (p.Properties!.PolicyDocument as { Statement: Statement[] }).Statement);
}

/** The log group the collector writes metrics to: the one besides the server's logs. */
function onlyMetricsGroup(): string {
  const ids = Object.entries(serviceJson.Resources)
    .filter(([id, r]) => r.Type === "AWS::Logs::LogGroup" && id.startsWith("MetricsLogs"))
    .map(([id]) => id);
  expect(ids).toHaveLength(1);
  return ids[0]!;
}

/** Sample names for the stack's log groups, as CloudFormation would report them by Ref. */
function logGroupNames(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(serviceJson.Resources)
      .filter(([, r]) => r.Type === "AWS::Logs::LogGroup")
      .map(([id]) => [id, `${id.replace(/[A-F0-9]{8}$/, "")}-sample`]),
  );
}

/** The one resource of `type`, with its logical id. */
function onlyEntry(template: CfnTemplate, type: string) {
  const found = Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);
  expect(found, type).toHaveLength(1);
  return { id: found[0]![0], properties: found[0]![1].Properties! };
}

/** Sample values for what only exists once deployed: the REDIS_URL secret and the Redis endpoint. */
const DEPLOYED = {
  token: "a".repeat(32) + "B".repeat(32),
  tokenArn: "arn:aws:secretsmanager:eu-west-1:111122223333:secret:RedisAuthToken-AbCdEf",
  address: "master.roundtrip-redis.abc123.euw1.cache.amazonaws.com",
  port: "6379",
};

/** The REDIS_URL the tasks would get: the URL secret's value as CloudFormation assembles it. */
function deployedRedisUrl(template: CfnTemplate): string {
  const urlSecretId = (
    container(template).Secrets.find((s) => s.Name === "REDIS_URL")!.ValueFrom as { Ref: string }
  ).Ref;
  const redisId = onlyEntry(template, "AWS::ElastiCache::ReplicationGroup").id;
  const tokenId = (
    (template.Resources[redisId]!.Properties!.AuthToken as { "Fn::Join": [string, unknown[]] })[
      "Fn::Join"
    ][1][1] as {
      Ref: string;
    }
  ).Ref;
  const resolved = resolveValue(
    template.Resources[urlSecretId]!.Properties!.SecretString,
    template,
    {},
    {
      [tokenId]: DEPLOYED.tokenArn,
      [`${redisId}.PrimaryEndPoint.Address`]: DEPLOYED.address,
      [`${redisId}.PrimaryEndPoint.Port`]: DEPLOYED.port,
    },
  );
  return resolveSecretReferences(resolved, { [DEPLOYED.tokenArn]: DEPLOYED.token });
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

  it("passes the wrapped keys and REDIS_URL as ECS secrets, never as plain environment", () => {
    const c = container();
    expect(c.Environment.map((e) => e.Name)).not.toContain("KMS_WRAPPED_KEYS");
    expect(c.Environment.map((e) => e.Name)).not.toContain("REDIS_URL");
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
      { Name: "REDIS_URL", ValueFrom: { Ref: expect.stringMatching(/^RedisUrl/) } },
    ]);
    // Nor under another name: no environment value is a Redis URL or reads a secret.
    expect(JSON.stringify(c.Environment)).not.toMatch(
      /rediss?:|resolve:secretsmanager|RedisAuthToken|RedisUrl/,
    );
  });

  it("grants the task role kms:Decrypt on the key only, with the encryption context service = ServerName", () => {
    const taskRoleId = taskRole();
    // The collector's X-Ray and metrics-group rights sit beside it; none of them is a KMS right.
    const statements = taskRoleStatements().filter((st) => JSON.stringify(st).includes("kms:"));
    expect(statements).toEqual([
      {
        Effect: "Allow",
        Action: "kms:Decrypt",
        Resource: { "Fn::ImportValue": expect.stringContaining("RequestStateKey") },
        Condition: { StringEquals: { "kms:EncryptionContext:service": { Ref: "ServerName" } } },
      },
    ]);
    // Nothing else in the template hands the task role KMS rights, managed policies included.
    const role = serviceJson.Resources[taskRoleId]!.Properties!;
    expect(role.ManagedPolicyArns).toBeUndefined();
    expect(role.Policies).toBeUndefined();
    // The service name the role allows is the one the server asks KMS for.
    const env = container().Environment;
    expect(env.find((e) => e.Name === "KMS_SERVICE_NAME")?.Value).toEqual({ Ref: "ServerName" });
    expect(env.find((e) => e.Name === "SERVER_NAME")?.Value).toEqual({ Ref: "ServerName" });
  });

  it("has every once-round write wait for a replica, since ElastiCache keeps no append-only file", () => {
    expect(container().Environment.find((e) => e.Name === "REDIS_REPLICA_ACKS")?.Value).toBe("1");
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
    const groups = Object.entries(serviceJson.Resources).filter(
      ([id, r]) => r.Type === "AWS::Logs::LogGroup" && !id.startsWith("MetricsLogs"),
    );
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
    // Read by the AWS SDK and the OpenTelemetry SDK, not the server; .env.example names them in comments.
    const example = await readFile(join(packageDir, "../../apps/server/.env.example"), "utf8");
    const readByLibraries = (name: string) =>
      (name === "AWS_REGION" || name.startsWith("OTEL_")) && example.includes(name);
    const c = container();
    const names = [...c.Environment.map((e) => e.Name), ...c.Secrets.map((s) => s.Name)];
    expect(names.filter((name) => !documented.has(name) && !readByLibraries(name))).toEqual([]);
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
    env.REDIS_URL = deployedRedisUrl(serviceJson);
    const config = loadConfig(env);
    expect(config.publicUrl).toBe(samples.PublicUrl);
    expect(config.serverName).toBe("roundtrip");
    expect(config.keys.kind).toBe("kms");
    expect(config.redis?.url).toMatch(/^rediss:\/\//);
    // ElastiCache keeps no append-only file: without waiting for its replica the server refuses it.
    expect(config.redis?.replicaAcks).toEqual({ replicas: 1, timeoutMs: 1000 });
  });

  it("runs an OTLP collector beside the server: spans to X-Ray, metrics to its own log group, no scrape port", () => {
    expect(
      containers()
        .map((c) => c.Name)
        .sort(),
    ).toEqual(["otel-collector", "server"]);
    const collector = container(serviceJson, "otel-collector");
    expect(collector.Essential).toBe(false);
    expect(collector.PortMappings).toBeUndefined();
    const config = resolveValue(
      collector.Environment.find((e) => e.Name === "AOT_CONFIG_CONTENT")?.Value,
      serviceJson,
      {},
      { "AWS::Region": "eu-west-1", ...logGroupNames() },
    );
    expect(config).toContain("endpoint: 127.0.0.1:4318");
    expect(config).toMatch(/awsxray:\n {4}region: eu-west-1/);
    expect(config).toContain("log_group_name: MetricsLogs-sample");

    const server = container();
    const env = Object.fromEntries(server.Environment.map((e) => [e.Name, e.Value]));
    expect(env.OTEL_EXPORTER_OTLP_ENDPOINT).toBe("http://127.0.0.1:4318");
    expect(env.OTEL_EXPORTER_OTLP_PROTOCOL).toBe("http/protobuf");
    // Prometheus stays off: metrics leave by OTLP and the task opens no scrape port.
    expect(env.METRICS_PORT).toBeUndefined();
    expect(server.DependsOn).toEqual([{ ContainerName: "otel-collector", Condition: "START" }]);

    const metricsGroupId = onlyMetricsGroup();
    const statements = taskRoleStatements();
    const logs = statements.find((st) => JSON.stringify(st.Action).includes("logs:PutLogEvents"));
    expect(JSON.stringify(logs?.Resource)).toContain(metricsGroupId);
    const xray = statements.find((st) => JSON.stringify(st.Action).includes("xray:PutTraceSegments"));
    expect(xray?.Resource).toBe("*");
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

describe("RoundtripService: the shared Redis", () => {
  it("is a Valkey replication group with TLS in transit, encryption at rest and an AUTH token from a generated secret", () => {
    service.resourceCountIs("AWS::ElastiCache::ReplicationGroup", 1);
    service.resourceCountIs("AWS::ElastiCache::CacheCluster", 0);
    const { properties } = onlyEntry(serviceJson, "AWS::ElastiCache::ReplicationGroup");
    expect(properties).toMatchObject({
      Engine: "valkey",
      TransitEncryptionEnabled: true,
      AtRestEncryptionEnabled: true,
      Port: 6379,
    });
    expect(properties.TransitEncryptionMode ?? "required").toBe("required");
    // A dynamic reference to a secret of this stack, which generates its value.
    const token = properties.AuthToken as { "Fn::Join": [string, unknown[]] };
    expect(token).toEqual({
      "Fn::Join": ["", ["{{resolve:secretsmanager:", { Ref: expect.any(String) }, ":SecretString:::}}"]],
    });
    const tokenId = (token["Fn::Join"][1][1] as { Ref: string }).Ref;
    const secret = serviceJson.Resources[tokenId]!;
    expect(secret.Type).toBe("AWS::SecretsManager::Secret");
    expect(secret.Properties?.SecretString).toBeUndefined();
    // ElastiCache takes 16 to 128 characters, and the URL needs no escaping: letters and digits.
    const generate = secret.Properties?.GenerateSecretString as {
      PasswordLength: number;
      ExcludePunctuation: boolean;
    };
    expect(generate.ExcludePunctuation).toBe(true);
    expect(generate.PasswordLength).toBeGreaterThanOrEqual(32);
    expect(generate.PasswordLength).toBeLessThanOrEqual(128);
  });

  it("runs a primary and a replica across AZs with automatic failover, and more replicas on request", () => {
    expect(onlyEntry(serviceJson, "AWS::ElastiCache::ReplicationGroup").properties).toMatchObject({
      NumCacheClusters: 2,
      AutomaticFailoverEnabled: true,
      MultiAZEnabled: true,
    });
    // Its subnet group spans both AZs, or multi-AZ would have nowhere to put the replica.
    const subnetGroupId = (
      onlyEntry(serviceJson, "AWS::ElastiCache::ReplicationGroup").properties.CacheSubnetGroupName as {
        Ref: string;
      }
    ).Ref;
    const subnetIds = serviceJson.Resources[subnetGroupId]!.Properties!.SubnetIds as { Ref: string }[];
    expect(subnetIds).toHaveLength(2);
    const zones = subnetIds.map(({ Ref }) =>
      JSON.stringify(serviceJson.Resources[Ref]!.Properties!.AvailabilityZone),
    );
    expect(new Set(zones).size).toBe(2);

    const app = new App({ context: { redisReplicas: "3" } });
    const more = Template.fromStack(addRoundtripStacks(app).serviceStack);
    more.hasResourceProperties("AWS::ElastiCache::ReplicationGroup", {
      NumCacheClusters: 4,
      AutomaticFailoverEnabled: true,
      MultiAZEnabled: true,
      TransitEncryptionEnabled: true,
      AtRestEncryptionEnabled: true,
    });
  });

  it("refuses a replica count that would leave one copy, or that ElastiCache cannot run, naming the setting", () => {
    for (const redisReplicas of ["0", "6", "two", "1.5"]) {
      expect(() => addRoundtripStacks(new App({ context: { redisReplicas } })), redisReplicas).toThrow(
        /redisReplicas .*from 1 to 5/,
      );
    }
    // The switch that used to allow a single node is refused rather than silently ignored.
    expect(() => addRoundtripStacks(new App({ context: { redisHighAvailability: "false" } }))).toThrow(
      /redisHighAvailability is gone.*redisReplicas/,
    );
  });

  it("uses its own parameter group, for its engine, that refuses writes when full instead of evicting", () => {
    const { properties } = onlyEntry(serviceJson, "AWS::ElastiCache::ReplicationGroup");
    const groupId = (properties.CacheParameterGroupName as { Ref: string }).Ref;
    const group = serviceJson.Resources[groupId]!;
    expect(group.Type).toBe("AWS::ElastiCache::ParameterGroup");
    expect(group.Properties).toMatchObject({
      CacheParameterGroupFamily: `${properties.Engine}${String(properties.EngineVersion).split(".")[0]}`,
      Properties: { "maxmemory-policy": "noeviction" },
    });
    // Nothing else in it: every other setting stays ElastiCache's default for the family.
    expect(Object.keys(group.Properties!.Properties as object)).toEqual(["maxmemory-policy"]);
  });

  it("keeps a week of daily snapshots, a way back after losing the whole group", () => {
    expect(
      onlyEntry(serviceJson, "AWS::ElastiCache::ReplicationGroup").properties.SnapshotRetentionLimit,
    ).toBe(7);
  });

  it("lives in the private subnets the service runs in", () => {
    const { properties } = onlyEntry(serviceJson, "AWS::ElastiCache::ReplicationGroup");
    const subnetGroupId = (properties.CacheSubnetGroupName as { Ref: string }).Ref;
    const subnetIds = serviceJson.Resources[subnetGroupId]!.Properties!.SubnetIds as { Ref: string }[];
    const ecsService = onlyEntry(serviceJson, "AWS::ECS::Service").properties as {
      NetworkConfiguration: { AwsvpcConfiguration: { Subnets: { Ref: string }[]; AssignPublicIp: string } };
    };
    expect(subnetIds).toEqual(ecsService.NetworkConfiguration.AwsvpcConfiguration.Subnets);
    expect(ecsService.NetworkConfiguration.AwsvpcConfiguration.AssignPublicIp).toBe("DISABLED");
    for (const { Ref } of subnetIds) {
      const subnet = serviceJson.Resources[Ref]!;
      expect(subnet.Type).toBe("AWS::EC2::Subnet");
      expect(subnet.Properties?.MapPublicIpOnLaunch).toBe(false);
      // Its default route goes to the NAT gateway, not the internet gateway: private, not public.
      const tables = Object.values(serviceJson.Resources).filter(
        (r) =>
          r.Type === "AWS::EC2::SubnetRouteTableAssociation" &&
          JSON.stringify(r.Properties?.SubnetId) === JSON.stringify({ Ref }),
      );
      expect(tables).toHaveLength(1);
      const tableRef = (tables[0]!.Properties!.RouteTableId as { Ref: string }).Ref;
      const routes = Object.values(serviceJson.Resources).filter(
        (r) =>
          r.Type === "AWS::EC2::Route" &&
          JSON.stringify(r.Properties?.RouteTableId) === JSON.stringify({ Ref: tableRef }),
      );
      expect(routes.map((r) => Object.keys(r.Properties!).filter((k) => k.endsWith("GatewayId")))).toEqual([
        ["NatGatewayId"],
      ]);
    }
  });

  it("admits 6379 only from the service's security group, and opens nothing else", () => {
    const { properties } = onlyEntry(serviceJson, "AWS::ElastiCache::ReplicationGroup");
    const groups = properties.SecurityGroupIds as { "Fn::GetAtt": [string, string] }[];
    expect(groups).toHaveLength(1);
    const redisGroupId = groups[0]!["Fn::GetAtt"][0];
    const redisGroup = serviceJson.Resources[redisGroupId]!.Properties!;
    expect(redisGroup.SecurityGroupIngress).toBeUndefined();
    // allowAllOutbound: false, which the CDK writes as a rule that matches no traffic.
    expect(redisGroup.SecurityGroupEgress).toEqual([
      expect.objectContaining({ CidrIp: "255.255.255.255/32", Description: "Disallow all traffic" }),
    ]);
    const ingress = Object.values(serviceJson.Resources).filter(
      (r) =>
        r.Type === "AWS::EC2::SecurityGroupIngress" &&
        JSON.stringify(r.Properties?.GroupId) === JSON.stringify({ "Fn::GetAtt": [redisGroupId, "GroupId"] }),
    );
    const ecsService = onlyEntry(serviceJson, "AWS::ECS::Service").properties as {
      NetworkConfiguration: { AwsvpcConfiguration: { SecurityGroups: unknown[] } };
    };
    expect(ecsService.NetworkConfiguration.AwsvpcConfiguration.SecurityGroups).toHaveLength(1);
    expect(ingress.map((r) => r.Properties)).toEqual([
      expect.objectContaining({
        IpProtocol: "tcp",
        FromPort: 6379,
        ToPort: 6379,
        SourceSecurityGroupId: ecsService.NetworkConfiguration.AwsvpcConfiguration.SecurityGroups[0],
      }),
    ]);
    expect(ingress[0]!.Properties).not.toHaveProperty("CidrIp");
    expect(ingress[0]!.Properties).not.toHaveProperty("CidrIpv6");
  });

  it("hands the tasks REDIS_URL as rediss://:<token>@<primary endpoint>:<port>, read by the execution role only", () => {
    const url = new URL(deployedRedisUrl(serviceJson));
    expect(url.protocol).toBe("rediss:");
    expect(url.username).toBe("");
    expect(decodeURIComponent(url.password)).toBe(DEPLOYED.token);
    expect(url.hostname).toBe(DEPLOYED.address);
    expect(url.port).toBe(DEPLOYED.port);
    // The URL secret is written by CloudFormation, not generated, and the token never in plain text.
    const urlSecretId = (
      container().Secrets.find((s) => s.Name === "REDIS_URL")!.ValueFrom as { Ref: string }
    ).Ref;
    const urlSecret = serviceJson.Resources[urlSecretId]!.Properties!;
    expect(urlSecret.GenerateSecretString).toBeUndefined();
    expect(JSON.stringify(serviceJson)).not.toContain(DEPLOYED.token);
    const task = only<{
      ExecutionRoleArn: { "Fn::GetAtt": [string, string] };
      TaskRoleArn: { "Fn::GetAtt": [string, string] };
    }>(serviceJson, "AWS::ECS::TaskDefinition");
    const readers = Object.values(serviceJson.Resources).filter(
      (r) =>
        r.Type === "AWS::IAM::Policy" &&
        JSON.stringify(r.Properties?.PolicyDocument).includes(`{"Ref":"${urlSecretId}"}`),
    );
    expect(readers).toHaveLength(1);
    expect(readers[0]!.Properties!.Roles).toEqual([{ Ref: task.ExecutionRoleArn["Fn::GetAtt"][0] }]);
    expect(JSON.stringify(readers[0]!.Properties!.PolicyDocument)).toContain("secretsmanager:GetSecretValue");
    // Nobody reads the token's own secret at run time: ElastiCache gets it from CloudFormation.
    const tokenId = (
      (
        onlyEntry(serviceJson, "AWS::ElastiCache::ReplicationGroup").properties.AuthToken as {
          "Fn::Join": [string, unknown[]];
        }
      )["Fn::Join"][1][1] as { Ref: string }
    ).Ref;
    const tokenReaders = Object.values(serviceJson.Resources).filter(
      (r) =>
        r.Type === "AWS::IAM::Policy" &&
        JSON.stringify(r.Properties?.PolicyDocument).includes(`"${tokenId}"`),
    );
    expect(tokenReaders).toEqual([]);
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
