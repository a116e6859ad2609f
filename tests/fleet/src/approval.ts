import { DevelopmentBrowser, firstPostForm } from "@roundtrip/local-auth";

/** Signs `user` in on the approval page at `url` and presses Approve, every request through `publicUrl`. */
export async function approveThroughProxy(publicUrl: string, url: string, user = "alice"): Promise<void> {
  const browser = new DevelopmentBrowser(user);
  const proxy = new URL(publicUrl).origin;
  const page = await browser.visit(new URL(`${new URL(url).pathname}/sign-in`, proxy), proxy);
  if (page.status !== 200) throw new Error(`the approval page answered ${page.status}`);
  const form = firstPostForm(page.html);
  // An earlier attempt's Approve may have landed though its answer was lost to the fault: the page
  // then shows the release approved (or deployed), which is what this attempt was for.
  if (!form && /class="status status-(approved|deployed)"/.test(page.html)) return;
  if (!form) throw new Error(`no Approve form on the page: ${page.html}`);
  const approved = await browser.fetch(new URL(form.action, proxy), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form.fields),
  });
  if (approved.status !== 200) throw new Error(`approving answered ${approved.status}`);
}
