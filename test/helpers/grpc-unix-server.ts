/**
 * The pieces of a gRPC plugin a test serves with @grpc/grpc-js on a unix socket (the KMS v2
 * plugin, the external JWT signer): unary methods whose messages protobufjs encodes from the
 * plugin API's proto text, and the bind to the socket file.
 */
import * as grpc from '@grpc/grpc-js';
import type { Type } from 'protobufjs';

/** A unary method at `path` (`/<package>.<service>/<method>`). */
export function unaryMethod<Req, Res>(path: string, request: Type, response: Type): grpc.MethodDefinition<Req, Res> {
  return {
    path,
    requestStream: false,
    responseStream: false,
    requestSerialize: (value: Req) => Buffer.from(request.encode(request.fromObject(value as object)).finish()),
    requestDeserialize: (bytes: Buffer) => request.toObject(request.decode(bytes), { defaults: true }) as Req,
    responseSerialize: (value: Res) => Buffer.from(response.encode(response.fromObject(value as object)).finish()),
    responseDeserialize: (bytes: Buffer) => response.toObject(response.decode(bytes), { defaults: true }) as Res,
  };
}

export function bindUnixSocket(server: grpc.Server, socketPath: string): Promise<void> {
  return new Promise<void>((resolve, reject) =>
    server.bindAsync(`unix://${socketPath}`, grpc.ServerCredentials.createInsecure(), (error) =>
      error ? reject(error) : resolve(),
    ),
  );
}
