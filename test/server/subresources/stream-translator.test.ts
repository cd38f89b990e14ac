/**
 * The Status the WebSocket client gets on the error channel from what the kubelet wrote on its
 * error stream, as client-go's SPDY executor reads it and the reference's translator writes the
 * result: the command's exit code, a failure, success, and the older protocols' plain text.
 */
import { statusOfErrorStream } from '../../../server/subresources/stream-translator';

const V4 = 'v4.channel.k8s.io';

describe('the error channel of a translated exec', () => {
  it('passes success and a non-zero exit code on as the reference writes them', () => {
    expect(statusOfErrorStream(V4, '')).toEqual({ metadata: {}, status: 'Success' });
    expect(statusOfErrorStream(V4, JSON.stringify({ status: 'Success' }))).toEqual({ metadata: {}, status: 'Success' });
    const exited = {
      status: 'Failure',
      reason: 'NonZeroExitCode',
      message: 'command terminated with non-zero exit code: error executing command [sh -c exit 3], exit code 3',
      details: { causes: [{ reason: 'ExitCode', message: '3' }] },
    };
    expect(statusOfErrorStream(V4, JSON.stringify(exited))).toEqual({
      metadata: {},
      status: 'Failure',
      message: 'command terminated with non-zero exit code: command terminated with exit code 3',
      reason: 'NonZeroExitCode',
      details: { causes: [{ reason: 'ExitCode', message: '3' }] },
    });
  });

  it('makes any other failure an internal error carrying the kubelet message', () => {
    const failed = {
      status: 'Failure',
      reason: 'InternalError',
      message: 'Internal error occurred: error executing command in container: boom',
      code: 500,
    };
    expect(statusOfErrorStream(V4, JSON.stringify(failed))).toEqual({
      metadata: {},
      status: 'Failure',
      message: 'Internal error occurred: Internal error occurred: error executing command in container: boom',
      reason: 'InternalError',
      details: { causes: [{ message: 'Internal error occurred: error executing command in container: boom' }] },
      code: 500,
    });
    expect(
      statusOfErrorStream(
        V4,
        JSON.stringify({
          status: 'Failure',
          reason: 'NonZeroExitCode',
          details: { causes: [{ reason: 'ExitCode', message: '300' }] },
        }),
      ).message,
    ).toBe('Internal error occurred: error stream protocol error: invalid exit code value "300"');
    expect(statusOfErrorStream(V4, JSON.stringify({ status: 'Failure', reason: 'NonZeroExitCode' })).message).toBe(
      'Internal error occurred: error stream protocol error: details must be set',
    );
    expect(statusOfErrorStream(V4, JSON.stringify({ status: 'Unknown' })).message).toBe(
      'Internal error occurred: error stream protocol error: unknown error',
    );
    expect(statusOfErrorStream(V4, 'not json').message).toMatch(
      /^Internal error occurred: error stream protocol error: .* in "not json"$/,
    );
  });

  it('reads the older protocols error stream as text', () => {
    expect(statusOfErrorStream('v3.channel.k8s.io', 'command not found')).toMatchObject({
      status: 'Failure',
      reason: 'InternalError',
      message: 'Internal error occurred: error executing remote command: command not found',
      code: 500,
    });
  });
});
