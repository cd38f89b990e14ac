/**
 * `pods/log`'s stream selection behind PodLogsQuerySplitStreams: refused while the gate is off
 * (the 1.34 default), defaulted to `All`, checked and passed on to the kubelet while it is on.
 * The messages are a 1.34.4 kube-apiserver's, for the same queries (it lists the supported
 * streams in a Go set's order, which varies; capstan keeps the declaration order).
 */
import {
  kubeletLogQuery,
  parsePodLogOptions,
  validatePodLogOptions,
} from '../../../server/subresources/pod-log-options';

function refusal(query: string, splitStreams: boolean): string | undefined {
  try {
    validatePodLogOptions('x', parsePodLogOptions(new URLSearchParams(query), splitStreams), splitStreams);
    return undefined;
  } catch (error) {
    return (error as { status: { message: string } }).status.message;
  }
}

test('off (the default): any stream is refused, and none is asked of the kubelet', () => {
  expect(refusal('stream=Stdout', false)).toBe('PodLogOptions "x" is invalid: stream: Forbidden: may not be specified');
  expect(refusal('tailLines=-1&stream=Bogus', false)).toBe(
    'PodLogOptions "x" is invalid: [tailLines: Invalid value: -1: must be greater than or equal to 0, stream: Forbidden: may not be specified]',
  );
  expect(kubeletLogQuery(parsePodLogOptions(new URLSearchParams('tailLines=2'), false))).toBe('?tailLines=2');
});

test('on: a known stream, not with tailLines unless All; the kubelet is asked for it, All by default', () => {
  expect(refusal('stream=Stdout', true)).toBeUndefined();
  expect(refusal('stream=All&tailLines=1', true)).toBeUndefined();
  expect(refusal('stream=Stdout&tailLines=1', true)).toBe(
    'PodLogOptions "x" is invalid: []: Forbidden: `tailLines` and specific `stream` are mutually exclusive for now',
  );
  expect(refusal('tailLines=-1&stream=Bogus', true)).toBe(
    'PodLogOptions "x" is invalid: [tailLines: Invalid value: -1: must be greater than or equal to 0, stream: Unsupported value: "Bogus": supported values: "Stdout", "Stderr", "All", []: Forbidden: `tailLines` and specific `stream` are mutually exclusive for now]',
  );
  const query = (text: string) => kubeletLogQuery(parsePodLogOptions(new URLSearchParams(text), true));
  expect(query('tailLines=2&timestamps=true')).toBe('?stream=All&tailLines=2&timestamps=true');
  expect(query('stream=Stderr&sinceSeconds=5')).toBe('?sinceSeconds=5&stream=Stderr');
});
