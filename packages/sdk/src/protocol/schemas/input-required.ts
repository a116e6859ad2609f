import * as z from "zod";
import { MetaObjectSchema, RoleSchema } from "./common.js";
import { SamplingMessageContentBlockSchema } from "./content.js";
import { resultFields } from "./envelope.js";
import { ToolSchema } from "./tools.js";

// --- Elicitation: the restricted, flat form schema -------------------------------------------------

const titled = { title: z.string().optional(), description: z.string().optional() };

export const StringSchemaSchema = z.looseObject({
  type: z.literal("string"),
  ...titled,
  minLength: z.number().int().optional(),
  maxLength: z.number().int().optional(),
  format: z.enum(["email", "uri", "date", "date-time"]).optional(),
  default: z.string().optional(),
});
export const NumberSchemaSchema = z.looseObject({
  type: z.enum(["number", "integer"]),
  ...titled,
  minimum: z.number().optional(),
  maximum: z.number().optional(),
  default: z.number().optional(),
});
export const BooleanSchemaSchema = z.looseObject({
  type: z.literal("boolean"),
  ...titled,
  default: z.boolean().optional(),
});
const TitledOption = z.looseObject({ const: z.string(), title: z.string() });
export const SingleSelectEnumSchemaSchema = z.union([
  z.looseObject({
    type: z.literal("string"),
    ...titled,
    enum: z.array(z.string()),
    enumNames: z.array(z.string()).optional(),
    default: z.string().optional(),
  }),
  z.looseObject({
    type: z.literal("string"),
    ...titled,
    oneOf: z.array(TitledOption),
    default: z.string().optional(),
  }),
]);
export const MultiSelectEnumSchemaSchema = z.looseObject({
  type: z.literal("array"),
  ...titled,
  minItems: z.number().int().optional(),
  maxItems: z.number().int().optional(),
  items: z.union([
    z.looseObject({ type: z.literal("string"), enum: z.array(z.string()) }),
    z.looseObject({ anyOf: z.array(TitledOption) }),
  ]),
  default: z.array(z.string()).optional(),
});
export const PrimitiveSchemaDefinitionSchema = z.union([
  SingleSelectEnumSchemaSchema,
  StringSchemaSchema,
  NumberSchemaSchema,
  BooleanSchemaSchema,
  MultiSelectEnumSchemaSchema,
]);
export type PrimitiveSchemaDefinition = z.infer<typeof PrimitiveSchemaDefinitionSchema>;

export const ElicitationSchemaSchema = z.looseObject({
  $schema: z.string().optional(),
  type: z.literal("object"),
  properties: z.record(z.string(), PrimitiveSchemaDefinitionSchema),
  required: z.array(z.string()).optional(),
});
export type ElicitationSchema = z.infer<typeof ElicitationSchemaSchema>;

export const ElicitRequestFormParamsSchema = z.looseObject({
  mode: z.literal("form").optional(),
  message: z.string(),
  requestedSchema: ElicitationSchemaSchema,
});
export type ElicitRequestFormParams = z.infer<typeof ElicitRequestFormParamsSchema>;

export const ElicitRequestUrlParamsSchema = z.looseObject({
  mode: z.literal("url"),
  message: z.string(),
  url: z.string(),
});
export type ElicitRequestUrlParams = z.infer<typeof ElicitRequestUrlParamsSchema>;

export const ElicitRequestSchema = z.looseObject({
  method: z.literal("elicitation/create"),
  // The two shapes are disjoint (mode "url" against absent or "form"); form, the common one, goes
  // first because a failed branch costs a union more than a match does.
  params: z.union([ElicitRequestFormParamsSchema, ElicitRequestUrlParamsSchema]),
});
export type ElicitRequest = z.infer<typeof ElicitRequestSchema>;

export const ElicitContentValueSchema = z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]);
export const ElicitResultSchema = z.looseObject({
  action: z.enum(["accept", "decline", "cancel"]),
  content: z.record(z.string(), ElicitContentValueSchema).optional(),
});
export type ElicitResult = z.infer<typeof ElicitResultSchema>;

// --- Sampling -----------------------------------------------------------------------------------------

export const SamplingContentSchema = z.union([
  SamplingMessageContentBlockSchema,
  z.array(SamplingMessageContentBlockSchema),
]);

export const SamplingMessageSchema = z.looseObject({
  role: RoleSchema,
  content: SamplingContentSchema,
  _meta: MetaObjectSchema.optional(),
});
export type SamplingMessage = z.infer<typeof SamplingMessageSchema>;

export const ModelPreferencesSchema = z.looseObject({
  hints: z.array(z.looseObject({ name: z.string().optional() })).optional(),
  costPriority: z.number().min(0).max(1).optional(),
  speedPriority: z.number().min(0).max(1).optional(),
  intelligencePriority: z.number().min(0).max(1).optional(),
});
export type ModelPreferences = z.infer<typeof ModelPreferencesSchema>;

export const CreateMessageRequestParamsSchema = z.looseObject({
  messages: z.array(SamplingMessageSchema),
  modelPreferences: ModelPreferencesSchema.optional(),
  systemPrompt: z.string().optional(),
  includeContext: z.enum(["none", "thisServer", "allServers"]).optional(),
  temperature: z.number().optional(),
  maxTokens: z.number().int(),
  stopSequences: z.array(z.string()).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  tools: z.array(ToolSchema).optional(),
  toolChoice: z.looseObject({ mode: z.enum(["auto", "required", "none"]).optional() }).optional(),
});
export type CreateMessageRequestParams = z.infer<typeof CreateMessageRequestParamsSchema>;

export const CreateMessageRequestSchema = z.looseObject({
  method: z.literal("sampling/createMessage"),
  params: CreateMessageRequestParamsSchema,
});
export type CreateMessageRequest = z.infer<typeof CreateMessageRequestSchema>;

export const CreateMessageResultSchema = z.looseObject({
  role: RoleSchema,
  content: SamplingContentSchema,
  model: z.string(),
  stopReason: z.string().optional(),
  _meta: MetaObjectSchema.optional(),
});
export type CreateMessageResult = z.infer<typeof CreateMessageResultSchema>;

// --- Roots --------------------------------------------------------------------------------------------

export const ListRootsRequestSchema = z.looseObject({
  method: z.literal("roots/list"),
  params: z.looseObject({ _meta: MetaObjectSchema.optional() }).optional(),
});
export type ListRootsRequest = z.infer<typeof ListRootsRequestSchema>;

export const RootSchema = z.looseObject({
  uri: z.string(),
  name: z.string().optional(),
  _meta: MetaObjectSchema.optional(),
});
export type Root = z.infer<typeof RootSchema>;

export const ListRootsResultSchema = z.looseObject({
  roots: z.array(RootSchema),
  _meta: MetaObjectSchema.optional(),
});
export type ListRootsResult = z.infer<typeof ListRootsResultSchema>;

// --- The multi round-trip channel ---------------------------------------------------------------------

export const InputRequestSchema = z.discriminatedUnion("method", [
  ElicitRequestSchema,
  CreateMessageRequestSchema,
  ListRootsRequestSchema,
]);
export type InputRequest = z.infer<typeof InputRequestSchema>;

export const InputRequestsSchema = z.record(z.string(), InputRequestSchema);
export type InputRequests = z.infer<typeof InputRequestsSchema>;

/** Responses are bare results; which one answers which key is only known from the request it answers. */
export const InputResponseSchema = z.union([
  ElicitResultSchema,
  CreateMessageResultSchema,
  ListRootsResultSchema,
]);
export type InputResponse = ElicitResult | CreateMessageResult | ListRootsResult;

export const InputResponsesSchema = z.record(z.string(), InputResponseSchema);
export type InputResponses = Record<string, InputResponse>;

export const InputRequiredResultSchema = z.looseObject({
  ...resultFields,
  resultType: z.literal("input_required"),
  inputRequests: InputRequestsSchema.optional(),
  requestState: z.string().optional(),
});
export type InputRequiredResult = z.infer<typeof InputRequiredResultSchema>;

/** Params of the three carrier methods gain the retry fields. */
export const retryFields = {
  inputResponses: InputResponsesSchema.optional(),
  requestState: z.string().optional(),
};
