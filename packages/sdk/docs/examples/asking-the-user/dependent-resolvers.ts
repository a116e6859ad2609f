import { ask, resolver } from "@roundtrip/sdk";
import * as z from "zod";

const login = resolver(() => ask.elicit("Username?", z.object({ name: z.string() })));
export const confirm = resolver(
  { login },
  ({ login }) => ask.elicit(`Act as ${login.name}?`, z.object({ ok: z.boolean() })),
  { onDecline: "outcome" },
);
