import {
  CfnOutput,
  CfnParameter,
  Duration,
  Fn,
  RemovalPolicy,
  SecretValue,
  Stack,
  type StackProps,
} from "aws-cdk-lib";
import * as acm from "aws-cdk-lib/aws-certificatemanager";
import * as ec2 from "aws-cdk-lib/aws-ec2";
import * as ecs from "aws-cdk-lib/aws-ecs";
import * as ecsPatterns from "aws-cdk-lib/aws-ecs-patterns";
import * as elasticache from "aws-cdk-lib/aws-elasticache";
import * as elbv2 from "aws-cdk-lib/aws-elasticloadbalancingv2";
import * as iam from "aws-cdk-lib/aws-iam";
import type * as kms from "aws-cdk-lib/aws-kms";
import * as logs from "aws-cdk-lib/aws-logs";
import * as secretsmanager from "aws-cdk-lib/aws-secretsmanager";
import * as ssm from "aws-cdk-lib/aws-ssm";
import type { Construct } from "constructs";
import { addOtelCollector } from "./otel-collector.js";

export interface ServiceStackProps extends StackProps {
  /** The key the wrapped data keys were minted under (KeyStack). */
  readonly key: kms.IKey;
  /**
   * Read replicas beside the shared Redis's primary, spread over the AZs, any of which ElastiCache
   * promotes when the primary fails (1 to 5; 1 by default). ElastiCache has no AOF: the replicas are
   * what keeps the fleet's state through the loss of a node.
   */
  readonly redisReplicas?: number;
}

/** The port the container listens on; the ALB and the health checks use it too. */
export const CONTAINER_PORT = 3000;
/** The VPC's range (CDK's default, written out): the ALB connects to the tasks from inside it. */
const VPC_CIDR = "10.0.0.0/16";

export const REDIS_PORT = 6379;

/**
 * The Roundtrip reference server on ECS Fargate behind an HTTPS Application Load Balancer. Every
 * server setting is a CloudFormation parameter, so one synthesized template serves every environment.
 */
export class ServiceStack extends Stack {
  constructor(scope: Construct, id: string, props: ServiceStackProps) {
    super(scope, id, props);
    const p = parameters(this);

    // The wrapped keys are ciphertext that only kms:Decrypt on the key, with the service's encryption
    // context, can open, so a String parameter is enough; CloudFormation cannot create SecureString
    // parameters anyway. The parameter is the record of which keys are live; tasks read it at start.
    const wrappedKeys = new ssm.StringParameter(this, "WrappedKeysParameter", {
      parameterName: `/${this.stackName}/kms-wrapped-keys`,
      description: "KMS_WRAPPED_KEYS: wrapped data keys from roundtrip-kms-keygen, newest first",
      stringValue: p.wrappedKeys.valueAsString,
    });

    const vpc = new ec2.Vpc(this, "Vpc", {
      ipAddresses: ec2.IpAddresses.cidr(VPC_CIDR),
      maxAzs: 2,
      natGateways: 1,
    });
    const cluster = new ecs.Cluster(this, "Cluster", {
      vpc,
      containerInsightsV2: ecs.ContainerInsights.ENABLED,
    });

    const redis = sharedRedis(this, vpc, props.redisReplicas ?? 1);

    const logGroup = new logs.LogGroup(this, "ServerLogs", {
      retention: logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });

    const taskRole = new iam.Role(this, "TaskRole", {
      assumedBy: new iam.ServicePrincipal("ecs-tasks.amazonaws.com"),
      description: "Roundtrip server tasks: may only unwrap this service's requestState keys",
    });
    // Decrypt only, only this key, only for keys minted with --service <ServerName>: a task cannot
    // mint keys, and cannot open data keys wrapped for another service under the same KMS key.
    taskRole.addToPolicy(
      new iam.PolicyStatement({
        actions: ["kms:Decrypt"],
        resources: [props.key.keyArn],
        conditions: { StringEquals: { "kms:EncryptionContext:service": p.serverName.valueAsString } },
      }),
    );

    const taskDefinition = new ecs.FargateTaskDefinition(this, "TaskDefinition", {
      cpu: 512,
      memoryLimitMiB: 1024,
      taskRole,
      runtimePlatform: {
        cpuArchitecture: ecs.CpuArchitecture.X86_64,
        operatingSystemFamily: ecs.OperatingSystemFamily.LINUX,
      },
      // The root filesystem is read-only; /tmp is the one writable place.
      volumes: [{ name: "tmp" }],
    });
    const container = taskDefinition.addContainer("server", {
      image: ecs.ContainerImage.fromRegistry(p.image.valueAsString),
      user: "1000:1000",
      readonlyRootFilesystem: true,
      portMappings: [{ containerPort: CONTAINER_PORT, name: "http" }],
      environment: {
        HOST: "0.0.0.0",
        PORT: String(CONTAINER_PORT),
        PUBLIC_URL: p.publicUrl.valueAsString,
        SERVER_NAME: p.serverName.valueAsString,
        OAUTH_ISSUER: p.oauthIssuer.valueAsString,
        OAUTH_AUDIENCE: p.oauthAudience.valueAsString,
        OAUTH_REQUIRED_SCOPES: p.requiredScopes.valueAsString,
        OAUTH_TOOL_SCOPES: p.toolScopes.valueAsString,
        OAUTH_JWKS_URI: p.jwksUri.valueAsString,
        CORS_ORIGINS: p.corsOrigins.valueAsString,
        KMS_KEY_ID: props.key.keyArn,
        KMS_SERVICE_NAME: p.serverName.valueAsString,
        AWS_REGION: this.region,
        REQUEST_STATE_TTL_SECONDS: p.ttlSeconds.valueAsString,
        RATE_LIMIT_MAX: p.rateLimitMax.valueAsString,
        // The ALB, the one proxy in front of the tasks, connects from the VPC; no one else can reach them.
        TRUST_PROXY: VPC_CIDR,
        LOG_LEVEL: p.logLevel.valueAsString,
        LOG_FORMAT: "json",
        SHUTDOWN_TIMEOUT_MS: "10000",
        // ElastiCache has no append-only file: what it acknowledged survives the primary only on a
        // replica, so every once-round and approval write waits for one (WAIT). Without it the server
        // refuses to start on this Redis. One, whatever redisReplicas says: losing one replica of
        // several must not stop the writes.
        REDIS_REPLICA_ACKS: "1",
      },
      // REDIS_URL holds the Redis AUTH token, so ECS fetches it at task start (execution role) and it
      // never appears in the task definition the way an environment value would.
      secrets: {
        KMS_WRAPPED_KEYS: ecs.Secret.fromSsmParameter(wrappedKeys),
        REDIS_URL: ecs.Secret.fromSecretsManager(redis.url),
      },
      logging: ecs.LogDrivers.awsLogs({ logGroup, streamPrefix: "server" }),
      healthCheck: {
        command: [
          "CMD",
          "node",
          "-e",
          `fetch('http://127.0.0.1:${CONTAINER_PORT}/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))`,
        ],
        interval: Duration.seconds(10),
        timeout: Duration.seconds(3),
        retries: 3,
        startPeriod: Duration.seconds(15),
      },
      // Longer than SHUTDOWN_TIMEOUT_MS: SIGTERM drains in-flight requests before SIGKILL.
      stopTimeout: Duration.seconds(30),
    });
    // Pulling a private ECR image needs these on the execution role (ECS's, not the application's).
    taskDefinition
      .obtainExecutionRole()
      .addManagedPolicy(
        iam.ManagedPolicy.fromAwsManagedPolicyName("service-role/AmazonECSTaskExecutionRolePolicy"),
      );
    container.addMountPoints({ containerPath: "/tmp", sourceVolume: "tmp", readOnly: false });
    const { metricsGroup } = addOtelCollector(this, {
      taskDefinition,
      server: container,
      taskRole,
      image: p.collectorImage.valueAsString,
      logGroup,
    });

    const fargate = new ecsPatterns.ApplicationLoadBalancedFargateService(this, "Service", {
      cluster,
      taskDefinition,
      desiredCount: p.desiredCount.valueAsNumber,
      publicLoadBalancer: true,
      protocol: elbv2.ApplicationProtocol.HTTPS,
      certificate: acm.Certificate.fromCertificateArn(this, "Certificate", p.certificateArn.valueAsString),
      sslPolicy: elbv2.SslPolicy.RECOMMENDED_TLS,
      redirectHTTP: true,
      minHealthyPercent: 100,
      maxHealthyPercent: 200,
      circuitBreaker: { rollback: true },
      healthCheckGracePeriod: Duration.seconds(30),
    });
    // The ALB routes only to tasks whose keys are unwrapped, and stops as soon as one starts shutting down.
    fargate.targetGroup.configureHealthCheck({
      path: "/readyz",
      healthyHttpCodes: "200",
      interval: Duration.seconds(10),
      timeout: Duration.seconds(5),
      healthyThresholdCount: 2,
      unhealthyThresholdCount: 2,
    });
    fargate.targetGroup.setAttribute("deregistration_delay.timeout_seconds", "30");
    // Redis holds approvals and sealed-round outcomes: the server tasks are the only way in.
    redis.securityGroup.connections.allowFrom(
      fargate.service,
      ec2.Port.tcp(REDIS_PORT),
      "Roundtrip server tasks only",
    );

    const scaling = fargate.service.autoScaleTaskCount({
      minCapacity: p.desiredCount.valueAsNumber,
      maxCapacity: p.maxCount.valueAsNumber,
    });
    scaling.scaleOnCpuUtilization("CpuScaling", {
      targetUtilizationPercent: 60,
      scaleInCooldown: Duration.seconds(120),
      scaleOutCooldown: Duration.seconds(60),
    });

    new CfnOutput(this, "WrappedKeysParameterName", { value: wrappedKeys.parameterName });
    new CfnOutput(this, "ClusterName", { value: cluster.clusterName });
    new CfnOutput(this, "ServiceName", { value: fargate.service.serviceName });
    new CfnOutput(this, "TaskRoleArn", { value: taskRole.roleArn });
    new CfnOutput(this, "RedisEndpoint", { value: redis.replicationGroup.attrPrimaryEndPointAddress });
    new CfnOutput(this, "RedisUrlSecretArn", { value: redis.url.secretArn });
    new CfnOutput(this, "MetricsLogGroupName", { value: metricsGroup.logGroupName });
  }
}

/** How many read replicas a replication group may have beside its primary (ElastiCache's limit). */
export const MAX_REDIS_REPLICAS = 5;

/**
 * The fleet's shared state (approvals, the once-ledger, the listen bus, 2025-era sessions): a Valkey
 * replication group in the private subnets, TLS in transit, encrypted at rest, with an AUTH token the
 * stack generates, plus the one secret the tasks read, REDIS_URL. It must not forget an acknowledged
 * write (infra/README.md, "State that must not be forgotten"): a primary with replicas in other AZs
 * and automatic failover, and a parameter group that refuses writes when memory is full instead of
 * evicting keys.
 */
function sharedRedis(scope: Stack, vpc: ec2.IVpc, replicas: number) {
  if (!Number.isInteger(replicas) || replicas < 1 || replicas > MAX_REDIS_REPLICAS) {
    throw new RangeError(
      `redisReplicas is ${replicas}; it must be a whole number from 1 to ${MAX_REDIS_REPLICAS}: ` +
        "without a replica, losing the Redis node loses every approval and once-round outcome",
    );
  }
  // Letters and digits only: the token is also the password part of a URL, and ElastiCache refuses
  // some punctuation in it ("@", "/", quotes).
  const authToken = new secretsmanager.Secret(scope, "RedisAuthToken", {
    description: "AUTH token of the Roundtrip fleet's Redis (ElastiCache)",
    generateSecretString: { passwordLength: 64, excludePunctuation: true },
  });
  const subnets = new elasticache.CfnSubnetGroup(scope, "RedisSubnets", {
    description: "Roundtrip shared Redis: the service's private subnets",
    subnetIds: vpc.selectSubnets({ subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS }).subnetIds,
  });
  // No rules here: the service stack admits its tasks, and Redis itself connects to nothing.
  const securityGroup = new ec2.SecurityGroup(scope, "RedisSecurityGroup", {
    vpc,
    description: "Roundtrip shared Redis: port 6379 from the server tasks only",
    allowAllOutbound: false,
  });
  // The default parameter group evicts (volatile-lru): under memory pressure it would silently drop
  // claims that carry a TTL, and a dropped claim lets a completed once-round run again. noeviction
  // makes a full Redis refuse writes, so the round fails with an error and runs nowhere.
  const parameterGroup = new elasticache.CfnParameterGroup(scope, "RedisParameters", {
    cacheParameterGroupFamily: "valkey8",
    description: "Roundtrip shared Redis: refuse writes when full rather than evict fleet state",
    properties: { "maxmemory-policy": "noeviction" },
  });
  const replicationGroup = new elasticache.CfnReplicationGroup(scope, "Redis", {
    replicationGroupDescription: "Roundtrip fleet shared state: approvals, once-ledger, listen bus, sessions",
    engine: "valkey",
    engineVersion: "8.0",
    cacheNodeType: "cache.t4g.small",
    port: REDIS_PORT,
    cacheParameterGroupName: parameterGroup.ref,
    // Replication is asynchronous: a failover can lose what the primary acknowledged in its last
    // moments unless the writer waits for a replica (WAIT), which the server does when configured to.
    numCacheClusters: 1 + replicas,
    automaticFailoverEnabled: true,
    multiAzEnabled: true,
    // Daily snapshots, kept a week: a way back after losing the whole group, not part of the
    // once-guarantee (restoring one rewinds up to a day).
    snapshotRetentionLimit: 7,
    cacheSubnetGroupName: subnets.ref,
    securityGroupIds: [securityGroup.securityGroupId],
    transitEncryptionEnabled: true,
    atRestEncryptionEnabled: true,
    // A dynamic reference: CloudFormation reads the token at deploy time, so it is in no template.
    authToken: authToken.secretValue.unsafeUnwrap(),
    autoMinorVersionUpgrade: true,
  });
  // ECS injects a whole secret, or one JSON field of it, as a variable; it cannot put a URL together,
  // and the server takes exactly one REDIS_URL. A JSON field of the token's secret cannot hold the
  // URL either: the endpoint exists only after the token is generated. So the URL is a second
  // secret, whose value CloudFormation assembles at deploy time from a dynamic reference to the token
  // and the replication group's endpoint; template, parameters and outputs only ever hold the
  // reference. CloudFormation resolves the reference again only when it updates this resource, so
  // rotating the token is a manual step the stack does not automate.
  const url = new secretsmanager.Secret(scope, "RedisUrl", {
    description: "REDIS_URL of the Roundtrip server tasks: rediss://:<AUTH token>@<primary endpoint>:6379",
    secretStringValue: SecretValue.unsafePlainText(
      Fn.join("", [
        "rediss://:",
        authToken.secretValue.unsafeUnwrap(),
        "@",
        replicationGroup.attrPrimaryEndPointAddress,
        ":",
        replicationGroup.attrPrimaryEndPointPort,
      ]),
    ),
  });
  return { replicationGroup, securityGroup, authToken, url };
}

const BASE64_LIST = "^[A-Za-z0-9+/]+={0,2}(,[A-Za-z0-9+/]+={0,2})*$";

function parameters(scope: Stack) {
  const text = (id: string, description: string, options: { default?: string; pattern?: string } = {}) =>
    new CfnParameter(scope, id, {
      type: "String",
      description,
      ...(options.default !== undefined ? { default: options.default } : {}),
      ...(options.pattern !== undefined
        ? { allowedPattern: options.pattern, constraintDescription: `must match ${options.pattern}` }
        : {}),
    });
  const count = (id: string, description: string, defaultValue: number, min: number, max: number) =>
    new CfnParameter(scope, id, {
      type: "Number",
      description,
      default: defaultValue,
      minValue: min,
      maxValue: max,
    });
  return {
    image: text(
      "ContainerImage",
      "Server image (infra/docker/Dockerfile), e.g. <account>.dkr.ecr.<region>.amazonaws.com/roundtrip-server:0.1.0",
    ),
    publicUrl: text("PublicUrl", "PUBLIC_URL: the https URL clients call, e.g. https://mcp.example.com/mcp", {
      pattern: "^https://.+",
    }),
    certificateArn: text("CertificateArn", "ACM certificate for the host of PublicUrl, in this region", {
      pattern: "^arn:aws[a-z-]*:acm:.+",
    }),
    serverName: text(
      "ServerName",
      "SERVER_NAME: the sealing audience, and the --service of the wrapped keys",
      {
        default: "roundtrip",
        pattern: "^[A-Za-z0-9._-]{1,100}$",
      },
    ),
    oauthIssuer: text("OAuthIssuer", "OAUTH_ISSUER: the issuer exactly as tokens write it", {
      pattern: "^https://.+",
    }),
    oauthAudience: text(
      "OAuthAudience",
      "OAUTH_AUDIENCE: accepted audiences if not PublicUrl; empty means PublicUrl",
      {
        default: "",
      },
    ),
    requiredScopes: text("OAuthRequiredScopes", "OAUTH_REQUIRED_SCOPES: scopes every request needs", {
      default: "mcp:tools",
    }),
    toolScopes: text("OAuthToolScopes", "OAUTH_TOOL_SCOPES: <tool>=<scope> entries separated by ;", {
      default: "deploy=mcp:deploy",
    }),
    jwksUri: text("OAuthJwksUri", "OAUTH_JWKS_URI: empty means discovered from the issuer", { default: "" }),
    corsOrigins: text("CorsOrigins", "CORS_ORIGINS: browser origins allowed to call, comma-separated", {
      default: "",
    }),
    wrappedKeys: text(
      "WrappedKeys",
      "KMS_WRAPPED_KEYS: lines printed by roundtrip-kms-keygen, comma-separated, newest first",
      { pattern: BASE64_LIST },
    ),
    ttlSeconds: count("RequestStateTtlSeconds", "REQUEST_STATE_TTL_SECONDS", 600, 1, 86_400),
    rateLimitMax: count(
      "RateLimitMax",
      "RATE_LIMIT_MAX: requests per minute per principal",
      300,
      1,
      1_000_000,
    ),
    logLevel: new CfnParameter(scope, "LogLevel", {
      type: "String",
      description: "LOG_LEVEL",
      default: "info",
      allowedValues: ["fatal", "error", "warn", "info", "debug", "trace", "silent"],
    }),
    collectorImage: text(
      "CollectorImage",
      "OpenTelemetry collector beside each task (AWS Distro for OpenTelemetry): spans to X-Ray, metrics to CloudWatch",
      { default: "public.ecr.aws/aws-observability/aws-otel-collector:v0.43.3" },
    ),
    desiredCount: count("DesiredCount", "Tasks to run, and the autoscaling floor (at least 2)", 2, 2, 100),
    maxCount: count("MaxCount", "Autoscaling ceiling", 6, 2, 100),
  };
}
