// What changed between two OpenAPI documents of the store, each change judged breaking or not for a client
// written against the older one: operations, parameters, request bodies, answers (statuses, headers, fields).
// A request schema breaks a client by taking less (a field or type dropped, a field newly required, a tighter
// limit); an answer schema by giving less or other (a field dropped or no longer always there, a new type).

export interface DocumentChange {
  /** `GET /products/{id}` */
  operation: string;
  what: string;
  breaking: boolean;
}

type Json = Record<string, unknown>;
type Side = 'request' | 'response';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A local `$ref` followed to what it names (chains too); anything else as it is. */
function resolved(document: Json, node: unknown): Json | undefined {
  let current = node;
  for (let hops = 0; isObject(current) && typeof current.$ref === 'string' && hops < 20; hops += 1) {
    const ref: string = current.$ref;
    if (!ref.startsWith('#/')) return undefined;
    current = ref
      .slice(2)
      .split('/')
      .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<unknown>((at, key) => (isObject(at) ? at[key] : undefined), document);
  }
  return isObject(current) ? current : undefined;
}

function types(schema: Json): Set<string> | undefined {
  if (typeof schema.type === 'string') return new Set([schema.type]);
  if (Array.isArray(schema.type)) return new Set(schema.type.map(String));
  return undefined;
}

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : []);
const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

class Comparison {
  readonly changes: DocumentChange[] = [];
  // Schemas reached again through a $ref cycle are compared once per place.
  private readonly seen = new Set<string>();

  private readonly older: Json;
  private readonly newer: Json;

  constructor(older: Json, newer: Json) {
    this.older = older;
    this.newer = newer;
  }

  note(operation: string, what: string, breaking: boolean): void {
    this.changes.push({ operation, what, breaking });
  }

  /** `place` is the body, an answer or a parameter; `where` the field path inside it (`products[].item_name`). */
  schemas(operation: string, place: string, where: string, side: Side, oldNode: unknown, newNode: unknown, depth = 0): void {
    const before = resolved(this.older, oldNode);
    const after = resolved(this.newer, newNode);
    if (before === undefined || after === undefined || depth > 12) return;
    const key = `${operation}|${place}|${where}|${side}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    const at = where === '' ? place : `${place}: field ${where}`;

    const oldTypes = types(before);
    const newTypes = types(after);
    if (oldTypes !== undefined && newTypes !== undefined) {
      if (side === 'request') {
        const dropped = [...oldTypes].filter((t) => !newTypes.has(t));
        if (dropped.length > 0) this.note(operation, `${at} no longer takes ${dropped.join(', ')}`, true);
      } else {
        const added = [...newTypes].filter((t) => !oldTypes.has(t));
        if (added.length > 0) this.note(operation, `${at} may now be ${added.join(', ')}`, true);
      }
    }
    if (Array.isArray(before.enum) && Array.isArray(after.enum)) {
      const oldValues = strings(before.enum);
      const newValues = strings(after.enum);
      const dropped = oldValues.filter((v) => !newValues.includes(v));
      const added = newValues.filter((v) => !oldValues.includes(v));
      if (dropped.length > 0) this.note(operation, `${at} no longer has the value(s) ${dropped.join(', ')}`, side === 'request');
      if (added.length > 0) this.note(operation, `${at} has the new value(s) ${added.join(', ')}`, false);
    }
    if (side === 'request') this.limits(operation, at, before, after);

    const oldProperties = isObject(before.properties) ? before.properties : {};
    const newProperties = isObject(after.properties) ? after.properties : {};
    const oldRequired = strings(before.required);
    const newRequired = strings(after.required);
    const field = (name: string) => (where === '' ? name : `${where}.${name}`);
    const named = (name: string) => `${place}: field ${field(name)}`;
    for (const name of Object.keys(oldProperties)) {
      if (!(name in newProperties)) this.note(operation, `${named(name)} removed`, true);
      else this.schemas(operation, place, field(name), side, oldProperties[name], newProperties[name], depth + 1);
    }
    for (const name of Object.keys(newProperties))
      if (!(name in oldProperties))
        this.note(
          operation,
          `${named(name)} added${newRequired.includes(name) ? ', required' : ''}`,
          side === 'request' && newRequired.includes(name),
        );
    if (side === 'request') {
      for (const name of newRequired)
        if (!oldRequired.includes(name) && name in oldProperties) this.note(operation, `${named(name)} is now required`, true);
    } else {
      for (const name of oldRequired)
        if (!newRequired.includes(name) && name in newProperties) this.note(operation, `${named(name)} may now be absent`, true);
    }
    if (before.items !== undefined && after.items !== undefined)
      this.schemas(operation, place, `${where}[]`, side, before.items, after.items, depth + 1);
    // Conditional and combined parts, matched by position (ProductCreate's `then` requires item_name without an id).
    for (const keyword of ['then', 'else', 'allOf', 'anyOf', 'oneOf'] as const) {
      const olds = Array.isArray(before[keyword]) ? (before[keyword] as unknown[]) : [before[keyword]];
      const news = Array.isArray(after[keyword]) ? (after[keyword] as unknown[]) : [after[keyword]];
      olds.forEach((part, index) => {
        if (part !== undefined && news[index] !== undefined) this.schemas(operation, place, where, side, part, news[index], depth + 1);
      });
    }
  }

  private limits(operation: string, at: string, before: Json, after: Json): void {
    const tighter = (name: string, smallerIsTighter: boolean): void => {
      const was = num(before[name]);
      const is = num(after[name]);
      if (is !== undefined && (was === undefined || (smallerIsTighter ? is < was : is > was)))
        this.note(operation, `${at} has ${name} ${is} (was ${was ?? 'none'})`, true);
    };
    tighter('maxLength', true);
    tighter('maximum', true);
    tighter('maxItems', true);
    tighter('minLength', false);
    tighter('minimum', false);
    tighter('minItems', false);
    if (typeof after.pattern === 'string' && after.pattern !== before.pattern)
      this.note(
        operation,
        `${at} must match ${after.pattern}${typeof before.pattern === 'string' ? ` (was ${before.pattern})` : ''}`,
        true,
      );
  }
}

interface OperationView {
  operation: Json;
  parameters: Map<string, Json>;
}

function operationsOf(document: Json): Map<string, OperationView> {
  const found = new Map<string, OperationView>();
  const paths = isObject(document.paths) ? document.paths : {};
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item)) continue;
    for (const method of METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const parameters = new Map<string, Json>();
      for (const list of [item.parameters, operation.parameters])
        for (const parameter of Array.isArray(list) ? list : []) {
          const p = resolved(document, parameter);
          if (p !== undefined) parameters.set(`${String(p.in)} parameter ${String(p.name)}`, p);
        }
      found.set(`${method.toUpperCase()} ${path}`, { operation, parameters });
    }
  }
  return found;
}

/** The day a document's version took effect: its info.version, when that is a date. */
function versionDate(document: Json): string {
  return isObject(document.info) ? String(document.info.version) : '';
}

const jsonSchemaOf = (document: Json, holder: unknown): unknown => {
  const h = resolved(document, holder);
  const content = h !== undefined && isObject(h.content) ? h.content : {};
  const media = content['application/json'];
  return isObject(media) ? media.schema : undefined;
};

export function documentChanges(older: Json, newer: Json): DocumentChange[] {
  const compare = new Comparison(older, newer);
  const before = operationsOf(older);
  const after = operationsOf(newer);
  for (const [name, { operation }] of before) {
    if (after.has(name)) continue;
    const sunset = operation['x-sunset'];
    // A removal the older version announced, now past its sunset, breaks no promise.
    const announced = operation.deprecated === true && typeof sunset === 'string' && sunset <= versionDate(newer);
    compare.note(name, announced ? `removed after its sunset, ${String(sunset)}` : 'operation removed', !announced);
  }
  for (const name of after.keys()) if (!before.has(name)) compare.note(name, 'operation added', false);

  for (const [name, was] of before) {
    const is = after.get(name);
    if (is === undefined) continue;
    if (is.operation.deprecated === true && was.operation.deprecated !== true)
      compare.note(
        name,
        `deprecated: removed in ${String(is.operation['x-removed-in'])}, sunset ${String(is.operation['x-sunset'])}`,
        false,
      );
    for (const [key, parameter] of was.parameters) {
      const now = is.parameters.get(key);
      if (now === undefined) compare.note(name, `${key} removed`, true);
      else {
        if (now.required === true && parameter.required !== true) compare.note(name, `${key} is now required`, true);
        compare.schemas(name, key, '', 'request', parameter.schema, now.schema);
      }
    }
    for (const [key, parameter] of is.parameters)
      if (!was.parameters.has(key))
        compare.note(name, `${key} added${parameter.required === true ? ', required' : ''}`, parameter.required === true);

    const oldBody = resolved(older, was.operation.requestBody);
    const newBody = resolved(newer, is.operation.requestBody);
    if (newBody !== undefined && newBody.required === true && oldBody?.required !== true)
      compare.note(name, 'a body is now required', true);
    if (oldBody !== undefined && newBody === undefined) compare.note(name, 'the body is no longer described', true);
    compare.schemas(name, 'the body', '', 'request', jsonSchemaOf(older, oldBody), jsonSchemaOf(newer, newBody));

    const oldResponses = isObject(was.operation.responses) ? was.operation.responses : {};
    const newResponses = isObject(is.operation.responses) ? is.operation.responses : {};
    for (const [status, response] of Object.entries(oldResponses)) {
      if (!(status in newResponses)) {
        compare.note(name, `no longer answers ${status}`, status.startsWith('2'));
        continue;
      }
      const oldHeaders = resolved(older, response)?.headers;
      const newHeaders = resolved(newer, newResponses[status])?.headers;
      for (const header of Object.keys(isObject(oldHeaders) ? oldHeaders : {}))
        if (!isObject(newHeaders) || !(header in newHeaders))
          compare.note(name, `answer ${status} no longer carries ${header}`, status.startsWith('2'));
      compare.schemas(name, `answer ${status}`, '', 'response', jsonSchemaOf(older, response), jsonSchemaOf(newer, newResponses[status]));
    }
    for (const status of Object.keys(newResponses)) if (!(status in oldResponses)) compare.note(name, `may answer ${status}`, false);
  }
  return compare.changes;
}
