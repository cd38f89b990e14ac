/**
 * The variables a ValidatingAdmissionPolicy's expressions are compiled with, typed as the
 * reference types them: `request` as an AdmissionRequest, `namespaceObject` as a Namespace,
 * `params` only when the policy has a paramKind, `object` and `oldObject` by a kind's schema
 * when one is known (type-checking) and dynamic otherwise (write-time validation), `variables`
 * by what each earlier variable's expression gives (where a ValidatingAdmissionPolicy is
 * written, only when it has variables), and `authorizer` everywhere but in messageExpressions;
 * matchConditions see no `variables`. A MutatingAdmissionPolicy's mutations are compiled with the
 * same variables (as the reference's, whose variables and matchConditions cannot construct types).
 */
import type { CompileResult, EnvironmentKind, ExpressionCompiler, VariableDeclarations } from '../../cel/environment';
import { celEnvironment } from '../../cel/lazy';
import type { CelSchema } from '../../cel/schema-types';
import { AUTHORIZER_VARIABLES } from '../../cel/libraries/request-authorizer';

const STRING: CelSchema = { type: 'string' };
const GROUP_VERSION_KIND: CelSchema = { type: 'object', properties: { group: STRING, version: STRING, kind: STRING } };
const GROUP_VERSION_RESOURCE: CelSchema = {
  type: 'object',
  properties: { group: STRING, version: STRING, resource: STRING },
};

/** The `request` variable's type: the AdmissionRequest fields expressions read. */
const ADMISSION_REQUEST: CelSchema = {
  type: 'object',
  properties: {
    kind: GROUP_VERSION_KIND,
    resource: GROUP_VERSION_RESOURCE,
    subResource: STRING,
    requestKind: GROUP_VERSION_KIND,
    requestResource: GROUP_VERSION_RESOURCE,
    requestSubResource: STRING,
    name: STRING,
    namespace: STRING,
    operation: STRING,
    userInfo: {
      type: 'object',
      properties: {
        username: STRING,
        uid: STRING,
        groups: { type: 'array', items: STRING },
        extra: { type: 'object', additionalProperties: { type: 'array', items: STRING } },
      },
    },
    dryRun: { type: 'boolean' },
    options: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
  },
};

export interface PolicyTypes {
  /** The matched kind's schema; absent: dynamic. */
  readonly object?: CelSchema;
  /** Whether the policy has a paramKind, and the params' schema when it is known. */
  readonly params?: { readonly schema?: CelSchema };
  readonly namespace?: CelSchema;
}

/** The schema standing for a variable of this CEL type; dynamic for anything but plain values. */
function schemaOfCelType(type: string): CelSchema {
  const scalars: Readonly<Record<string, CelSchema>> = {
    string: STRING,
    int: { type: 'integer' },
    double: { type: 'number' },
    bool: { type: 'boolean' },
    bytes: { type: 'string', format: 'byte' },
    'google.protobuf.Timestamp': { type: 'string', format: 'date-time' },
    'google.protobuf.Duration': { type: 'string', format: 'duration' },
  };
  if (scalars[type] !== undefined) return scalars[type];
  const list = /^list<(.+)>$/.exec(type);
  if (list) return { type: 'array', items: schemaOfCelType(list[1]) };
  const map = /^map<string, (.+)>$/.exec(type);
  if (map) return { type: 'object', additionalProperties: schemaOfCelType(map[1]) };
  return {};
}

/** `variables` undefined: none declared (matchConditions, which the reference compiles without them). */
function declarations(
  types: PolicyTypes,
  variables: Readonly<Record<string, CelSchema>> | undefined,
  withAuthorizer: boolean,
): VariableDeclarations {
  return {
    object: types.object ? { schema: types.object } : 'dyn',
    oldObject: types.object ? { schema: types.object } : 'dyn',
    request: { schema: ADMISSION_REQUEST },
    ...(types.params ? { params: types.params.schema ? { schema: types.params.schema } : 'dyn' } : {}),
    namespaceObject: types.namespace ? { schema: types.namespace } : 'dyn',
    ...(variables ? { variables: { schema: { type: 'object', properties: { ...variables } } } } : {}),
    ...(withAuthorizer ? AUTHORIZER_VARIABLES : {}),
  };
}

export interface PolicyCompilers {
  /** For everything but matchConditions, messageExpressions and mutations. */
  readonly expressions: ExpressionCompiler;
  /** For matchConditions: no `variables`. Made on first use. */
  readonly matchConditions: ExpressionCompiler;
  /** For messageExpressions: no `authorizer`. Made on first use (a typed compiler costs milliseconds). */
  readonly messages: ExpressionCompiler;
  /**
   * For a MutatingAdmissionPolicy's mutations: the policy's variables, and the types they
   * construct (`Object`, `JSONPatch`, `jsonpatch.escapeKey`). Made on first use.
   */
  readonly mutations: ExpressionCompiler;
}

export interface PolicyCompilerOptions {
  /** `new` where a policy is written, `stored` to type-check a stored one (default `new`). */
  readonly environment?: EnvironmentKind;
  /** Sees each variable's compile result. */
  readonly onVariable?: (index: number, result: CompileResult) => void;
  /**
   * Whether a policy without variables still declares `variables` (default true, as the
   * reference's type checking and mutations do); its write-time validation of a
   * ValidatingAdmissionPolicy declares them only for a policy that has some.
   */
  readonly variablesWhenNone?: boolean;
}

/**
 * Compilers with the policy's variables declared, each typed by its expression as compiled with
 * the ones before it (dynamic when it does not compile).
 */
export function policyCompilers(
  types: PolicyTypes,
  variables: ReadonlyArray<{ readonly name: string; readonly expression: string }>,
  { environment = 'new', onVariable, variablesWhenNone = true }: PolicyCompilerOptions = {},
): PolicyCompilers {
  const { ExpressionCompiler, mutationTypesLibrary } = celEnvironment();
  const typed: Record<string, CelSchema> = {};
  const declared = variables.length > 0 || variablesWhenNone ? typed : undefined;
  let compiler = new ExpressionCompiler(declarations(types, declared, true), { environment });
  for (const [index, { name, expression }] of variables.entries()) {
    // A blank expression is refused as required, not compiled (as the reference's validateVariable).
    if (typeof expression !== 'string' || expression.trim() === '') {
      typed[name] = {};
      continue;
    }
    const result = compiler.compile(expression);
    onVariable?.(index, result);
    typed[name] = result.ok ? schemaOfCelType(result.compiled.outputType) : {};
    compiler = new ExpressionCompiler(declarations(types, typed, true), { environment });
  }
  let matchConditions: ExpressionCompiler | undefined;
  let messages: ExpressionCompiler | undefined;
  let mutations: ExpressionCompiler | undefined;
  return {
    expressions: compiler,
    get matchConditions() {
      return (matchConditions ??= new ExpressionCompiler(declarations(types, undefined, true), { environment }));
    },
    get messages() {
      return (messages ??= new ExpressionCompiler(declarations(types, declared, false), { environment }));
    },
    get mutations() {
      return (mutations ??= new ExpressionCompiler(declarations(types, typed, true), {
        libraries: [mutationTypesLibrary()],
        environment,
      }));
    },
  };
}
