/**
 * Where the bodies of a fleet's tasks run when they must outlive the instance that accepted them: a
 * durable queue (`BullMqTaskRunner` from `@roundtrip/sdk/tasks-bullmq`) that hands each task to a
 * worker, which runs it with `Tasks.run`, and hands it to another worker when that one dies.
 */
export interface TaskRunner {
  /**
   * Queues the task for a worker; resolves once the queue holds it. Rejects in bounded time when the
   * queue cannot be reached: the task is then failed, and the tools/call answers an error.
   */
  enqueue(taskId: string): Promise<void>;
}
