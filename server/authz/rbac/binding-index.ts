/**
 * Bindings by the subjects they name, so that a check visits only the bindings that may apply
 * to its user (by user name, by one of its groups, or as the service account it is) instead of
 * every binding of the namespace: with a thousand RoleBindings in a namespace, a denied request
 * otherwise reads them all. Candidates come out in the order the bindings were first added, the
 * order a full scan of the informer's map visits them, so the binding named in an allow reason
 * does not change. The caller still matches the subjects (a candidate is only a candidate).
 */
import type { UserInfo } from '../../../api/user-info';
import type { KubeObject } from '../../../api/objects';
import { subjectsOf } from './policy';
import { serviceAccountUsername } from '../../authn/service-account/names';

interface Entry {
  readonly binding: KubeObject;
  /** Position of first insertion; an update keeps it, as a Map keeps a replaced key's place. */
  readonly order: number;
  readonly keys: readonly string[];
}

const userKey = (name: string) => `user:${name}`;
const groupKey = (name: string) => `group:${name}`;

/** The keys a binding is found by: a service account subject stands for its user name. */
function subjectKeys(binding: KubeObject): string[] {
  const bindingNamespace = binding.metadata.namespace ?? '';
  const keys = new Set<string>();
  for (const subject of subjectsOf(binding)) {
    if (subject.kind === 'User') keys.add(userKey(subject.name));
    else if (subject.kind === 'Group') keys.add(groupKey(subject.name));
    else if (subject.kind === 'ServiceAccount') {
      // Without a namespace of its own or its binding's, it names no one.
      const namespace = subject.namespace || bindingNamespace;
      if (namespace !== '') keys.add(userKey(serviceAccountUsername(namespace, subject.name)));
    }
  }
  return [...keys];
}

export class BindingIndex {
  private readonly entries = new Map<string, Entry>();
  private readonly byKey = new Map<string, Set<Entry>>();
  private nextOrder = 0;

  upsert(binding: KubeObject): void {
    const name = String(binding.metadata.name);
    const previous = this.entries.get(name);
    if (previous !== undefined) this.unlink(previous);
    const entry: Entry = { binding, order: previous?.order ?? this.nextOrder++, keys: subjectKeys(binding) };
    this.entries.set(name, entry);
    for (const key of entry.keys) {
      let entries = this.byKey.get(key);
      if (entries === undefined) this.byKey.set(key, (entries = new Set()));
      entries.add(entry);
    }
  }

  remove(binding: KubeObject): void {
    const name = String(binding.metadata.name);
    const entry = this.entries.get(name);
    if (entry === undefined) return;
    this.entries.delete(name);
    this.unlink(entry);
  }

  private unlink(entry: Entry): void {
    for (const key of entry.keys) {
      const entries = this.byKey.get(key);
      entries?.delete(entry);
      if (entries?.size === 0) this.byKey.delete(key);
    }
  }

  /** The bindings naming this user, one of its groups, or the service account it is, in insertion order. */
  candidates(user: UserInfo): KubeObject[] {
    const found = new Set<Entry>();
    for (const key of [userKey(user.name), ...user.groups.map(groupKey)]) {
      for (const entry of this.byKey.get(key) ?? []) found.add(entry);
    }
    return [...found].sort((a, b) => a.order - b.order).map((entry) => entry.binding);
  }
}
