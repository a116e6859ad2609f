import { roundtripVitestConfig } from "../../vitest.shared.ts";

const config = roundtripVitestConfig("sdk");

// Valkey is a drop-in for Redis: the Redis store suites run once more against valkey-server.
config.test?.projects?.push({
  extends: true,
  test: {
    name: "valkey",
    include: ["test/redis-once-store.test.ts", "test/redis-bus.test.ts", "test/redis-sessions.test.ts"],
    env: { ROUNDTRIP_REDIS_PROGRAM: "valkey-server" },
  },
});

export default config;
