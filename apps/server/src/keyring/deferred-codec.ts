import { InvalidRequestState, type RequestStateCodec } from "@roundtrip/sealing";

/**
 * A codec whose keys arrive after construction. The MCP server and its request-state policy must exist
 * when routes are registered, but KMS answers later, once the process already listens (so /readyz can
 * say "not yet"). The MCP route is closed until `install` runs, so these refusals are a last line only.
 */
export class DeferredCodec implements RequestStateCodec {
  #codec: RequestStateCodec | undefined;

  get installed(): boolean {
    return this.#codec !== undefined;
  }

  install(codec: RequestStateCodec): void {
    if (this.#codec !== undefined) throw new Error("the request-state keys are already installed");
    this.#codec = codec;
  }

  seal(payload: Uint8Array): string {
    if (this.#codec === undefined) {
      throw new Error("request-state keys are not loaded yet; wait for /readyz before sending traffic");
    }
    return this.#codec.seal(payload);
  }

  unseal(token: string): Uint8Array {
    if (this.#codec === undefined) throw new InvalidRequestState("keys not loaded");
    return this.#codec.unseal(token);
  }
}
