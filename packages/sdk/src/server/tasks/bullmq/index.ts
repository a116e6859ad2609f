/**
 * `@roundtrip/sdk/tasks-bullmq`: tasks that outlive the instance that accepted them, queued on
 * BullMQ. It needs the optional peer dependency `bullmq`; nothing else in the SDK loads it.
 */
export {
  BullMqTaskRunner,
  type BullMqTaskRunnerOptions,
  type WorkOptions,
} from "./bullmq-task-runner.js";
