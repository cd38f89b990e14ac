/**
 * The `/debug/pprof/` index page in the bytes Go's net/http/pprof writes (its Index handler's
 * template): one row and one description per profile, sorted by name, each linked with
 * `?debug=1`, in the same frame of HTML.
 *
 * It lists only the profiles this process serves, not Go's runtime profiles it has no
 * counterpart for (goroutine, threadcreate, block, mutex, allocs, trace, symbol, cmdline): a
 * link that answers 404 would be a lie. For the same reason the "full goroutine stack dump" link
 * under Go's table is left out. A count is what Go counts for its pprof.Profile (the records it
 * holds now); the profiles served here sample only inside a request's window and hold nothing
 * between requests, so each counts 0, as Go's own `profile` row does.
 */

export interface ListedProfile {
  readonly name: string;
  readonly description: string;
}

/** html.EscapeString's five characters, as Go escapes a name and a description. */
function escapeHtml(text: string): string {
  return text.replace(
    /[&'<>"]/g,
    (char) => ({ '&': '&amp;', "'": '&#39;', '<': '&lt;', '>': '&gt;', '"': '&#34;' })[char] as string,
  );
}

export function pprofIndexPage(profiles: readonly ListedProfile[]): string {
  const sorted = [...profiles].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const rows = sorted.map(
    ({ name }) => `<tr><td>0</td><td><a href='${name}?debug=1'>${escapeHtml(name)}</a></td></tr>\n`,
  );
  const descriptions = sorted.map(
    ({ name, description }) =>
      `<li><div class=profile-name>${escapeHtml(name)}: </div> ${escapeHtml(description)}</li>\n`,
  );
  return `<html>
<head>
<title>/debug/pprof/</title>
<style>
.profile-name{
\tdisplay:inline-block;
\twidth:6rem;
}
</style>
</head>
<body>
/debug/pprof/
<br>
<p>Set debug=1 as a query parameter to export in legacy text format</p>
<br>
Types of profiles available:
<table>
<thead><td>Count</td><td>Profile</td></thead>
${rows.join('')}</table>
<br>
<p>
Profile Descriptions:
<ul>
${descriptions.join('')}</ul>
</p>
</body>
</html>`;
}
