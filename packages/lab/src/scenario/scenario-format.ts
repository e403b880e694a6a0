// The scenario file format (YAML or JSON). README.md documents every field; this is the one place
// that decides what a valid scenario is.
import { isIP } from 'node:net';
import { z } from 'zod';
import { parseLatency } from './latency.ts';

const fqdn = z
  .string()
  .min(1)
  .transform((name) => (name.endsWith('.') ? name : `${name}.`).toLowerCase());

const documentationPrefixes = ['192.0.2.', '198.51.100.', '203.0.113.'];

/** Only documentation addresses, so nothing in a lab can ever look like a real host. */
const labAddress = z.string().refine(
  (address) => {
    const family = isIP(address);
    if (family === 4) return documentationPrefixes.some((prefix) => address.startsWith(prefix));
    return family === 6 && /^2001:0?db8:/i.test(address);
  },
  { message: 'must be an address from 192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24 or 2001:db8::/32' },
);

/** Relative time such as `-30d`, `+2h`, `0`, or an absolute `YYYYMMDDHHMMSS`. */
const timeSpec = z.string().regex(/^(?:[+-]?\d+[smhdw]?|\d{14})$/, 'must be like -30d, +2h, 0 or YYYYMMDDHHMMSS');

export const ednsBehaviours = [
  'supported',
  'ignored',
  'formerr',
  'no-badvers',
  'drop-unknown-version',
  'formerr-unknown-version',
  'answers-version-1',
] as const;
/** What a server does with a query carrying an EDNS option IANA has not assigned. */
export const unknownOptionBehaviours = ['ignored', 'echo', 'formerr', 'no-edns', 'empty', 'no-aa'] as const;
export const dsModes = ['correct', 'wrong-digest', 'wrong-keytag', 'zsk', 'none'] as const;
export const cdsModes = ['none', 'correct', 'mismatch', 'delete', 'cds-only', 'cdnskey-only', 'zsk', 'unpublished'] as const;

/** Query header bits a responder can copy into its answer or refuse. */
export const headerBits = ['aa', 'ad', 'cd', 'ra', 'tc', 'z'] as const;
/** EDNS options IANA assigned that a responder can mishandle. */
export const knownOptionNames = ['NSID', 'ECS', 'EXPIRE', 'COOKIE'] as const;
export const knownOptionBehaviours = ['formerr', 'drop', 'no-edns'] as const;
/** What a responder does to the COOKIE option of its server's answers (RFC 7873). */
export const cookieBehaviours = ['server', 'wrong-client', 'short', 'badcookie', 'stale'] as const;

const rrtypeName = z
  .string()
  .regex(/^[A-Za-z0-9]+$/)
  .transform((type) => type.toUpperCase());
const rrtypeNames = z.array(rrtypeName).default([]);

/** RRSIGs picked in the signed zone: those covering `type`, narrowed by owner, algorithm or signing key. */
const rrsigSelector = {
  type: rrtypeName,
  /** Relative to the zone (`@` the apex); any owner when absent. */
  owner: z.string().min(1).optional(),
  algorithm: z.number().int().min(0).max(255).optional(),
  signer: z.enum(['ksk', 'zsk']).optional(),
};
const removeRrsigSchema = z.object(rrsigSelector).strict();
/** `signature`: the signature bytes altered, so it no longer verifies; `keytag`: the key tag changed to one no DNSKEY of the zone has. */
const spoilRrsigSchema = z.object({ ...rrsigSelector, spoil: z.enum(['signature', 'keytag']).default('signature') }).strict();

/** A DNSKEY published at the apex besides the zone's own keys (rdata text: flags protocol algorithm key). */
const extraDnskeySchema = z
  .object({
    rdata: z.string().regex(/^\d+\s+\d+\s+\d+\s+[A-Za-z0-9+/=\s]+$/, 'must be DNSKEY rdata: flags protocol algorithm base64-key'),
    /** The parent gets a DS for it too (the zone's digest type). */
    ds: z.boolean().default(false),
  })
  .strict();

const behaviourSchema = z
  .object({
    tcp: z.union([z.boolean(), z.literal('silent')]).default(true),
    /** `silent`: UDP queries never answered (a server reachable over TCP only, or with `tcp: silent` not at all). */
    udp: z.union([z.literal(true), z.literal('silent')]).default(true),
    /** Each answer waits this long ('2s', '500ms'), over UDP and TCP, instead of the lab's latency. */
    delay: z
      .string()
      .optional()
      .superRefine((text, context) => {
        if (text === undefined) return;
        try {
          parseLatency(text);
        } catch (error) {
          context.addIssue({ code: 'custom', message: (error as Error).message });
        }
      }),
    drop: rrtypeNames,
    /** The transport(s) on which `drop` applies. */
    dropOver: z.enum(['both', 'udp', 'tcp']).default('both'),
    onlyTypes: rrtypeNames,
    extraSoa: z.boolean().default(false),
    stripRrsigs: rrtypeNames,
    stripRecords: rrtypeNames,
    empty: rrtypeNames,
    rcode: z.enum(['NOERROR', 'NXDOMAIN', 'SERVFAIL', 'REFUSED', 'NOTIMP', 'FORMERR']).optional(),
    aa: z.boolean().default(true),
    upwardReferral: z.boolean().default(false),
    edns: z.enum(ednsBehaviours).default('supported'),
    /** `true`: UDP answers truncated; `always`: TCP answers too. */
    truncate: z.union([z.boolean(), z.literal('always')]).default(false),
    qnameCase: z.enum(['kept', 'lower']).default('kept'),
    answerFrom: labAddress.optional(),
    /** Questions are answered as if they had asked for this name (the question section kept). */
    answerName: fqdn.optional(),
    unknownOption: z.enum(unknownOptionBehaviours).default('ignored'),
    ednsZ: z.enum(['cleared', 'echoed']).default('cleared'),
    /** Query header bits copied into the answer (a reserved or request-only bit echoed). */
    headerEcho: z.array(z.enum(headerBits)).default([]),
    /** A query with any of these header bits set is answered FORMERR. */
    flagsRefused: z.array(z.enum(headerBits)).default([]),
    /** The answer's RD bit: `cleared` always, `set` always, or `kept` as the query had it. */
    rd: z.enum(['kept', 'cleared', 'set']).default('kept'),
    /** A request with an opcode other than QUERY: `notimp` (as BIND), `noerror` (header-only NOERROR), `drop`. */
    unknownOpcode: z.enum(['notimp', 'noerror', 'drop']).default('notimp'),
    /** `ignored`: a UDP answer is as big as it is, whatever EDNS buffer size the query gave (no TC). */
    udpSize: z.enum(['honoured', 'ignored']).default('honoured'),
    /** Bits cleared in every answer: `do` in its OPT, `cd` in its header. */
    clearFlags: z.array(z.enum(['do', 'cd'])).default([]),
    /** Queries carrying these assigned EDNS options: FORMERR, no answer, or an answer without OPT. */
    knownOptions: z.partialRecord(z.enum(knownOptionNames), z.enum(knownOptionBehaviours)).default({}),
    /** The answer's COOKIE option: as the server made it, the client part altered, a 4-byte server cookie, BADCOOKIE to any server cookie, or the query's cookie echoed unchanged. */
    cookie: z.enum(cookieBehaviours).default('server'),
    version: z.string().optional(),
    /** `wrong-class`: CH TXT queries for version.bind and version.server answered with an IN-class TXT record (the `version` string, or "lab"). */
    versionAnswer: z.enum(['bind', 'wrong-class']).default('bind'),
    recursion: z.boolean().default(false),
    axfr: z.boolean().default(false),
  })
  .strict();

/** The name server software that answers for a lab server (authoritative only; PowerDNS with its bind backend). */
export const implementations = ['bind', 'knot', 'nsd', 'powerdns'] as const;
export type Implementation = (typeof implementations)[number];
const implementationSchema = z.enum(implementations);

/** What is wrong with the certificate a server's DoT and DoH listeners present (all name the server unless said). */
export const certificateKinds = ['valid', 'expired', 'wrong-name', 'self-signed'] as const;
/** Who serves DNS over TLS and HTTPS for a server: the implementation itself (BIND: both; NSD: DoT), or dnsdist in front of it. */
export const encryptedFronts = ['auto', 'native', 'dnsdist'] as const;

/**
 * DNS over TLS on port 853 and over HTTPS on 443 (`/dns-query`), with a certificate from the lab's own
 * CA. `dot: silent`: port 853 takes connections and never speaks.
 */
const encryptedSchema = z
  .object({
    dot: z.union([z.boolean(), z.literal('silent')]).default(true),
    doh: z.boolean().default(false),
    certificate: z.enum(certificateKinds).default('valid'),
    /** `auto`: the implementation where it can serve what is asked, else dnsdist. */
    front: z.enum(encryptedFronts).default('auto'),
    /** dnsdist passes queries to this other lab server instead (a TLS front before a stale copy). */
    backend: fqdn.optional(),
  })
  .strict();

const serverSchema = z
  .object({
    name: fqdn,
    /** Unset: the file's own `implementation`, else BIND. */
    implementation: implementationSchema.optional(),
    addresses: z.array(labAddress).min(1),
    /** Further names of the same server: the lab gives them the same addresses (A/AAAA, glue). */
    aliases: z.array(fqdn).default([]),
    behaviour: behaviourSchema.default(behaviourSchema.parse({})),
    /** Encrypted transports; none without it. */
    encrypted: encryptedSchema.optional(),
  })
  .strict();

const dnssecSchema = z
  .object({
    algorithm: z.string().default('ECDSAP256SHA256'),
    bits: z.number().int().positive().optional(),
    keys: z.enum(['ksk+zsk', 'csk', 'zsk-only']).default('ksk+zsk'),
    sep: z.boolean().default(true),
    extraAlgorithm: z.string().optional(),
    extraDnskeys: z.array(extraDnskeySchema).default([]),
    extraDs: z
      .array(z.string().regex(/^\d+\s+\d+\s+\d+\s+[0-9A-Fa-f\s]+$/, 'must be DS rdata: keytag algorithm digest-type hex-digest'))
      .default([]),
    denial: z.enum(['nsec', 'nsec3']).default('nsec'),
    nsec3: z
      .object({
        iterations: z.number().int().min(0).default(0),
        salt: z
          .string()
          .regex(/^(?:-|[0-9a-fA-F]+)$/)
          .default('-'),
        optOut: z.boolean().default(false),
      })
      .strict()
      .default({ iterations: 0, salt: '-', optOut: false }),
    inception: timeSpec.default('-1h'),
    expiration: timeSpec.default('+30d'),
    ds: z.enum(dsModes).default('correct'),
    digestType: z.number().int().min(1).max(4).default(2),
    signed: z.boolean().default(true),
    cds: z.enum(cdsModes).default('none'),
    denialGap: z.string().min(1).optional(),
    removeRrsigs: z.array(removeRrsigSchema).default([]),
    spoilRrsigs: z.array(spoilRrsigSchema).default([]),
    /**
     * `lab`: signed by dnssec-signzone when the world is built. `knot-kasp`: served unsigned to Knot DNS,
     * which signs it itself (automatic signing, a KASP policy with the zone's stored keys imported, CDS
     * and CDNSKEY published for the KSK when `cds` is not `none`); only Knot servers may serve it.
     * `bind-policy`: served unsigned to BIND, which signs it with a `dnssec-policy` (inline signing) that
     * adopts the zone's stored keys and publishes CDS/CDNSKEY for the KSK; only BIND servers may serve it.
     */
    signer: z.enum(['lab', 'knot-kasp', 'bind-policy']).default('lab'),
  })
  .strict();

/**
 * An apex ZONEMD record (RFC 8976) the lab adds to a zone (signed ones: signed too): the zone's digest with this scheme
 * and hash algorithm, or spoilt (`digest: wrong`, `serial: other` for the SOA serial plus one).
 */
const zonemdSchema = z
  .object({
    scheme: z.number().int().min(0).max(255).default(1),
    algorithm: z.number().int().min(0).max(255).default(1),
    digest: z.enum(['correct', 'wrong']).default('correct'),
    serial: z.enum(['soa', 'other']).default('soa'),
  })
  .strict();

const parentSchema = z
  .object({
    ns: z.array(fqdn).optional(),
    glue: z.boolean().default(true),
  })
  .strict();

/** An RFC 9615 bootstrapping signal this zone publishes for a child: the child's CDS/CDNSKEY (made as `cds` says) at `_dsboot.<child>._signal.<ns>`. */
const signalSchema = z
  .object({
    child: fqdn,
    /** A name server name inside this zone. */
    ns: fqdn,
    cds: z.enum(cdsModes).default('correct'),
  })
  .strict();

const zoneSchema = z
  .object({
    origin: fqdn,
    servers: z.array(fqdn).min(1),
    text: z.string(),
    addressRecords: z.boolean().default(true),
    ptrRecords: z.boolean().default(false),
    dnssec: dnssecSchema.optional(),
    zonemd: z.array(zonemdSchema).default([]),
    delegated: z.boolean().default(true),
    parent: parentSchema.default({ glue: true }),
    /** Signed with the key store's keys of this other zone (a variant's copy: its original's keys, so the same key tags). */
    keysFrom: fqdn.optional(),
    signals: z.array(signalSchema).default([]),
  })
  .strict();

export const scenarioSchema = z
  .object({
    description: z.string().optional(),
    domain: fqdn.optional(),
    extends: z.union([z.string(), z.array(z.string())]).optional(),
    /**
     * Another scenario (a catalogue name or a path) whose own servers and zones this file copies:
     * names at or below that scenario's domain move below this file's `domain`, and every address of
     * its servers becomes the one `addresses` maps it to. Its `extends` stay shared.
     */
    variantOf: z.string().min(1).optional(),
    /** For `variantOf`: each address of the copied servers, and the address the copy uses instead. */
    addresses: z.record(z.string(), labAddress).optional(),
    /** The implementation of the servers this file defines (or copies): one for all, or per server name. */
    implementation: z.union([implementationSchema, z.record(z.string(), implementationSchema)]).optional(),
    servers: z.array(serverSchema).default([]),
    zones: z.array(zoneSchema).default([]),
  })
  .strict();

export type ScenarioFile = z.infer<typeof scenarioSchema>;
export type ServerSpec = Omit<z.infer<typeof serverSchema>, 'implementation'> & { implementation: Implementation };
export type Behaviour = z.infer<typeof behaviourSchema>;
export type ZoneSpec = z.infer<typeof zoneSchema>;
export type EncryptedSpec = z.infer<typeof encryptedSchema>;
export type CertificateKind = (typeof certificateKinds)[number];
export type DnssecSpec = z.infer<typeof dnssecSchema>;
export type ZonemdSpec = z.infer<typeof zonemdSchema>;
/** A zone's `dnssec: {}`: every field at its default. */
export const defaultDnssec = (): DnssecSpec => dnssecSchema.parse({});
export type EdnsBehaviour = (typeof ednsBehaviours)[number];
export type CdsMode = (typeof cdsModes)[number];
export type RemoveRrsig = z.infer<typeof removeRrsigSchema>;
export type SpoilRrsig = z.infer<typeof spoilRrsigSchema>;

/** A scenario with its `extends` resolved: one DNS world. */
export interface Scenario {
  /** Names of the files it came from, for messages. */
  sources: string[];
  description: string;
  /** Domains under test (one per scenario file that names one). */
  domains: string[];
  servers: ServerSpec[];
  zones: ZoneSpec[];
  /** Generated zones written as they are, without BIND's tools (big:N's children; see big-world.ts). */
  bulkZones?: { origin: string; servers: string[]; text: string }[];
}
