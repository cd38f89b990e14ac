/**
 * ValidatingAdmissionPolicy, MutatingAdmissionPolicy and their bindings, as far as evaluation
 * reads them, and the record of one admission request they are evaluated against. Plain data: the admission chain builds the
 * record, looks up params and the namespace, and acts on the outcome.
 */
import type { UserInfo } from './user-info';
import type { GroupVersionKind, GroupVersionResource } from './identity';

export interface LabelSelector {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: ReadonlyArray<{
    readonly key: string;
    readonly operator: string;
    readonly values?: readonly string[];
  }>;
}

export interface RuleWithOperations {
  readonly operations?: readonly string[];
  readonly apiGroups?: readonly string[];
  readonly apiVersions?: readonly string[];
  readonly resources?: readonly string[];
  readonly resourceNames?: readonly string[];
  /** `Cluster`, `Namespaced` or `*` (the default). */
  readonly scope?: string;
}

export interface MatchResources {
  readonly namespaceSelector?: LabelSelector;
  readonly objectSelector?: LabelSelector;
  readonly resourceRules?: readonly RuleWithOperations[];
  readonly excludeResourceRules?: readonly RuleWithOperations[];
  readonly matchPolicy?: 'Exact' | 'Equivalent';
}

export interface Validation {
  readonly expression: string;
  readonly message?: string;
  readonly messageExpression?: string;
  /** A Status reason: `Unauthorized`, `Forbidden`, `Invalid` (the default), `RequestEntityTooLarge`. */
  readonly reason?: string;
}

export interface ValidatingAdmissionPolicySpec {
  readonly paramKind?: ParamKind;
  readonly matchConstraints?: MatchResources;
  readonly validations?: readonly Validation[];
  readonly failurePolicy?: 'Fail' | 'Ignore';
  readonly auditAnnotations?: ReadonlyArray<{ readonly key: string; readonly valueExpression: string }>;
  readonly matchConditions?: ReadonlyArray<{ readonly name: string; readonly expression: string }>;
  readonly variables?: ReadonlyArray<{ readonly name: string; readonly expression: string }>;
}

/** What a type check found wrong with one expression of a policy. */
export interface ExpressionWarning {
  /** Where the expression is, as a JSONPath relative to the policy (`spec.validations[0].expression`). */
  readonly fieldRef: string;
  readonly warning: string;
}

export interface ValidatingAdmissionPolicyStatus {
  readonly observedGeneration?: number;
  readonly typeChecking?: { readonly expressionWarnings?: readonly ExpressionWarning[] } | null;
  /** metav1.Conditions. */
  readonly conditions?: readonly object[];
}

export interface ValidatingAdmissionPolicy {
  readonly metadata: { readonly name: string };
  readonly spec: ValidatingAdmissionPolicySpec;
}

export type ValidationAction = 'Deny' | 'Warn' | 'Audit';

export interface ParamKind {
  readonly apiVersion?: string;
  readonly kind?: string;
}

export interface ParamRef {
  readonly name?: string;
  readonly namespace?: string;
  readonly selector?: LabelSelector;
  readonly parameterNotFoundAction?: 'Allow' | 'Deny';
}

export interface ValidatingAdmissionPolicyBinding {
  readonly metadata: { readonly name: string };
  readonly spec: {
    readonly policyName: string;
    readonly paramRef?: ParamRef;
    readonly matchResources?: MatchResources;
    readonly validationActions: readonly ValidationAction[];
  };
}

export interface Mutation {
  readonly patchType: 'ApplyConfiguration' | 'JSONPatch';
  readonly applyConfiguration?: { readonly expression: string };
  readonly jsonPatch?: { readonly expression: string };
}

export interface MutatingAdmissionPolicySpec {
  readonly paramKind?: ParamKind;
  readonly matchConstraints?: MatchResources;
  readonly variables?: ReadonlyArray<{ readonly name: string; readonly expression: string }>;
  readonly mutations?: readonly Mutation[];
  readonly failurePolicy?: 'Fail' | 'Ignore';
  readonly matchConditions?: ReadonlyArray<{ readonly name: string; readonly expression: string }>;
  readonly reinvocationPolicy?: 'Never' | 'IfNeeded';
}

export interface MutatingAdmissionPolicy {
  readonly metadata: { readonly name: string };
  readonly spec: MutatingAdmissionPolicySpec;
}

export interface MutatingAdmissionPolicyBinding {
  readonly metadata: { readonly name: string };
  readonly spec: {
    readonly policyName: string;
    readonly paramRef?: ParamRef;
    readonly matchResources?: MatchResources;
  };
}

type JsonObject = Readonly<Record<string, unknown>>;

/** One admission request, as policies see it. */
export interface AdmissionAttributes {
  readonly operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  readonly resource: GroupVersionResource;
  readonly kind: GroupVersionKind;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
  readonly object: JsonObject | null;
  readonly oldObject: JsonObject | null;
  readonly userInfo: UserInfo;
  readonly dryRun: boolean;
  /** CreateOptions, UpdateOptions or DeleteOptions as sent. */
  readonly options?: JsonObject | null;
}
