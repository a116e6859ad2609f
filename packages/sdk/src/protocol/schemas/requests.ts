import type * as z from "zod";
import { CLIENT_REQUESTS, type ClientRequestFacts, type ClientRequestMethod } from "../methods.js";

// The method table's params column and cacheable rows, in the shapes their readers name, and the
// request schemas re-exported for the entry point.

export {
  type CallToolParams,
  CallToolParamsSchema,
  type GetPromptParams,
  GetPromptParamsSchema,
  type ListenParams,
  ListenParamsSchema,
  type PaginatedParams,
  type ReadResourceParams,
  ReadResourceParamsSchema,
  type RequestParams,
} from "./request-params.js";

/** The client-to-server requests of 2026-07-28. */
export type RequestMethod = ClientRequestMethod;

/** The schema of each request's params, read from the method table. */
export const RequestParamsByMethod: { readonly [M in RequestMethod]: (typeof CLIENT_REQUESTS)[M]["params"] } =
  Object.freeze(
    Object.fromEntries(Object.entries(CLIENT_REQUESTS).map(([method, facts]) => [method, facts.params])) as {
      [M in RequestMethod]: (typeof CLIENT_REQUESTS)[M]["params"];
    },
  );

/**
 * The same schemas without `_meta`, for params whose envelope the server has already validated:
 * checking it twice per request was a measurable share of a small request's cost.
 */
export const RequestParamsAfterEnvelope: Readonly<Record<RequestMethod, z.ZodType>> = Object.freeze(
  Object.fromEntries(
    Object.entries<ClientRequestFacts>(CLIENT_REQUESTS).map(([method, facts]): [string, z.ZodType] => [
      method,
      facts.params.omit({ _meta: true }),
    ]),
  ) as Record<RequestMethod, z.ZodType>,
);
