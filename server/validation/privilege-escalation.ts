/**
 * A container kept from gaining privileges (`allowPrivilegeEscalation: false`) that is yet
 * privileged, or is given CAP_SYS_ADMIN (by that name: `SYS_ADMIN` is not looked for), as the
 * reference's ValidateSecurityContext refuses it: at the whole security context, once for the
 * privileged flag and once for each CAP_SYS_ADMIN added, with the context printed as the
 * reference prints its internal struct.
 */
import { goJSONEscaped } from '../../api/go-quote';
import type { FieldError } from '../status/field-error';
import { GoValue, invalid, type FieldPath } from '../status/field-errors';

type Json = Record<string, unknown>;

export interface PrivilegeSecurityContext {
  privileged?: boolean | null;
  allowPrivilegeEscalation?: boolean | null;
  capabilities?: { add?: unknown[] | null; drop?: unknown[] | null } | null;
  [field: string]: unknown;
}

export function privilegeEscalationErrors(
  context: PrivilegeSecurityContext | null | undefined,
  path: FieldPath,
): FieldError[] {
  if (context?.allowPrivilegeEscalation !== false) return [];
  const errors: FieldError[] = [];
  if (context.privileged === true)
    errors.push(
      invalid(
        path,
        goSecurityContext(context),
        'cannot set `allowPrivilegeEscalation` to false and `privileged` to true',
      ),
    );
  for (const capability of context.capabilities?.add ?? [])
    if (capability === 'CAP_SYS_ADMIN')
      errors.push(
        invalid(
          path,
          goSecurityContext(context),
          'cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN',
        ),
      );
  return errors;
}

const orNull = (value: unknown) => value ?? null;

/** A struct member that is a pointer: null when unset, else the struct `build` makes. */
function pointer(value: unknown, build: (present: Json) => Json): Json | null {
  return value === undefined || value === null ? null : build(value as Json);
}

const profile = (present: Json) => ({ Type: present.type ?? '', LocalhostProfile: orNull(present.localhostProfile) });

/**
 * The security context as Go's encoding/json writes the reference's internal struct: its field
 * names in its order, every member present, unset pointers and lists null.
 */
function goSecurityContext(context: PrivilegeSecurityContext): GoValue {
  const internal = {
    Capabilities: pointer(context.capabilities, (present) => ({
      Add: orNull(present.add),
      Drop: orNull(present.drop),
    })),
    Privileged: orNull(context.privileged),
    SELinuxOptions: pointer(context.seLinuxOptions, (present) => ({
      User: present.user ?? '',
      Role: present.role ?? '',
      Type: present.type ?? '',
      Level: present.level ?? '',
    })),
    WindowsOptions: pointer(context.windowsOptions, (present) => ({
      GMSACredentialSpecName: orNull(present.gmsaCredentialSpecName),
      GMSACredentialSpec: orNull(present.gmsaCredentialSpec),
      RunAsUserName: orNull(present.runAsUserName),
      HostProcess: orNull(present.hostProcess),
    })),
    RunAsUser: orNull(context.runAsUser),
    RunAsGroup: orNull(context.runAsGroup),
    RunAsNonRoot: orNull(context.runAsNonRoot),
    ReadOnlyRootFilesystem: orNull(context.readOnlyRootFilesystem),
    AllowPrivilegeEscalation: orNull(context.allowPrivilegeEscalation),
    ProcMount: orNull(context.procMount),
    SeccompProfile: pointer(context.seccompProfile, profile),
    AppArmorProfile: pointer(context.appArmorProfile, profile),
  };
  return new GoValue(goJSONEscaped(JSON.stringify(internal)));
}
