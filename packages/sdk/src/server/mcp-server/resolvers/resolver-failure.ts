import { SdkError } from "../../../protocol/sdk-error.js";

/** A failure the user can act on; the tool answers with it as an error result. */
export class ResolverFailure extends SdkError {
  static readonly code = "ERR_RESOLVER_FAILURE";
  override readonly name = "ResolverFailure";
  readonly code = ResolverFailure.code;
}
