import { createHash } from "node:crypto";

/**
 * The approval pages' one style sheet. It is inline, and the pages' CSP allows it by its hash, so the
 * pages load nothing from anywhere and no other style (an injected one included) applies. Colours are
 * chosen for a contrast of at least 4.5:1 against their backgrounds.
 */
export const PAGE_STYLE = `
:root { color-scheme: light; --ink: #1f2328; --muted: #4b5563; --line: #d0d7de; --paper: #ffffff;
  --wash: #f3f4f6; --focus: #1d4ed8; --ok: #116329; --ok-wash: #dafbe1; --no: #a40e26; --no-wash: #ffebe9;
  --wait: #7a4700; --wait-wash: #fff8c5; }
* { box-sizing: border-box; }
html { font: 100%/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
body { margin: 0; min-height: 100vh; background: var(--wash); color: var(--ink); }
main { max-width: 40rem; margin: 0 auto; padding: 1.5rem 1rem 3rem; }
.brand { margin: 0 0 1rem; color: var(--muted); font-size: .875rem; letter-spacing: .04em; text-transform: uppercase; }
.card { background: var(--paper); border: 1px solid var(--line); border-radius: .75rem; padding: 1.25rem; }
h1 { margin: 0 0 .75rem; font-size: 1.375rem; line-height: 1.3; overflow-wrap: anywhere; }
h1 code { display: block; font: 600 .75em/1.4 ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace;
  color: var(--muted); word-break: break-all; }
p { margin: .5rem 0; }
.status { display: inline-block; margin: 0 0 1rem; padding: .25rem .75rem; border-radius: 999px; font-weight: 600; }
.status-pending, .status-asked { background: var(--wait-wash); color: var(--wait); }
.status-approved, .status-deployed { background: var(--ok-wash); color: var(--ok); }
.status-rejected, .status-refused { background: var(--no-wash); color: var(--no); }
dl { margin: 0 0 1.25rem; display: grid; grid-template-columns: minmax(7rem, max-content) 1fr; gap: .5rem 1rem; }
dt { color: var(--muted); font-weight: 600; }
dd { margin: 0; overflow-wrap: anywhere; }
.change { font-size: 1.125rem; font-weight: 600; }
.actions { display: grid; gap: 1rem; border-top: 1px solid var(--line); padding-top: 1.25rem; }
form { margin: 0; }
label { display: block; margin-bottom: .25rem; font-weight: 600; }
.hint { color: var(--muted); font-size: .875rem; margin: 0 0 .5rem; }
input[type="text"] { width: 100%; padding: .625rem .75rem; font: inherit; color: var(--ink); background: var(--paper);
  border: 1px solid #6e7781; border-radius: .5rem; }
.reject-row { display: flex; flex-wrap: wrap; gap: .75rem; }
.reject-row input { flex: 1 1 14rem; }
button, .button { display: inline-block; padding: .625rem 1.25rem; font: inherit; font-weight: 600; border: 0;
  border-radius: .5rem; cursor: pointer; text-decoration: none; }
.approve { background: var(--ok); color: #ffffff; width: 100%; }
.reject { background: var(--no); color: #ffffff; }
.button { background: var(--focus); color: #ffffff; }
button:hover, .button:hover { filter: brightness(1.1); }
a { color: var(--focus); }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.outcome { margin: 0; padding: 1rem; border-radius: .5rem; background: var(--wash); }
.outcome p { margin: 0; }
.outcome p + p { margin-top: .5rem; }
blockquote { margin: .5rem 0 0; padding-left: .75rem; border-left: 3px solid var(--no); overflow-wrap: anywhere; }
@media (min-width: 40rem) {
  main { padding-top: 3rem; }
  .card { padding: 2rem; }
  h1 { font-size: 1.625rem; }
  .approve { width: auto; }
}
`;

/** The CSP source that allows exactly PAGE_STYLE, computed once. */
export const PAGE_STYLE_SOURCE = `'sha256-${createHash("sha256").update(PAGE_STYLE).digest("base64")}'`;
