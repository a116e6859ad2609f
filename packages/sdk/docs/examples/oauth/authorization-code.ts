import { createServer } from "node:http";
import { type AuthorizationRedirect, oauthClientProvider } from "@roundtrip/sdk/oauth-client";

const redirect: AuthorizationRedirect = {
  redirectUri: "http://127.0.0.1:8765/callback",
  authorize: (url) =>
    new Promise((resolve) => {
      const callback = createServer((req, res) => {
        res.end("Signed in; you can close this window.");
        callback.close();
        resolve(new URL(req.url ?? "/", "http://127.0.0.1").searchParams);
      }).listen(8765, "127.0.0.1");
      console.log(`Sign in at ${url.href}`); // or open it in the user's browser
    }),
};

export const auth = oauthClientProvider({
  grant: "authorization_code",
  redirect,
  // Used as client_id where the authorization server accepts client metadata documents; elsewhere
  // the provider registers dynamically (RFC 7591). Set clientId for a pre-registered client instead.
  clientMetadataUrl: "https://app.example.com/oauth/client.json",
});
