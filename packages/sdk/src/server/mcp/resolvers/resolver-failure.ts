import { RoundtripError } from "../../../protocol/roundtrip-error.js";

/** A failure the user can act on; the tool answers with it as an error result. */
export class ResolverFailure extends RoundtripError {
  static readonly code = "ERR_RESOLVER_FAILURE";
  override readonly name = "ResolverFailure";
  readonly code = ResolverFailure.code;
}
