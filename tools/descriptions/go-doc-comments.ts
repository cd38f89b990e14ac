/**
 * Descriptions read from Go doc comments, as the reference's OpenAPI generator (kube-openapi)
 * makes them: a `---` line ends the text; an empty line starts a paragraph; `TODO` and
 * `+marker` lines are left out; an indented line keeps its own line; the other lines are
 * joined with spaces. (The packages' `types_swagger_doc_generated.go` maps are made by other
 * rules, and differ from the reference's documents where a comment has indented lines or
 * backslashes; types outside them, Quantity or meta/v1's Time, have none at all.)
 */

/** A line of a Go comment, as go/ast gives it: the `//` and one space after it removed. */
function commentText(line: string): string {
  const text = line.trim().slice(2);
  return text.startsWith(' ') ? text.slice(1) : text;
}

/** The description the reference makes of a doc comment's lines; empty when it has none. */
export function openAPIDescription(lines: readonly string[]): string {
  let text = '';
  const dropLast = () => {
    text = text.slice(0, -1);
  };
  for (const raw of lines) {
    if (raw === '---') break;
    const line = raw.replace(/ +$/, '');
    const leading = line.replace(/^ +/, '');
    if (line === '') {
      dropLast();
      text += '\n\n';
    } else if (leading.startsWith('TODO') || leading.startsWith('+')) {
      continue;
    } else if (line.startsWith(' ') || line.startsWith('\t')) {
      dropLast();
      text += `\n${line}\n`;
    } else {
      text += `${line} `;
    }
  }
  return text.trim();
}

const STRUCT_START = /^type (\w+) struct \{/;
const OTHER_TYPE = /^type (\w+) /;
/** A field, named or embedded, with its JSON name. */
const FIELD = /^\s+[^`/]+`[^`]*json:"([^",]+)/;

/**
 * Each type of a Go file that has a doc comment → `{ "": its description, <json field>: the
 * field's }`, as the descriptions file holds them. Leading and trailing empty comment lines
 * are dropped and runs of them made one, as go/ast does. `addedLines` gives the lines the
 * reference's generator adds to a field's comment (go-enums.ts's enum section), if any.
 */
export function docCommentsOf(
  source: string,
  addedLines: (struct: string, field: string) => readonly string[] | undefined = () => undefined,
): Map<string, Record<string, string>> {
  const types = new Map<string, Record<string, string>>();
  let comment: string[] = [];
  let struct: { readonly name: string; readonly fields: Record<string, string> } | undefined;
  const describe = (into: Record<string, string>, key: string, added: readonly string[] = []) => {
    const lines = [...comment];
    while (lines.length > 0 && lines[0] === '') lines.shift();
    while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    for (let index = lines.length - 1; index > 0; index--)
      if (lines[index] === '' && lines[index - 1] === '') lines.splice(index, 1);
    const description = openAPIDescription([...lines, ...added]);
    if (description !== '') into[key] = description;
  };
  for (const line of source.split('\n')) {
    const trimmed = line.trim();
    if (trimmed.startsWith('//')) {
      comment.push(commentText(line));
      continue;
    }
    if (struct !== undefined) {
      if (line === '}') struct = undefined;
      else {
        const field = FIELD.exec(line);
        if (field !== null && field[1] !== '-') describe(struct.fields, field[1], addedLines(struct.name, field[1]));
      }
    } else {
      const start = STRUCT_START.exec(line) ?? OTHER_TYPE.exec(line);
      if (start !== null) {
        const described: Record<string, string> = {};
        describe(described, '');
        types.set(start[1], described);
        if (STRUCT_START.test(line)) struct = { name: start[1], fields: described };
      }
    }
    comment = [];
  }
  return types;
}
