// Who may do what. The administrator may do anything. The functions' service account is checked
// against RBAC for Secrets, as a real cluster does, and may do everything else (the functions'
// own ClusterRole grants that in a cluster; see knative/).

export interface User {
  name: string;
  groups: string[];
}

export interface RequestAttributes {
  verb: string;
  group: string;
  resource: string;
  namespace?: string;
  name?: string;
}

interface Rule {
  apiGroups?: string[];
  resources?: string[];
  verbs?: string[];
  resourceNames?: string[];
}

interface Subject {
  kind: string;
  name: string;
  namespace?: string;
}

export interface RbacObjects {
  roles: { metadata: { namespace?: string; name?: string }; rules?: Rule[] }[];
  clusterRoles: { metadata: { name?: string }; rules?: Rule[] }[];
  roleBindings: { metadata: { namespace?: string }; subjects?: Subject[]; roleRef: { kind: string; name: string } }[];
  clusterRoleBindings: { subjects?: Subject[]; roleRef: { kind: string; name: string } }[];
}

export function serviceAccountUser(namespace: string, name: string): User {
  return {
    name: `system:serviceaccount:${namespace}:${name}`,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
  };
}

function subjectMatches(subject: Subject, user: User): boolean {
  switch (subject.kind) {
    case 'User':
      return subject.name === user.name;
    case 'Group':
      return user.groups.includes(subject.name);
    case 'ServiceAccount':
      return user.name === `system:serviceaccount:${subject.namespace}:${subject.name}`;
    default:
      return false;
  }
}

function ruleAllows(rule: Rule, request: RequestAttributes): boolean {
  const has = (list: string[] | undefined, value: string) => !!list && (list.includes('*') || list.includes(value));
  if (!has(rule.apiGroups, request.group) || !has(rule.resources, request.resource) || !has(rule.verbs, request.verb)) return false;
  return !rule.resourceNames?.length || (!!request.name && rule.resourceNames.includes(request.name));
}

/** RBAC's answer: some binding for the user grants a rule that covers the request. */
export function rbacAllows(user: User, request: RequestAttributes, rbac: RbacObjects): boolean {
  const rulesOf = (roleRef: { kind: string; name: string }, namespace?: string): Rule[] => {
    if (roleRef.kind === 'ClusterRole') return rbac.clusterRoles.find((role) => role.metadata.name === roleRef.name)?.rules ?? [];
    return rbac.roles.find((role) => role.metadata.namespace === namespace && role.metadata.name === roleRef.name)?.rules ?? [];
  };
  const granted = [
    ...rbac.clusterRoleBindings.filter((binding) => binding.subjects?.some((subject) => subjectMatches(subject, user))).flatMap((binding) => rulesOf(binding.roleRef)),
    ...rbac.roleBindings
      .filter((binding) => request.namespace && binding.metadata.namespace === request.namespace && binding.subjects?.some((subject) => subjectMatches(subject, user)))
      .flatMap((binding) => rulesOf(binding.roleRef, binding.metadata.namespace)),
  ];
  return granted.some((rule) => ruleAllows(rule, request));
}

export function authorize(user: User, request: RequestAttributes, rbac: () => RbacObjects): boolean {
  if (user.groups.includes('system:masters')) return true;
  if (request.group === '' && request.resource === 'secrets') return rbacAllows(user, request, rbac());
  return true;
}
