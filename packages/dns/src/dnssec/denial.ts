// Authenticated denial of existence: whether an NSEC or NSEC3 record covers or matches a name, and
// the proofs built from them (RFC 4035 §5.4, RFC 5155 §8, RFC 6840 §4). Signatures are not checked
// here: the caller verifies the records' RRSIGs with verifyRrsig.
import { RRType } from '../constants.ts';
import { base32hexDecode } from '../base32hex.ts';
import { Name } from '../name.ts';
import type { Nsec3Data, NsecData } from '../wire/rdata/dnssec-records.ts';
import { compareBytes } from './canonical.ts';
import { nsec3Hash } from './nsec3-hash.ts';

export interface NsecRecord {
  name: Name;
  rdata: NsecData;
}

export interface Nsec3Record {
  name: Name;
  rdata: Nsec3Data;
}

const NSEC3_SHA1 = 1;
const wildcardLabel = Uint8Array.of(0x2a);

/** True when `name` lies strictly between the NSEC's owner and next name, in canonical order; the last NSEC of a zone (next name at or before its owner) wraps. */
export function nsecCovers(nsec: NsecRecord, name: Name): boolean {
  const ownerToNext = nsec.name.compareCanonical(nsec.rdata.nextDomain);
  const afterOwner = nsec.name.compareCanonical(name) < 0;
  const beforeNext = name.compareCanonical(nsec.rdata.nextDomain) < 0;
  if (ownerToNext < 0) return afterOwner && beforeNext;
  if (ownerToNext > 0) return afterOwner || beforeNext;
  return !nsec.name.equals(name);
}

export function nsecMatches(nsec: NsecRecord, name: Name): boolean {
  return nsec.name.equals(name);
}

/** The hash an NSEC3 owner name carries (its first label, base32hex), or undefined when it carries none. */
export function nsec3OwnerHash(nsec3: Nsec3Record): Uint8Array | undefined {
  const label = nsec3.name.labels[0];
  if (!label) return undefined;
  const hash = base32hexDecode(Buffer.from(label).toString('latin1'));
  return hash && hash.length === nsec3.rdata.nextHashed.length ? hash : undefined;
}

/** The hash of `name` with this NSEC3's parameters; undefined for an unknown hash algorithm. */
export function nsec3HashOf(nsec3: Nsec3Record, name: Name): Uint8Array | undefined {
  return nsec3.rdata.hashAlgorithm === NSEC3_SHA1 ? nsec3Hash(name, nsec3.rdata.salt, nsec3.rdata.iterations) : undefined;
}

/** Whether the NSEC3's zone (its owner minus the hash label) contains `name`. */
function inNsec3Zone(nsec3: Nsec3Record, name: Name): boolean {
  const zone = nsec3.name.parent();
  return zone !== undefined && name.isSubdomainOf(zone);
}

export function nsec3Matches(nsec3: Nsec3Record, name: Name): boolean {
  const owner = nsec3OwnerHash(nsec3);
  const hash = nsec3HashOf(nsec3, name);
  return owner !== undefined && hash !== undefined && inNsec3Zone(nsec3, name) && compareBytes(owner, hash) === 0;
}

/** True when the hash of `name` lies strictly between the NSEC3's owner hash and next hash (the last one wraps). */
export function nsec3Covers(nsec3: Nsec3Record, name: Name): boolean {
  const owner = nsec3OwnerHash(nsec3);
  const hash = nsec3HashOf(nsec3, name);
  if (owner === undefined || hash === undefined || !inNsec3Zone(nsec3, name)) return false;
  const next = nsec3.rdata.nextHashed;
  const ownerToNext = compareBytes(owner, next);
  const afterOwner = compareBytes(owner, hash) < 0;
  const beforeNext = compareBytes(hash, next) < 0;
  if (ownerToNext < 0) return afterOwner && beforeNext;
  if (ownerToNext > 0) return afterOwner || beforeNext;
  return compareBytes(owner, hash) !== 0;
}

export function wildcardOf(name: Name): Name {
  return Name.fromLabels([wildcardLabel, ...name.labels]);
}

/** The ancestor of `name` one label longer than `ancestor` (the "next closer" name of RFC 5155 §1.3). */
export function nextCloserName(name: Name, ancestor: Name): Name {
  return Name.fromLabels(name.labels.slice(name.labelCount - ancestor.labelCount - 1));
}

export type DenialFailure =
  | 'no-records'
  | 'outside-zone'
  | 'name-not-covered'
  | 'no-closest-encloser'
  | 'next-closer-not-covered'
  | 'wildcard-not-denied'
  | 'type-present'
  | 'delegation'
  | 'unknown-hash-algorithm';

export type DenialResult =
  { ok: true; closestEncloser: Name; nextCloser?: Name; wildcard: Name } | { ok: false; reason: DenialFailure; detail: string };

const fail = (reason: DenialFailure, detail: string): DenialResult => ({ ok: false, reason, detail });

function has(types: readonly number[], type: number): boolean {
  return types.includes(type);
}

/** RFC 6840 §4.1: a record at a delegation point (NS without SOA) or with a DNAME proves nothing below it. */
function isCut(types: readonly number[]): boolean {
  return (has(types, RRType.NS) && !has(types, RRType.SOA)) || has(types, RRType.DNAME);
}

const labelText = (label: Uint8Array): string => Buffer.from(label).toString('latin1').toLowerCase();

function commonAncestor(a: Name, b: Name): Name {
  const x = a.labels;
  const y = b.labels;
  let n = 0;
  while (n < x.length && n < y.length && labelText(x[x.length - 1 - n]) === labelText(y[y.length - 1 - n])) n++;
  return Name.fromLabels(x.slice(x.length - n));
}

/**
 * NSEC proof that `qname` does not exist in `zone` (RFC 4035 §5.4): an NSEC covers it, and an NSEC
 * covers the wildcard at its closest encloser (the longest name that both the query name and the
 * covering NSEC's owner or next name end in).
 */
export function proveNsecNameError(nsecs: readonly NsecRecord[], qname: Name, zone: Name): DenialResult {
  if (nsecs.length === 0) return fail('no-records', 'no NSEC records');
  if (!qname.isSubdomainOf(zone)) return fail('outside-zone', `${qname.toString()} is not in ${zone.toString()}`);
  const covering = nsecs.find((nsec) => nsecCovers(nsec, qname) && nsec.name.isSubdomainOf(zone));
  if (!covering) return fail('name-not-covered', `no NSEC covers ${qname.toString()}`);
  const cut = nsecs.find(
    (nsec) => !nsec.name.equals(qname) && qname.isSubdomainOf(nsec.name) && !nsec.name.equals(zone) && isCut(nsec.rdata.types),
  );
  if (cut) return fail('delegation', `the NSEC at ${cut.name.toString()} is a delegation or DNAME above the name`);
  const byOwner = commonAncestor(qname, covering.name);
  const byNext = commonAncestor(qname, covering.rdata.nextDomain);
  let closestEncloser = byOwner.labelCount >= byNext.labelCount ? byOwner : byNext;
  if (!closestEncloser.isSubdomainOf(zone)) closestEncloser = zone;
  const wildcard = wildcardOf(closestEncloser);
  if (!nsecs.some((nsec) => nsecCovers(nsec, wildcard))) return fail('wildcard-not-denied', `no NSEC covers ${wildcard.toString()}`);
  return { ok: true, closestEncloser, nextCloser: nextCloserName(qname, closestEncloser), wildcard };
}

/**
 * NSEC proof that `qname` has no `qtype` (RFC 4035 §3.1.3.1, §3.1.3.4, §5.4): an NSEC at the name
 * without the type (nor CNAME); or for an empty non-terminal one whose next name lies below it; or,
 * for a name a wildcard would answer, an NSEC covering the name plus the wildcard's NSEC without the type.
 */
export function proveNsecNoData(nsecs: readonly NsecRecord[], qname: Name, qtype: number, zone: Name): DenialResult {
  if (nsecs.length === 0) return fail('no-records', 'no NSEC records');
  const matching = nsecs.find((nsec) => nsecMatches(nsec, qname));
  if (matching) {
    const types = matching.rdata.types;
    if (has(types, qtype) || has(types, RRType.CNAME)) return fail('type-present', `the NSEC at ${qname.toString()} lists the type`);
    if (qtype !== RRType.DS && has(types, RRType.NS) && !has(types, RRType.SOA))
      return fail('delegation', `${qname.toString()} is a delegation`);
    return { ok: true, closestEncloser: qname, wildcard: wildcardOf(qname) };
  }
  const emptyNonTerminal = nsecs.find(
    (nsec) => nsecCovers(nsec, qname) && nsec.rdata.nextDomain.isSubdomainOf(qname) && !nsec.rdata.nextDomain.equals(qname),
  );
  if (emptyNonTerminal) return { ok: true, closestEncloser: qname, wildcard: wildcardOf(qname) };
  const covering = nsecs.find((nsec) => nsecCovers(nsec, qname));
  if (!covering) return fail('name-not-covered', `no NSEC matches or covers ${qname.toString()}`);
  const wildcardNsec = nsecs.find(
    (nsec) => nsec.name.labels[0]?.length === 1 && nsec.name.labels[0][0] === 0x2a && qname.isSubdomainOf(nsec.name.parent()!),
  );
  if (!wildcardNsec) return fail('wildcard-not-denied', `no wildcard NSEC for ${qname.toString()}`);
  if (has(wildcardNsec.rdata.types, qtype) || has(wildcardNsec.rdata.types, RRType.CNAME))
    return fail('type-present', `the wildcard ${wildcardNsec.name.toString()} lists the type`);
  const closestEncloser = wildcardNsec.name.parent()!;
  return closestEncloser.isSubdomainOf(zone)
    ? { ok: true, closestEncloser, nextCloser: nextCloserName(qname, closestEncloser), wildcard: wildcardNsec.name }
    : fail('outside-zone', `${closestEncloser.toString()} is not in ${zone.toString()}`);
}

/**
 * RFC 5155 §8.3 closest encloser proof: the longest ancestor of `qname` (within `zone`) that an
 * NSEC3 matches, and an NSEC3 covering the next closer name. The matching record must not be a
 * delegation or DNAME (RFC 6840 §4.1).
 */
export function proveNsec3ClosestEncloser(nsec3s: readonly Nsec3Record[], qname: Name, zone: Name): DenialResult {
  if (nsec3s.length === 0) return fail('no-records', 'no NSEC3 records');
  if (!qname.isSubdomainOf(zone)) return fail('outside-zone', `${qname.toString()} is not in ${zone.toString()}`);
  if (nsec3s.every((r) => r.rdata.hashAlgorithm !== NSEC3_SHA1))
    return fail('unknown-hash-algorithm', 'no NSEC3 record uses a known hash algorithm');
  for (let ancestor = qname.parent(); ancestor && ancestor.isSubdomainOf(zone); ancestor = ancestor.parent()) {
    const matching = nsec3s.find((r) => nsec3Matches(r, ancestor));
    if (!matching) continue;
    if (isCut(matching.rdata.types) && !ancestor.equals(zone))
      return fail('delegation', `the closest encloser ${ancestor.toString()} is a delegation or DNAME`);
    const nextCloser = nextCloserName(qname, ancestor);
    if (!nsec3s.some((r) => nsec3Covers(r, nextCloser)))
      return fail('next-closer-not-covered', `no NSEC3 covers the next closer name ${nextCloser.toString()}`);
    return { ok: true, closestEncloser: ancestor, nextCloser, wildcard: wildcardOf(ancestor) };
  }
  return fail('no-closest-encloser', `no NSEC3 matches an ancestor of ${qname.toString()}`);
}

/** RFC 5155 §8.4: the closest encloser proof, and an NSEC3 covering the wildcard at the closest encloser. */
export function proveNsec3NameError(nsec3s: readonly Nsec3Record[], qname: Name, zone: Name): DenialResult {
  const proof = proveNsec3ClosestEncloser(nsec3s, qname, zone);
  if (!proof.ok) return proof;
  if (!nsec3s.some((r) => nsec3Covers(r, proof.wildcard)))
    return fail('wildcard-not-denied', `no NSEC3 covers ${proof.wildcard.toString()}`);
  return proof;
}

/**
 * RFC 5155 §8.5–8.7: an NSEC3 matching `qname` without the type (nor CNAME), or the closest encloser
 * proof plus a matching NSEC3 at the wildcard without the type.
 */
export function proveNsec3NoData(nsec3s: readonly Nsec3Record[], qname: Name, qtype: number, zone: Name): DenialResult {
  if (nsec3s.length === 0) return fail('no-records', 'no NSEC3 records');
  const matching = nsec3s.find((r) => nsec3Matches(r, qname));
  if (matching) {
    const types = matching.rdata.types;
    if (has(types, qtype) || has(types, RRType.CNAME)) return fail('type-present', `the NSEC3 for ${qname.toString()} lists the type`);
    return { ok: true, closestEncloser: qname, wildcard: wildcardOf(qname) };
  }
  const proof = proveNsec3ClosestEncloser(nsec3s, qname, zone);
  if (!proof.ok) return proof;
  const wildcard = nsec3s.find((r) => nsec3Matches(r, proof.wildcard));
  if (!wildcard) return fail('wildcard-not-denied', `no NSEC3 matches ${proof.wildcard.toString()}`);
  if (has(wildcard.rdata.types, qtype) || has(wildcard.rdata.types, RRType.CNAME))
    return fail('type-present', `the NSEC3 for ${proof.wildcard.toString()} lists the type`);
  return proof;
}
