import { docCommentsOf, openAPIDescription } from '../../tools/descriptions/go-doc-comments';

describe('descriptions from Go doc comments, as the reference generator makes them', () => {
  test.each([
    ['lines joined with spaces', ['A widget holds', 'two  parts.'], 'A widget holds two  parts.'],
    ['an empty line starts a paragraph', ['First.', '', 'Second.'], 'First.\n\nSecond.'],
    ['markers and TODOs left out', ['Kept.', 'TODO: drop this', '+k8s:marker=true', 'still kept'], 'Kept. still kept'],
    ['an indented line keeps its own line', ['List:', ' * one', ' * two', 'after'], 'List:\n * one\n * two\nafter'],
    ['nothing after ---', ['Before.', '---', 'After.'], 'Before.'],
  ])('%s', (_name, lines, expected) => {
    expect(openAPIDescription(lines)).toBe(expected);
  });

  test('a type and its fields, by JSON name', () => {
    const source = [
      'package sample',
      '',
      '// Gadget is a sample type.',
      '//',
      '// +k8s:openapi-gen=true',
      'type Gadget struct {',
      '\tUndocumented string `json:"undocumented"`',
      '',
      '\t// Size of the gadget:',
      '\t//   * small or large',
      '\tSize string `json:"size,omitempty"`',
      '\tHidden string `json:"-"`',
      '}',
      '',
      '// Level is a number.',
      'type Level int32',
    ].join('\n');
    expect(Object.fromEntries(docCommentsOf(source))).toEqual({
      Gadget: { '': 'Gadget is a sample type.', size: 'Size of the gadget:\n  * small or large' },
      Level: { '': 'Level is a number.' },
    });
  });
});
