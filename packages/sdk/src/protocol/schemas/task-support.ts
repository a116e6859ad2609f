import * as z from "zod";

/**
 * How a tool declares, on its definition (`execution.taskSupport`), whether the tasks extension may run
 * it as a task: never (`forbidden`, also when absent), at the server's choice, or always.
 */
export const TaskSupportSchema = z.enum(["forbidden", "optional", "required"]);
export type TaskSupport = z.infer<typeof TaskSupportSchema>;
