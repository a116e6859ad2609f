/** A failure the user can act on; the tool answers with it as an error result. */
export class ResolverFailure extends Error {
  override readonly name = "ResolverFailure";
}
